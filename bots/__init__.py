"""Bring your own bot: uploaded bot versions, the decision protocol they speak, the sandbox they run
in, and the matches they play (docs/bots.md)."""
