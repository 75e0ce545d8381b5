"""Board Spaces: what each space offers the die that landed there; +1; ARROW directions; the STORE
and the rulebook's 9-Pip example."""

from __future__ import annotations

import pytest

from engines.rattlebones.catalogue import CATALOGUE
from engines.rattlebones.rules import star_value

from . import GAME, move, roll, table, use

NINE_PIP = ("rattlebones", "9_pip", "3", "4", "5", "6")


def offers(state, start: int | None = None) -> set[tuple]:
    return {
        (a["replace_side"], a["new_side"])
        for a in GAME.legal_actions(state, state.player)
        if "replace_side" in a and (start is None or a["from"] == start)
    }


@pytest.mark.parametrize(
    "tile", ["gold", "star", "roll_again", "train", "9_pip", "thief", "1234", "stock", "x2", "gamble"]
)
def test_each_action_space_offers_its_own_side(tile: str) -> None:
    state = table(2, placed={2: tile})
    state = roll(state, [0], [1])  # a 2, onto the tile on space 2
    assert offers(state) == {(None, None)} | {(side, tile) for side in range(1, 6)}


def test_plus_one_adds_a_one_point_side_or_raises_a_points_side() -> None:
    state = table(2, dice={0: ("rattlebones", "points_3", "3", "points_5", "5", "6")})
    state = roll(state, [0], [2])  # a 3, onto +1 (space 3)
    found = offers(state)
    assert (2, "points_1") in found and (1, "points_1") in found  # "add a 1 pt action side"
    assert (1, "points_4") in found  # "increase the value of a previously placed point action side by one"
    assert not any(new == "points_6" for _, new in found)  # "5 is the maximum value"
    assert (3, "points_1") in found and not any(side == 3 and new != "points_1" for side, new in found)
    raised = move(state, 0, 0, 3, replace=1, new_side="points_4")
    assert raised.dice[0][1] == "points_4"
    # "The replaced point action side is placed back into the supply."
    assert raised.sides["points_3"] == state.sides["points_3"] + 1
    assert raised.sides["points_4"] == state.sides["points_4"] - 1


def test_plus_one_cannot_raise_to_a_value_missing_from_the_supply() -> None:
    state = table(2, dice={0: ("rattlebones", "points_3", "3", "4", "5", "6")})
    state.sides["points_4"] = 0
    state = roll(state, [0], [2])
    found = offers(state)
    assert (1, "points_4") not in found and (1, "points_1") in found


def test_an_arrow_points_at_one_of_the_four_adjacent_sides() -> None:
    state = table(2, placed={2: "arrow"})
    state = roll(state, [0], [1])
    found = offers(state)
    for side in range(1, 6):
        targets = {int(new.removeprefix("arrow_to_")) for replace, new in found if replace == side}
        assert targets == set(range(6)) - {side, CATALOGUE.opposite[side]}
    assert CATALOGUE.opposite == (5, 4, 3, 2, 1, 0)  # the faces of a standard die: 1-6, 2-5, 3-4


def test_the_chart_on_the_store() -> None:
    assert [star_value(n) for n in range(5)] == [0, 3, 7, 11, 15]
    assert star_value(6) == 15 + 7  # more than four: sold as a four and the rest


def test_the_rulebook_example_nine_pip_onto_the_store() -> None:
    # "It reveals a 9-pip ... He chooses to move one of his pawns five spaces, which lands on the
    # store. The player has two star tokens. He may choose to sell these two tokens for 7 points".
    state = table(2, dice={0: NINE_PIP, 1: NINE_PIP}, pawns={0: 15}, stars=[2, 0], gold=[1, 0])
    state = roll(state, [0, 1], [1, 2])  # the 9-pip and a 3 (kept for later)
    distances = {a["steps"] for a in GAME.legal_actions(state, 0) if a["die"] == 0 and a["from"] == 0}
    assert distances == set(range(1, 10))  # "from 1 to 9 spaces clockwise"
    sales = [a for a in GAME.legal_actions(state, 0) if a["die"] == 0 and a["from"] == 15 and a["steps"] == 5]
    assert sales == [{"type": "use_die", "die": 0, "from": 15, "steps": 5, "sell": n} for n in range(3)]
    state = use(state, 0, **{"from": 15, "steps": 5, "sell": 2})
    assert state.scores == [7, 0] and state.stars == [0, 0]
    assert state.star_supply == 20  # "Sold stars go back into the main supply."


def test_landing_on_the_store_with_no_stars_sells_none() -> None:
    state = table(2, pawns={0: 16, 1: 16, 2: 16})
    state = roll(state, [0], [3])  # a 4 onto the store, the only move: used at once
    assert sorted(state.pawns[:3]) == [0, 16, 16] and state.scores == [0, 0] and state.player == 1
