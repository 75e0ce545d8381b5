"""2. Take an Action: GOLD, STAR, ROLL AGAIN, TRAIN, 9 PIP, POINTS, THIEF, ARROW, 1234, STOCK, GAMBLE,
with the rulebook's examples (Roll Again, Thief from three players, Arrow to Train)."""

from __future__ import annotations

import pytest

from engines.chance import ChanceRequest
from engines.rattlebones.rules import effective_side, stock_awards

from . import GAME, act, chance, count_pieces, roll, table, use


def die(*sides: str) -> tuple[str, ...]:
    """A die: the icon, then five sides (pips where not given)."""
    rest = list(sides) + ["2", "3", "4", "5", "6"][len(sides) :]
    return ("rattlebones", *rest)


def test_gold_and_star_come_from_the_supply_or_not_at_all() -> None:
    state = table(2, dice={0: die("gold", "star")})
    took = roll(state, [0], [1])  # GOLD: the only way to use it, so it is used at once
    assert took.gold == [1, 0] and took.gold_supply == 19 and took.player == 1
    state.gold_supply = 0
    none_left = roll(state, [0], [1])
    assert none_left.gold == [0, 0]  # "If there is no gold remaining in the supply, he takes none."
    star = roll(table(2, dice={0: die("gold", "star")}), [0], [2])
    assert star.stars == [1, 0] and star.star_supply == 19


def test_the_rulebook_example_roll_again_then_x2_and_three_points() -> None:
    # "A player rolls one die. It reveals a ROLL AGAIN side. The player picks up this die and any other
    # previously unrolled die. He rolls both. One die reveals an X2. The other die reveals 3 points.
    # The player scores 6 points immediately on the score track."
    state = table(2, dice={0: die("roll_again", "x2"), 1: die("points_3")})
    state = roll(state, [0], [1])
    assert GAME.legal_actions(state, 0) == [
        {"type": "use_die", "die": 0, "with": 1},
        {"type": "use_die", "die": 0, "with": 2},
    ]
    state = use(state, 0, **{"with": 1})
    assert GAME.chance_request(state) == ChanceRequest.dice("dice", count=2)
    state = chance(state, {"dice": [3, 2]})  # die 0 shows x2 (side 2), die 1 shows 3 points (side 1)
    state = use(state, 1)
    assert state.scores == [6, 0] and state.player == 1


def test_roll_again_at_most_twice_and_only_with_unrolled_dice() -> None:
    state = table(2, dice={slot: die("roll_again") for slot in range(3)})
    state = roll(state, [1], [1])
    state = use(state, 1, **{"with": 0})
    state = chance(state, {"dice": [2, 2]})  # both show ROLL AGAIN
    assert {a["with"] for a in GAME.legal_actions(state, 0)} == {2}  # only the final unrolled die
    state = use(state, 0, **{"with": 2})
    state = chance(state, {"dice": [2, 2]})  # die 0 and die 2 show ROLL AGAIN again, die 1 still too
    # "Any ROLL AGAIN sides showing when all dice have been rolled are disregarded."
    assert GAME.legal_actions(state, 0) == [{"type": "use_die", "die": d, "with": None} for d in (0, 1, 2)]
    for d in (0, 1):
        state = use(state, d, **{"with": None})
    assert state.player == 1  # the third was used at once: nothing left to choose


def test_roll_again_is_disregarded_when_all_three_were_rolled() -> None:
    # "If you spend two gold to roll all three dice, any ROLL AGAIN sides are disregarded."
    state = table(2, dice={0: die("roll_again")}, gold=[2, 0])
    state = roll(state, [0, 1, 2], [1, 0, 1])
    assert {"type": "use_die", "die": 0, "with": None} in GAME.legal_actions(state, 0)
    assert not any(a.get("with") is not None for a in GAME.legal_actions(state, 0))


def test_the_train_scores_its_space_then_moves_one_space_clockwise() -> None:
    state = table(2, dice={0: die("train")}, train=3)
    state = roll(state, [0], [1])
    assert state.scores == [3, 0] and state.train == 4


def test_the_train_goes_round_its_track() -> None:
    from engines.rattlebones.catalogue import CATALOGUE

    last = len(CATALOGUE.train_track) - 1
    state = roll(table(2, dice={0: die("train")}, train=last), [0], [1])
    assert state.scores == [CATALOGUE.train_track[last], 0] and state.train == 0


@pytest.mark.parametrize("points", [1, 2, 3, 4, 5])
def test_points_sides_score_their_value(points: int) -> None:
    state = roll(table(2, dice={0: die(f"points_{points}")}), [0], [1])
    assert state.scores == [points, 0]


