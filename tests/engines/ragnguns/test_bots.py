"""The bots: random, and the heuristic one that must beat it clearly (rules 0.3, GAMEPLAY)."""

from __future__ import annotations

import random

from engines.bots import RandomBot
from engines.playout import playout
from engines.protocol import Turn
from engines.ragnguns import GAME
from engines.ragnguns.bots import HeuristicBot

from . import duel, lay_out


def test_bots_are_random_and_heuristic() -> None:
    assert set(GAME.bots()) == {"random", "heuristic"}


def test_the_heuristic_bot_shoots_with_everything() -> None:
    state = lay_out(duel(), 0, alley="sisters", bullets=3)
    action = HeuristicBot().act(Turn(GAME, state, 0), random.Random(0))
    assert action == {"type": "gunfight", "bullets": 3}


def test_the_heuristic_bot_beats_random_clearly() -> None:
    wins = 0
    games = 120
    for n in range(games):
        heuristic_seat = n % 2
        bots = [RandomBot(), RandomBot()]
        bots[heuristic_seat] = HeuristicBot()
        final, _ = playout(GAME, seats=2, seed=f"bots/{n}".encode(), bots=bots)
        outcome = GAME.outcome(final)
        wins += outcome.scores[heuristic_seat]
    assert wins / games >= 0.9, wins  # measured: 1.0 over 400 games
