"""Rating figures: openskill updates alone."""

from __future__ import annotations

from ratings import skill
from snakepit.bench import Figure, rate


def figures() -> list[Figure]:
    rows = []
    for players in (2, 4):
        skills = [skill.Skill(25.0 + seat, 8.0 - seat / 2) for seat in range(players)]
        ranks = list(range(1, players + 1))

        def rate_many() -> int:
            for _ in range(100):
                skill.rate(skill.DEFAULT_MODEL, skills, ranks)
            return 100

        rows.append(Figure(
            f"ratings.openskill_{players}p_per_s", f"Rating updates, {players}-player matches (openskill Plackett-Luce)",
            rate(rate_many), "matches/s",
        ))
    return rows
