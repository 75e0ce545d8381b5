"""The Discard Pile, the Pit and the Deck (shuffled back when the Deck runs out), and who wins: the
first snake of length 7, a tie when several reach it at once."""

from __future__ import annotations

from engines.greatestsnake.state import OVER, REFILL
from engines.protocol import Event

from . import GAME, act, after, card, chance, pass_all, table


def test_an_empty_deck_is_refilled_from_the_discard_pile_and_the_pit() -> None:
    glue, dodge, rat = card("super-glue"), card("dodge"), card("rat")
    state = table(3, active=2, pit=[rat])
    state.deck = []
    state.discard = [glue, dodge]
    state = pass_all(act(state, 2, {"type": "digest"}))
    assert state.phase == REFILL and state.active == 0
    request = GAME.chance_request(state)
    assert (request.kind, request.size) == ("shuffle", 3)
    # the permutation orders the Discard Pile then the Pit; its payload is the Deck's order: nobody's
    assert GAME.event_audience(state, Event.chance_outcome({"permutation": [2, 0, 1]})) == frozenset()
    state = chance(state, {"permutation": [2, 0, 1]})  # deck bottom..top = rat, glue, dodge
    assert state.discard == [] and state.pit == []
    assert state.hands[0] == [dodge] and state.deck == [rat, glue]


def test_with_every_card_in_hands_and_snakes_there_is_nothing_to_draw() -> None:
    state = table(3, active=2)
    state.deck = []
    state = pass_all(act(state, 2, {"type": "digest"}))
    assert state.phase == "main" and state.active == 0 and state.hands[0] == []


def six_long(seat_rats):
    return {seat: [card("rat", 10 + 4 * seat + i) for i in range(3)] for seat in seat_rats}


def test_the_first_snake_of_seven_wins() -> None:
    rats = {1: {5: card("rat", 0)}}
    state = table(3, bodies=six_long([1, 2]), rats=rats)
    state = pass_all(act(state, 0, {"type": "digest"}))
    assert state.phase == OVER and state.length(1) == 7
    outcome = GAME.outcome(state)
    assert outcome.ranks == (3, 1, 2) and outcome.reason == "length_7"


def test_two_snakes_reaching_seven_at_once_tie() -> None:
    rats = {1: {5: card("rat", 0)}, 2: {4: card("lab-rat", 0), 5: card("rat", 1)}}
    state = table(3, bodies=six_long([1, 2]), rats=rats)
    state = pass_all(act(state, 0, {"type": "digest"}))
    assert state.length(1) == 7 and state.length(2) == 8
    assert GAME.outcome(state).ranks == (3, 1, 1)


def test_the_round_limit_ends_a_match_with_the_longest_first() -> None:
    state = table(3, active=2, bodies={0: [card("rat", 1)]}, round_limit=10)
    state.turn_number = 30
    state = pass_all(act(state, 2, {"type": "digest"}))
    outcome = GAME.outcome(state)
    assert outcome.reason == "round_limit" and outcome.ranks == (1, 2, 2)


def test_a_forfeit_ends_the_match_with_that_seat_last() -> None:
    state = table(3, bodies={1: [card("rat", 1)]})
    state = after(state, Event.forfeit(1, "left"))
    assert GAME.outcome(state).ranks[1] == 3 and GAME.outcome(state).reason == "forfeit"