def test_the_rulebook_example_thief_from_three_players() -> None:
    # "He decides to steal one gold piece from Player B and a stock ticket from Player C. Since Player D
    # has no gold, stars, or stock, he is unaffected."
    state = table(4, dice={0: die("thief")}, gold=[0, 1, 0, 0], stars=[0, 1, 0, 0], stock=[0, 0, 1, 0])
    before = count_pieces(state)
    state = roll(state, [0], [1])
    steals = [a["steal"] for a in GAME.legal_actions(state, 0)]
    assert steals == [["gold", "stock", None], ["star", "stock", None]]
    state = use(state, 0, steal=["gold", "stock", None])
    assert state.gold == [1, 0, 0, 0] and state.stock == [1, 0, 0, 0] and state.stars == [0, 1, 0, 0]
    assert count_pieces(state) == before


def test_a_thief_with_nobody_to_rob_takes_nothing() -> None:
    state = roll(table(3, dice={0: die("thief")}), [0], [1])
    assert state.player == 1 and state.gold == state.stars == state.stock == [0, 0, 0]


def test_the_rulebook_example_arrow_to_train() -> None:
    # "the ARROW points to a die side showing a TRAIN, so the player follows the directions for the
    # TRAIN action ... He scores that many points ... He then moves the TRAIN one space clockwise."
    state = table(2, dice={0: die("arrow_to_2", "train")}, train=5)
    state = roll(state, [0], [1])
    assert state.scores == [5, 0] and state.train == 6
    assert state.player == 1  # "His turn ends."


def test_an_arrow_to_pips_moves_a_pawn_and_arrows_round_in_a_circle_do_nothing() -> None:
    assert effective_side(die("arrow_to_2", "4"), 1) == "4"
    assert effective_side(die("arrow_to_2", "arrow_to_3", "gold"), 1) == "gold"
    assert effective_side(die("arrow_to_2", "arrow_to_1"), 1) is None
    state = roll(table(2, dice={0: die("arrow_to_2", "arrow_to_1")}), [0], [1])
    assert state.player == 1 and state.scores == [0, 0]


def test_one_two_three_four_scores_the_place_ties_sharing_the_better() -> None:
    state = table(3, dice={slot: die("1234") for slot in range(9)}, scores=[10, 10, 5])
    first = roll(state, [0], [1])
    assert first.scores == [11, 10, 5]  # tied for first: 1 point
    state.player = 2
    third = roll(state, [0], [1])
    assert third.scores == [10, 10, 8]  # behind two players: third place, 3 points


@pytest.mark.parametrize(
    ("held", "awards"),
    [
        ([3, 2], [10, 5]),
        ([4, 1, 0], [10, 5, 0]),
        ([2, 2, 1], [7, 7, 2]),  # "If two players tie for most, they each earn 7 pts. and second ... 2"
        ([3, 1, 1], [10, 2, 2]),  # "one first place winner and ties for second: each ... 2 pts."
        ([2, 1, 1, 1], [10, 2, 2, 2]),
        ([0, 5], [0, 15]),  # "If one player holds all five stock pieces, he earns the total 15 pts."
    ],
)
def test_stock_scoring(held: list[int], awards: list[int]) -> None:
    assert stock_awards(held) == awards


def test_the_fifth_stock_ticket_scores_them_all_and_returns_them() -> None:
    state = table(2, dice={0: die("stock")}, stock=[2, 2])
    state = roll(state, [0], [1])
    assert state.scores == [10, 5]
    assert state.stock == [0, 0] and state.stock_supply == 5
    fewer = roll(table(2, dice={0: die("stock")}, stock=[1, 2]), [0], [1])
    assert fewer.stock == [2, 2] and fewer.stock_supply == 1 and fewer.scores == [0, 0]


@pytest.mark.parametrize(
    ("face", "scores", "rattlebones"), [(1, [0, 0], 54), (2, [2, 0], 55), (5, [5, 0], 55)]
)
def test_the_gamble_die(face: int, scores: list[int], rattlebones: int) -> None:
    state = roll(table(2, dice={0: die("gamble")}), [0], [1])
    assert GAME.decision(state).prompt == "gamble"
    assert GAME.chance_request(state) == ChanceRequest.dice("gamble", count=1, sides=6)
    state = chance(state, {"dice": [face]})
    # "If he rolls 2, 3, 4 or 5 pts, he scores them ... a Rattlebones symbol, he moves Rattlebones
    # backwards one space. He does not move his pawn."
    assert state.scores == scores and state.rattlebones == rattlebones
    assert state.pawns[:3] == [0, 0, 0] and state.player == 1


def test_no_action_while_the_gamble_die_rolls() -> None:
    state = roll(table(2, dice={0: die("gamble")}), [0], [1])
    assert GAME.legal_actions(state, 0) == []
    with pytest.raises(Exception) as raised:
        act(state, {"type": "roll", "dice": [0]})
    assert raised.value.code == "turn/chance_pending"
