"""Bots every game gets for free."""

from __future__ import annotations

import random

from engines.protocol import Action, Bot, Turn


class RandomBot(Bot):
    """Picks uniformly among the legal actions: the baseline every heuristic must beat. It never
    reads its view, so it never pays for one."""

    name = "random"

    def act(self, turn: Turn, rng: random.Random) -> Action:
        actions = turn.legal_actions
        if not actions:
            raise ValueError("a bot was asked to act with no legal action")
        return rng.choice(actions)
