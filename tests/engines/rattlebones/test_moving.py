"""1. Move A Pawn: pips, the Rattlebones icon, and the side the landing space offers *to the die
rolled*; the rulebook's first example (a 3-pip onto THIEF, then the icon onto ARROW)."""

from __future__ import annotations

from . import GAME, STANDARD, count_pieces, move, roll, table


def test_the_rulebook_example_thief_then_arrow() -> None:
    # "A player spends one gold piece to roll one extra die. He rolls a 3-pip and a Rattlebones Icon."
    state = table(2, placed={5: "thief", 8: "arrow"}, gold=[1, 0], pawns={0: 2, 1: 7})
    before = count_pieces(state)
    state = roll(state, [0, 1], [2, 0])
    assert state.gold == [0, 0]
    # "1 First, he chooses to move one of his pawns clockwise around the board three spaces. It lands
    # on a THIEF space. The player may choose to replace one of the sides on that die with a THIEF
    # side (Exception: NOT the Rattlebones Icon side)."
    offers = [a for a in GAME.legal_actions(state, 0) if a["die"] == 0 and a["from"] == 2]
    assert {(a["replace_side"], a["new_side"]) for a in offers} == {
        (None, None), (1, "thief"), (2, "thief"), (3, "thief"), (4, "thief"), (5, "thief")
    }  # fmt: skip
    state = move(state, 0, 2, 3, replace=3, new_side="thief")
    assert state.dice[0] == ("rattlebones", "2", "3", "thief", "5", "6")
    assert state.dice[1] == STANDARD  # the other die is untouched
    # "2 Second, he moves the Rattlebones pawn backwards on the score track. ... the player then chooses
    # one of his pawns (even the one that just moved) to move one space clockwise ... It lands on the
    # ARROW space, so the player may replace one of the sides on that die ... with an ARROW side."
    icon_moves = {(a["from"], a["steps"]) for a in GAME.legal_actions(state, 0)}
    assert icon_moves == {(0, 1), (5, 1), (7, 1)}  # the pawn that just moved (now on 5) too
    state = move(state, 1, 7, 1, replace=2, new_side="arrow_to_1")
    assert state.rattlebones == 54
    assert state.dice[1] == ("rattlebones", "2", "arrow_to_1", "4", "5", "6")
    assert sorted(state.pawns[:3]) == [0, 5, 8]
    # "His turn ends."
    assert state.player == 1 and GAME.decision(state).prompt == "roll"
    # Two pip sides left the game; one THIEF and one ARROW side left their supplies.
    assert state.pips_out == 2 and state.sides["thief"] == 14 and state.sides["arrow"] == 14
    assert count_pieces(state) == before


def test_pips_move_exactly_and_clockwise_round_the_board() -> None:
    state = table(2, pawns={0: 18})
    state = roll(state, [0], [5])  # a 6
    assert {(a["from"], a["steps"]) for a in GAME.legal_actions(state, 0)} == {(0, 6), (18, 6)}
    state = move(state, 0, 18, 6)
    assert sorted(state.pawns[:3]) == [0, 0, 4]  # 18 + 6 wraps past STORE/START to space 4


def test_the_icon_side_is_never_offered() -> None:
    state = roll(table(2), [0], [3])  # a 4, onto the STAR space 4
    assert all(a["replace_side"] != 0 for a in GAME.legal_actions(state, 0))


def test_the_side_replaced_is_on_the_die_that_was_rolled() -> None:
    state = table(2, gold=[1, 0])
    state = roll(state, [0, 2], [3, 1])  # die 0 shows a 4 (onto STAR), die 2 a 2
    state = move(state, 0, 0, 4, replace=5, new_side="star")
    assert state.dice[0][5] == "star" and state.dice[2] == STANDARD and state.dice[1] == STANDARD


def test_a_replaced_pip_leaves_the_game_and_a_replaced_action_side_goes_back() -> None:
    state = table(2, dice={0: ("rattlebones", "gold", "3", "4", "5", "6")})
    state = roll(state, [0], [3])  # a 4: onto the STAR space
    replaced_action = move(state, 0, 0, 4, replace=1, new_side="star")
    assert replaced_action.sides["gold"] == 15 and replaced_action.sides["star"] == 14
    assert replaced_action.pips_out == state.pips_out
    replaced_pip = move(state, 0, 0, 4, replace=2, new_side="star")
    assert replaced_pip.pips_out == state.pips_out + 1 and replaced_pip.sides["gold"] == 14


def test_doing_nothing_is_always_a_choice() -> None:
    state = roll(table(2), [0], [3])
    kept = move(state, 0, 0, 4)
    assert kept.dice[0] == STANDARD and kept.sides == state.sides


def test_the_icon_moves_rattlebones_back_then_a_pawn_one_space() -> None:
    state = roll(table(2), [1], [0])
    assert {(a["from"], a["steps"]) for a in GAME.legal_actions(state, 0)} == {(0, 1)}
    state = move(state, 1, 0, 1, replace=4, new_side="gold")  # space 1 is GOLD
    assert state.rattlebones == 54 and sorted(state.pawns[:3]) == [0, 0, 1]
    assert state.dice[1][4] == "gold"


def test_an_empty_supply_offers_nothing() -> None:
    state = table(2, pawns={0: 2})
    state.sides["star"] = 0
    state = roll(state, [0], [3])  # a 4: from 0 onto STAR (4), or from 2 onto ROLL AGAIN (6)
    onto_star = [a for a in GAME.legal_actions(state, 0) if a["from"] == 0]
    assert [(a["replace_side"], a["new_side"]) for a in onto_star] == [(None, None)]


def test_the_same_side_again_is_not_offered() -> None:
    state = table(2, dice={0: ("rattlebones", "star", "3", "4", "5", "6")})
    state = roll(state, [0], [3])
    assert 1 not in {a["replace_side"] for a in GAME.legal_actions(state, 0)}


def test_pawns_on_one_space_are_one_choice() -> None:
    # "moves one of his pawns": the three pawns are alike, so a move names the space it leaves.
    state = roll(table(2), [0], [2])
    assert {a["from"] for a in GAME.legal_actions(state, 0)} == {0}
