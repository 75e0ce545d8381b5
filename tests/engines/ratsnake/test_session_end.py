"""When a session ends (option `passes`: the rulebook never says), skipped seats, and forfeits."""

from __future__ import annotations

import pytest

from engines.errors import IllegalAction
from engines.protocol import Event, Outcome

from . import GAME, act, after, bet, bow_out, bust, new, remain, roll, wealth


def test_the_session_ends_after_the_dice_go_round_the_ring_passes_times() -> None:
    state = new(2, passes=1, side_bets=False)
    state = bust(state)
    assert GAME.decision(state).kind == "chance" and state.thrower == 1
    state = bow_out(roll(state, 6, 6))
    assert GAME.decision(state).kind == "over" and state.turns_taken == 2
    assert GAME.outcome(state) == Outcome(ranks=(2, 1), scores=(54, 66), reason="session_over")


@pytest.mark.parametrize("passes", [1, 2, 3])
def test_each_seat_throws_once_per_pass(passes: int) -> None:
    state = new(3, passes=passes)
    throwers = []
    while GAME.decision(state).kind != "over":
        throwers.append(state.thrower)
        state = bust(state)
    assert throwers == [0, 1, 2] * passes
    assert state.turns_taken == 3 * passes


def test_a_seat_that_cannot_ante_is_skipped_and_its_turn_still_counts() -> None:
    # "Play continues with the current thrower until he is unable to meet the ante of six coins."
    state = new(3, passes=2, starting_purse=8, side_bets=False)
    state = bust(state)  # seat 0 keeps 2
    state = bow_out(roll(state, 6, 6))  # seat 1 has 14
    state = bow_out(roll(state, 6, 1))  # seat 2 has 8
    assert state.thrower == 1 and state.skipped == (0,) and state.turns_taken == 4
    assert GAME.view(state, None)["skipped"] == [0]
    state = bust(state)  # seat 1 keeps 8
    assert state.thrower == 2 and state.skipped == ()
    state = bust(state)
    assert GAME.decision(state).kind == "over" and state.turns_taken == 6
    assert state.purses == (2, 8, 2)


def test_the_session_ends_when_no_seat_can_ante() -> None:
    state = new(2, passes=5, starting_purse=6, side_bets=False)
    state = roll(roll(state, 1, 1), 1, 1)
    assert GAME.decision(state).kind == "over"
    assert state.turns_taken == 2 and state.purses == (0, 0)
    assert GAME.outcome(state) == Outcome(ranks=(1, 1), scores=(0, 0), reason="session_over")


def test_at_the_end_every_silo_is_home_and_no_wager_rides() -> None:
    state = new(3, passes=1)
    for dice in [(6, 6), (1, 1), (1, 1)]:
        state = roll(state, *dice)
        if state.phase == "continue_or_bow_out":
            state = bow_out(state)
        if state.phase == "leave_or_remain":
            state = remain(state)
    assert state.phase == "over" and state.silo == 0 and state.bets == ()
    assert wealth(state) == 180


def test_outcome_ranks_by_final_purse() -> None:
    state = new(3, passes=1, side_bets=False)
    state = bow_out(roll(state, 6, 6))  # 66
    state = bust(state)  # 54
    state = bow_out(roll(state, 6, 2))  # 62
    outcome = GAME.outcome(state)
    assert outcome.ranks == (1, 3, 2) and outcome.scores == (66, 54, 62)


def test_no_outcome_while_the_session_runs() -> None:
    assert GAME.outcome(new(2)) is None


# --- forfeits ------------------------------------------------------------------------------------------


def test_a_forfeit_ends_the_session_with_that_seat_last() -> None:
    state = bow_out(roll(new(3, side_bets=False), 6, 6))  # seat 0 has 66
    state = after(state, Event.forfeit(0, "left the ring"))
    outcome = GAME.outcome(state)
    assert outcome.reason == "forfeit" and outcome.ranks[0] == 3
    assert outcome.scores == (66, 60, 60) and outcome.ranks[1:] == (1, 1)  # seat 1's silo counts


def test_a_forfeit_counts_the_throwers_silo_with_his_purse() -> None:
    state = roll(new(3, side_bets=False), 6, 5)  # seat 0: purse 54, silo 11
    state = after(state, Event.forfeit(2, "timeout"))
    assert GAME.outcome(state).scores == (65, 60, 60)
    assert GAME.outcome(state).ranks == (1, 2, 3)


def test_a_forfeit_during_the_window_returns_the_stakes_first() -> None:
    state = bet(new(3), 1, "rats_out", 5)
    state = after(state, Event.forfeit(2, "left"))
    assert state.purses == (60, 60, 60) and state.bets == ()
    assert GAME.outcome(state).ranks == (1, 1, 3)


def test_a_forfeit_during_the_double_down_returns_both_stakes() -> None:
    state = bet(new(3), 1, "check_the_silo", 3)
    state = act(roll(state, 2, 2), 1, {"type": "double_down", "call": "gain"})
    assert state.purses[1] == 54
    state = after(state, Event.forfeit(0, "left"))
    assert state.purses == (60, 60, 60)
    assert GAME.outcome(state).ranks == (3, 1, 1)


def test_nothing_is_accepted_after_the_end() -> None:
    state = after(new(2), Event.forfeit(1, "left"))
    with pytest.raises(IllegalAction) as raised:
        after(state, Event.forfeit(0, "left too"))
    assert raised.value.code == "match/over"
    with pytest.raises(IllegalAction) as raised:
        after(state, Event.chance_outcome({"dice": [1, 1]}))
    assert raised.value.code == "match/over"


def test_a_forfeit_names_a_seat_at_the_table() -> None:
    with pytest.raises(IllegalAction) as raised:
        after(new(2), Event.forfeit(5, "?"))
    assert raised.value.code == "forfeit/unknown_seat"


@pytest.mark.parametrize("seats", [1, 9])
def test_two_to_eight_players(seats: int) -> None:
    from engines.errors import InvalidSeats

    with pytest.raises(InvalidSeats):
        new(seats)
