"""Tournaments: an append-only log per tournament, its projections (entries, tables, matches,
standings), and the pure pairing and tiebreak library in `tournaments.formats`."""
