"""Pure-Python rules engines: no Django, no clock, no global random, no I/O (see docs/engines.md)."""
