"""Buying a card (rulebook "Buying a Card"): discard any 2 cards for any action card in the saloon,
refill the slot; an event that enters the saloon takes effect at once and keeps its slot."""

from __future__ import annotations

import pytest

from engines.errors import IllegalAction
from engines.protocol import Event
from engines.rattlesnake import GAME

from . import act, table


def buy(state, discard, card):
    return act(state, 0, {"type": "buy", "discard": discard, "card": card})


def refused(state, action, code) -> None:
    before = state.clone()
    with pytest.raises(IllegalAction) as raised:
        GAME.apply(state, Event.action(0, action))
    assert raised.value.code == code
    assert state == before


def test_any_two_cards_hits_included_pay_for_any_action_card() -> None:
    state = table(hands=(["hit", "take-cover", "4"], ["1"]), saloon_deck=["dead-eye", "scavenge"])
    state = buy(state, ["hit", "take-cover"], "disarm")
    # "Put the bought card in your hand, then refill the empty saloon slot with the top card".
    assert state.hands[0] == ("4", "disarm")
    assert state.discards[0] == ("hit", "take-cover")
    assert state.saloon == ("switch-up", "distract", "take-cover", "dead-eye", "scavenge")
    assert state.saloon_deck == ("dead-eye",)


def test_the_buy_must_be_paid_exactly_from_the_hand() -> None:
    state = table(hands=(["1", "2", "3"], ["1"]))
    refused(state, {"type": "buy", "discard": ["1"], "card": "disarm"}, "buy/wrong_discard")
    refused(state, {"type": "buy", "discard": ["1", "2", "3"], "card": "disarm"}, "buy/wrong_discard")
    refused(state, {"type": "buy", "discard": ["1", "1"], "card": "disarm"}, "buy/not_in_hand")
    refused(state, {"type": "buy", "discard": ["1", "4"], "card": "disarm"}, "buy/not_in_hand")
    refused(state, {"type": "buy", "discard": ["1", 2], "card": "disarm"}, "buy/bad_cards")
    refused(state, {"type": "buy", "discard": ["1", "2"], "card": "patch-up"}, "buy/not_in_saloon")


def test_an_event_takes_effect_at_once_and_is_never_bought_or_replaced() -> None:
    state = table(hands=(["1", "2", "3", "4"], ["1"]), saloon_deck=["scavenge", "locked-and-loaded"])
    state = buy(state, ["1", "2"], "switch-up")
    assert state.saloon[0] == "locked-and-loaded"
    assert state.rules.hand_size == 6  # "its text immediately comes into effect"
    refused(state, {"type": "buy", "discard": ["3", "4"], "card": "locked-and-loaded"}, "buy/already_bought")
    state.bought = False
    refused(state, {"type": "buy", "discard": ["3", "4"], "card": "locked-and-loaded"}, "buy/not_in_saloon")
    assert all(action.get("card") != "locked-and-loaded" for action in GAME.legal_actions(state, 0))
    # The next buy refills another slot: the event keeps its slot for the rest of the game.
    state = buy(state, ["3", "4"], "distract")
    assert state.saloon[:2] == ("locked-and-loaded", "scavenge")


def test_events_in_the_saloon_change_the_numbers() -> None:
    state = table(hands=(["1"], ["1"]), saloon=["last-orders", "dry-spell", "high-noon", "rattled", "disarm"])
    assert state.rules.buy_cost == 1  # Last Orders
    assert state.rules.hand_size == 4  # Dry Spell
    assert state.rules.hits_per_win == 2  # High Noon
    assert state.rules.defender_min == 1  # Rattled
    assert {"type": "buy", "discard": ["1"], "card": "disarm"} in GAME.legal_actions(state, 0)


def test_an_empty_saloon_deck_leaves_the_slot_empty() -> None:
    state = table(hands=(["1", "2", "3"], ["1"]), saloon_deck=[])
    state = buy(state, ["1", "2"], "switch-up")
    assert state.saloon[0] is None
    assert GAME.view(state, None)["saloon"][0] is None


def test_a_saloon_of_events_sells_nothing() -> None:
    events = ["high-noon", "locked-and-loaded", "last-orders", "dry-spell", "rattled"]
    state = table(hands=(["1", "2", "3"], ["1"]), saloon=events)
    assert all(action["type"] != "buy" for action in GAME.legal_actions(state, 0))
