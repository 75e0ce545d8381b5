"""x2: "If, at the end of a player's turn, the X2 is showing with gold, stars or points rolled that
turn, then the number ... earned is doubled. This does NOT include the Gamble Die. ... An X2 applies
to one die only." The rulebook's three examples, each with all three dice rolled for two gold."""

from __future__ import annotations

from . import GAME, act, chance, roll, table, use

X2_COIN_STAR = ("rattlebones", "x2", "gold", "star", "points_2", "gamble")


def three_dice(faces: list[int], **fields):
    state = table(2, dice={0: X2_COIN_STAR, 1: X2_COIN_STAR, 2: X2_COIN_STAR}, gold=[2, 0], **fields)
    return roll(state, [0, 1, 2], faces)


def use_all(state):
    while state.phase == "use_die":
        state = use(state, GAME.legal_actions(state, 0)[0]["die"])
    return state


def test_example_1_x2_coin_coin_takes_three_coins_not_four() -> None:
    state = use_all(three_dice([1, 2, 2]))
    assert state.gold == [3, 0] and state.player == 1


def test_example_2_x2_x2_coin_takes_two_coins_not_four() -> None:
    state = use_all(three_dice([1, 1, 2]))
    assert state.gold == [2, 0] and state.player == 1


def test_example_3_x2_coin_star_doubles_the_coin_or_the_star_not_both() -> None:
    state = use_all(three_dice([1, 2, 3]))
    assert GAME.decision(state).prompt == "double"
    assert GAME.legal_actions(state, 0) == [{"type": "double", "die": 1}, {"type": "double", "die": 2}]
    coins = act(state, {"type": "double", "die": 1})
    assert (coins.gold, coins.stars, coins.player) == ([2, 0], [1, 0], 1)
    stars = act(state, {"type": "double", "die": 2})
    assert (stars.gold, stars.stars, stars.player) == ([1, 0], [2, 0], 1)


def test_x2_doubles_points() -> None:
    state = use_all(three_dice([1, 4, 2]))  # x2, 2 points, a coin: a choice
    state = act(state, {"type": "double", "die": 1})
    assert state.scores == [4, 0] and state.gold == [1, 0]


def test_x2_never_doubles_the_gamble_die() -> None:
    state = three_dice([1, 5, 5])  # x2 and two GAMBLE sides
    state = use(state, 1)
    state = chance(state, {"dice": [5]})  # the Gamble die shows 5 points
    state = use(state, 2)
    state = chance(state, {"dice": [3]})  # 3 points; the x2 is used last, at once
    assert state.scores == [8, 0] and state.player == 1


def test_an_x2_with_nothing_to_double_does_nothing() -> None:
    state = table(2, dice={0: X2_COIN_STAR})
    state = roll(state, [0], [1])
    assert state.player == 1 and state.gold == [0, 0] and state.scores == [0, 0]


def test_doubling_takes_only_what_the_supply_still_has() -> None:
    state = three_dice([1, 2, 3])
    state.gold_supply = 1
    state = use_all(state)
    coins = act(state, {"type": "double", "die": 1})
    assert coins.gold == [1, 0] and coins.gold_supply == 0


def test_x2_doubles_the_points_of_a_train_or_a_1234_too() -> None:
    # The Gamble die is the one exception the rulebook names, so points a die's own action earns count.
    sides = ("rattlebones", "x2", "train", "1234", "5", "6")
    state = table(2, dice={0: sides, 1: sides}, gold=[1, 0], train=4)
    state = roll(state, [0, 1], [1, 2])
    state = use(state, 1)
    assert state.scores == [8, 0] and state.train == 5
    state = roll(table(2, dice={0: sides, 1: sides}, gold=[1, 0], scores=[0, 9]), [0, 1], [3, 1])
    state = use(state, 0)
    assert state.scores == [4, 9]  # second place: 2, doubled


def test_the_option_points_sides_doubles_only_points_sides() -> None:
    from engines.rattlebones import GAME as game

    sides = ("rattlebones", "x2", "train", "points_2", "5", "6")
    state = game.new_state(seats=2, options={"x2_points": "points_sides"})
    state = chance(state, {"permutation": list(range(12))})
    state.dice[0] = state.dice[1] = sides
    state.gold, state.gold_supply, state.train = [1, 0], 19, 4
    state = roll(state, [0, 1], [1, 2])
    state = use(state, 1)
    assert state.scores == [4, 0]  # the train's 4, not doubled
    assert game.spec.resolve_options(None) == {"x2_points": "die_actions"}
