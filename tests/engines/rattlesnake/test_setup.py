"""Setup (rulebook "Setup"): the player areas, the saloon and its deck, the pistol."""

from __future__ import annotations

from collections import Counter

import pytest

from engines.errors import IllegalAction
from engines.protocol import Event
from engines.rattlesnake import GAME
from engines.rattlesnake.catalogue import CATALOGUE

from . import after, new, set_up, shuffle


def test_the_box_holds_what_the_rulebook_lists() -> None:
    # "34 Player action cards in 2 decks (4 ones, 4 twos, 3 threes, 3 fours, 3 fives)", "8 Hit cards
    # (4 per player)", "15 Saloon action cards", "6 Saloon event cards".
    assert Counter(CATALOGUE.player_cards()) == {"1": 4, "2": 4, "3": 3, "4": 3, "5": 3}
    assert len(CATALOGUE.player_cards()) * 2 == 34
    assert CATALOGUE.hits == 4
    assert len(CATALOGUE.action_cards) == 15
    assert len(CATALOGUE.events) == 6
    names = {event.name for event in CATALOGUE.events}
    assert {"high-noon", "locked-and-loaded"} <= names
    assert {"switch-up", "distract", "take-cover"} <= set(CATALOGUE.action_cards)
    assert CATALOGUE.hand_size == 5 and CATALOGUE.buy_cost == 2 and CATALOGUE.saloon_slots == 5


def test_the_set_up_is_a_series_of_shuffles_nobody_sees() -> None:
    state = new()
    labels = []
    while GAME.decision(state).kind == "chance" and GAME.chance_request(state).kind == "shuffle":
        request = GAME.chance_request(state)
        labels.append((request.label, request.size))
        outcome = Event.chance_outcome({"permutation": list(range(request.size))})
        assert GAME.event_audience(state, outcome) == frozenset()
        state = after(state, outcome)
    assert labels == [
        ("saloon_actions", 15),
        ("saloon_events", 5),
        ("saloon_pile", 6),
        ("saloon_pile", 6),
        ("player_deck", 17),
        ("player_deck", 17),
    ]
    assert GAME.chance_request(state).kind == "choice"  # the pistol


def test_the_saloon_and_its_deck() -> None:
    state = new()
    state = shuffle(state, list(range(15)))
    actions = CATALOGUE.action_cards
    # "deal 5 face up to the saloon"
    assert state.saloon == actions[:5]
    # "2 face down piles of 4 cards each, returning the 2 leftover action cards to the box unseen"
    assert [list(pile) for pile in state.piles] == [list(actions[5:9]), list(actions[9:13])]
    assert state.out_of_game == actions[13:]
    state = shuffle(state, [4, 3, 2, 1, 0])
    events = CATALOGUE.shuffled_events[::-1]
    # "Shuffle 2 events face down into each pile, returning the 1 leftover event card to the box"
    assert state.piles[0][4:] == events[0:2] and state.piles[1][4:] == events[2:4]
    assert state.out_of_game == (*actions[13:], events[4])
    first, second = state.piles
    state = shuffle(state, [5, 4, 3, 2, 1, 0])
    state = shuffle(state)
    # "Put the 2 piles, one on top of the other, with High Noon at the bottom"
    assert state.saloon_deck[0] == "high-noon"
    assert state.saloon_deck == ("high-noon", *second, *first[::-1])
    assert len(state.saloon_deck) == 13


def test_the_player_areas() -> None:
    state = set_up(pistol=1)
    # "Take 4 Hit cards matching your deck and place them in front of you."
    assert state.hits == (4, 4)
    # The pistol went to seat 1, who is active; both drew 5, the active player first.
    assert state.active == 1 and GAME.decision(state).seats == {1}
    assert [len(hand) for hand in state.hands] == [5, 5]
    assert [len(deck) for deck in state.decks] == [12, 12]
    assert Counter(state.hands[0] + state.decks[0]) == Counter(CATALOGUE.player_cards())


def test_the_pistol_may_go_to_the_first_seat_without_a_draw() -> None:
    state = new(pistol="seat_0")
    for _ in range(6):
        state = shuffle(state)
    assert GAME.decision(state).kind == "turn" and state.active == 0


def test_a_shuffle_must_be_a_permutation_of_the_pile() -> None:
    state = new()
    with pytest.raises(IllegalAction) as raised:
        GAME.apply(state, Event.chance_outcome({"permutation": list(range(14))}))
    assert raised.value.code == "chance/out_of_range"


def test_unknown_options_are_refused() -> None:
    with pytest.raises(Exception) as raised:
        new(pistol="coin")
    assert raised.value.code == "options/not_a_choice"
