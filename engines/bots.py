"""Bots every game gets for free."""

from __future__ import annotations

import random

from engines.protocol import Action, Bot, View


class RandomBot(Bot):
    """Picks uniformly among the legal actions: the baseline every heuristic must beat."""

    name = "random"

    def act(self, *, view: View, legal_actions: list[Action], seat: int, rng: random.Random) -> Action:
        if not legal_actions:
            raise ValueError("a bot was asked to act with no legal action")
        return rng.choice(legal_actions)
