"""Competitions: the match event store now; tournaments and ladders build on it."""
