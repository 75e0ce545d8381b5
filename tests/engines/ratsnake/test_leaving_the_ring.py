"""Leaving the ring (Step Three): after rat's eyes, "The former thrower can either leave the ring or
remain, making side bets and awaiting the dice to come his way again"; after a check that gained,
"He can either take his winnings and leave the ring or throw again"."""

from __future__ import annotations

import pytest

from engines.errors import IllegalAction

from . import GAME, act, bow_out, bust, check, new, remain, roll


def leave(state):
    return act(state, state.thrower, {"type": "leave_ring"})


def test_after_rats_eyes_the_former_thrower_leaves_the_ring_or_remains() -> None:
    # "The former thrower can either leave the ring or remain, making side bets and awaiting the dice
    # to come his way again."
    state = roll(new(3), 1, 1)
    decision = GAME.decision(state)
    assert (decision.kind, sorted(decision.seats), decision.prompt) == ("turn", [0], "leave_or_remain")
    assert GAME.legal_actions(state, 0) == [{"type": "leave_ring"}, {"type": "remain"}]
    assert GAME.legal_actions(state, 1) == []

    stayed = remain(state)
    assert stayed.left_ring == frozenset() and stayed.thrower == 1
    assert 0 in GAME.decision(stayed).seats  # he makes side bets on the next throw

    gone = leave(state)
    assert gone.left_ring == {0} and gone.thrower == 1 and gone.purses[0] == 54  # he keeps his coins
    assert GAME.decision(gone).seats == {2}  # and makes no more side bets
    assert GAME.view(gone, None)["left_ring"] == [0]


def test_a_seat_that_left_never_throws_again_and_is_ranked_by_its_coins() -> None:
    state = leave(roll(new(3, passes=2, side_bets=False), 1, 1))  # seat 0 leaves with 54
    throwers = []
    while GAME.decision(state).kind != "over":
        throwers.append(state.thrower)
        state = bow_out(roll(state, 6, 6))  # every later thrower wins 6 and passes
    assert throwers == [1, 2, 1, 2]
    outcome = GAME.outcome(state)
    assert outcome.scores == (54, 72, 72) and outcome.ranks == (3, 1, 1)


def test_with_the_winnings_of_a_check_the_thrower_may_leave_the_ring() -> None:
    # "He can either take his winnings and leave the ring or throw again."
    state = check(roll(new(3, side_bets=False), 3, 5), 4, 5)  # the Gray Mouser's 8 won
    assert {"type": "leave_ring"} in GAME.legal_actions(state, 0)
    gone = leave(state)
    assert gone.purses[0] == 54 + 6 + 8  # the silo, winnings and all, goes home with him
    assert gone.left_ring == {0} and gone.thrower == 1 and gone.silo == 6


@pytest.mark.parametrize("dice", [(6, 6), (6, 3), (6, 1)])
def test_leaving_is_no_choice_after_other_throws(dice) -> None:
    state = roll(new(3, side_bets=False), *dice)
    assert {"type": "leave_ring"} not in GAME.legal_actions(state, 0)
    with pytest.raises(IllegalAction) as raised:
        leave(state)
    assert raised.value.code == "thrower/cannot_leave_now"


def test_a_lost_or_matched_check_gives_no_leave() -> None:
    for first, second in (((3, 5), (2, 3)), ((3, 4), (2, 5))):  # lose, match
        state = check(roll(new(3, side_bets=False), *first), *second)
        assert {"type": "leave_ring"} not in GAME.legal_actions(state, 0)


def test_without_a_house_a_seat_that_left_neither_pays_nor_collects() -> None:
    state = leave(roll(new(3, house=False, side_bets=False), 1, 1))  # seats 1 and 2 shared the 6
    assert state.purses == (54, 57, 63) and state.thrower == 1  # seat 1 antes 6 of its 63
    state = roll(state, 6, 4)  # seat 1 gains 4: only seat 2 is left to pay
    assert state.purses == (54, 57, 59) and state.silo == 10
    state = bust(bow_out(state))  # seat 2 throws rat's eyes: its 6 go to seat 1 alone
    # Seat 0 is passed over: seat 1 antes again.
    assert state.purses == (54, 57 + 10 + 6 - 6, 59 - 6) and state.thrower == 1 and state.skipped == (0,)


def test_the_session_ends_when_fewer_than_two_remain_in_the_ring() -> None:
    # "Rat-Snake is played with two or more players, called a ring."
    state = leave(roll(new(2, passes=5, side_bets=False), 1, 1))
    assert GAME.decision(state).kind == "over"
    assert GAME.outcome(state).scores == (54, 60)


def test_a_former_thrower_with_no_coins_left_is_not_asked() -> None:
    state = roll(new(3, starting_purse=6, side_bets=False), 1, 1)  # his six were his all
    assert state.thrower == 1 and GAME.decision(state).kind == "chance"
