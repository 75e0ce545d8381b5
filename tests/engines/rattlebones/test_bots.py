"""The bots: the generic random one and the Rattlebones heuristic, which must beat it clearly."""

from __future__ import annotations

import random

from engines.bots import RandomBot
from engines.playout import playout
from engines.protocol import Turn
from engines.rattlebones.bots import HeuristicBot

from . import GAME, roll, table

HEURISTIC = HeuristicBot()


def test_the_game_offers_a_random_and_a_heuristic_bot() -> None:
    bots = GAME.bots()
    assert set(bots) == {"random", "heuristic"}
    assert bots["heuristic"].name == "heuristic"


def choose(state):
    action = HEURISTIC.act(Turn(GAME, state, state.player), random.Random(0))
    assert action in GAME.legal_actions(state, state.player)
    return action


def test_it_spends_its_gold_on_dice() -> None:
    assert choose(table(2, gold=[2, 0])) == {"type": "roll", "dice": [0, 1, 2]}


def test_it_improves_the_die_it_rolled() -> None:
    state = roll(table(2, dice={0: ("rattlebones", "points_2", "3", "4", "5", "6")}), [0], [2])  # onto +1
    action = choose(state)
    assert (action["replace_side"], action["new_side"]) == (1, "points_3")


def test_it_sells_its_stars_and_robs_stars_first() -> None:
    store = roll(table(2, pawns={0: 17}, stars=[4, 0]), [0], [2])  # a 3 from 17 onto the store
    assert choose(store)["sell"] == 4
    thief = roll(table(3, dice={0: ("rattlebones", "thief", "3", "4", "5", "6")}, gold=[0, 1, 1],
                       stars=[0, 1, 0], stock=[0, 0, 1]), [0], [1])  # fmt: skip
    assert choose(thief)["steal"] == ["star", "stock"]


def wins(seats: int, games: int) -> float:
    """The heuristic's share of outright wins, in every seat in turn, the others random."""
    won = 0
    for game in range(games):
        seat = game % seats
        bots = [HEURISTIC if other == seat else RandomBot() for other in range(seats)]
        state, _ = playout(
            GAME, seats=seats, seed=f"bots/{game}".encode(), bots=bots, rng=random.Random(game)
        )
        ranks = GAME.outcome(state).ranks
        won += ranks[seat] == 1 and ranks.count(1) == 1
    return won / games


def test_the_heuristic_beats_random_clearly() -> None:
    assert wins(2, 120) >= 0.7  # measured 0.85 over 100 games
    assert wins(3, 60) >= 0.5  # a third would be even
