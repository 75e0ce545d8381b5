"""The turn (rulebook "How to Play"): draw up to the hand size, buy and/or attack or neither, pass the
pistol; an empty deck is refilled by shuffling the discard."""

from __future__ import annotations

import pytest

from engines.errors import IllegalAction
from engines.protocol import Event
from engines.rattlesnake import GAME

from . import act, shuffle, table


def test_passing_the_pistol_starts_a_new_turn_with_both_drawing_up() -> None:
    state = table(hands=(["1", "2"], ["3"]), decks=(["4", "4", "4", "4"], ["5", "5", "5", "5", "5"]))
    state = act(state, 0, {"type": "end_turn"})  # "either, both, or neither"
    assert state.active == 1 and state.turn == 1
    assert state.hands == (("1", "2", "4", "4", "4"), ("3", "5", "5", "5", "5"))
    assert state.decks == (("4",), ("5",))


def test_an_empty_deck_is_refilled_from_the_shuffled_discard() -> None:
    state = table(hands=(["1"], ["1", "1", "1", "1", "1"]), decks=(["2"], []), discards=(["3", "4", "5"], []))
    state = act(state, 0, {"type": "end_turn"})
    # Seat 1 (now active) draws first: its hand is full. Seat 0 takes its one card, then must shuffle.
    assert GAME.decision(state).kind == "chance"
    request = GAME.chance_request(state)
    assert (request.kind, request.size) == ("shuffle", 3)
    shuffled = Event.chance_outcome({"permutation": [2, 0, 1]})
    assert GAME.event_audience(state, shuffled) == frozenset()
    state = shuffle(state, [2, 0, 1])  # the new deck is 5, 3, 4 from the bottom: 4 is on top
    assert state.discards[0] == ()
    assert state.hands[0] == ("1", "2", "3", "4", "5")
    assert state.decks[0] == ()


def test_with_deck_and_discard_empty_the_hand_stays_short() -> None:
    state = table(hands=(["1"], ["1", "1", "1", "1", "1"]), decks=(["2"], []))
    state = act(state, 0, {"type": "end_turn"})
    assert state.hands[0] == ("1", "2") and GAME.decision(state).kind == "turn"


def test_only_the_active_player_buys_attacks_or_passes_the_pistol() -> None:
    state = table(hands=(["1", "2"], ["3", "4"]))
    with pytest.raises(IllegalAction) as raised:
        GAME.apply(state, Event.action(1, {"type": "end_turn"}))
    assert raised.value.code == "turn/not_your_turn"
    assert GAME.legal_actions(state, 1) == []


def test_one_buy_and_one_attack_a_turn_then_the_pistol_passes_by_itself() -> None:
    state = table(hands=(["1", "1", "2", "3"], ["5"]), decks=(["4"] * 5, ["4"] * 5))
    state = act(state, 0, {"type": "attack", "cards": ["3"]})
    state = act(state, 1, {"type": "defend", "cards": []})
    assert state.hits == (4, 3) and state.active == 0  # the attack is over; the buy is still open
    types = {action["type"] for action in GAME.legal_actions(state, 0)}
    assert types == {"buy", "end_turn"}
    state = act(state, 0, {"type": "buy", "discard": ["1", "1"], "card": "distract"})
    # Bought and attacked: nothing is left to choose, so the pistol passes.
    assert state.active == 1 and state.turn == 1


def test_the_attack_may_come_before_or_after_the_buy_but_not_twice() -> None:
    state = table(hands=(["1", "1", "2", "3"], ["5"]))
    state = act(state, 0, {"type": "buy", "discard": ["1", "1"], "card": "distract"})
    with pytest.raises(IllegalAction) as raised:
        GAME.apply(state, Event.action(0, {"type": "buy", "discard": ["2", "3"], "card": "take-cover"}))
    assert raised.value.code == "buy/already_bought"
    state = act(state, 0, {"type": "attack", "cards": ["2"]})
    state = act(state, 1, {"type": "defend", "cards": ["5"]})
    # Seat 0 holds Distract, so it is asked after the reveal; a 5 lowered to 4 still beats its 2.
    assert GAME.decision(state).prompt == "reveal" and GAME.decision(state).seats == {0}
    state = act(state, 0, {"type": "pass"})
    assert state.hits == (4, 4)
    # Only Distract is left in hand and it changes revealed cards only: the pistol passed.
    assert state.active == 1
