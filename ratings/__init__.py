"""Ladders: entries, openskill ratings applied exactly once per finished match, matchmaking and
scheduled rounds."""
