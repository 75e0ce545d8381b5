"""Ratings and ladders (openskill): see the ratings issue."""
