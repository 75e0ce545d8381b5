"""Tournament figures: Swiss pairing of one round after three simulated rounds, and full standings,
at scale (the pure formats library)."""

from __future__ import annotations

from snakepit.bench import Figure
from tournaments.formats.swiss import bench_swiss
from tournaments.formats.tiebreaks import bench_standings


def figures() -> list[Figure]:
    rows = [
        Figure(f"tournament.swiss_pair_{players}_s", f"Swiss pairing, {players:,} players (one round after 3)", bench_swiss(players), "s")
        for players in (100, 1_000, 10_000)
    ]
    rows.append(Figure("tournament.standings_10000_s", "Standings with all tiebreaks, 10,000 players, 14 rounds", bench_standings(10_000), "s"))
    return rows
