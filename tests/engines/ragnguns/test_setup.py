"""SETUP and the matches-with-decks contract: both decks brought face down and checked, who starts,
the shuffles, the CYLINDER at 1 (rules 0.3, SETUP; issue 15, "How decks enter a match")."""

from __future__ import annotations

import pytest

from engines.errors import IllegalAction
from engines.protocol import Event
from engines.ragnguns import GAME

from . import act, after, bring, duel, legal


def test_both_seats_bring_a_deck_at_once_and_bots_get_the_legal_prebuilt_decks() -> None:
    state = GAME.new_state(seats=2)
    decision = GAME.decision(state)
    assert (decision.kind, decision.prompt, decision.seats) == (
        "simultaneous",
        "bring_deck",
        frozenset({0, 1}),
    )
    offered = legal(state, 0)
    assert [a["gunslinger"] for a in offered] == ["buffalo-kid", "buffalo-kid", "jenny-james", "jenny-james"]
    assert all(len(a["cards"]) == 15 and a["cards"] == sorted(a["cards"]) for a in offered)
    # the frontier format bans the Gatling Gun: the deck holding it is not offered
    frontier = GAME.new_state(seats=2, options={"format": "frontier"})
    assert all("gatling-gun" not in a["cards"] for a in legal(frontier, 1))
    assert len(legal(frontier, 1)) == 3


def test_an_illegal_deck_is_refused_with_deck_illegal_and_changes_nothing() -> None:
    state = GAME.new_state(seats=2)
    deck = bring("stampede-at-dawn")
    too_short = {**deck, "cards": deck["cards"][:14]}
    with pytest.raises(IllegalAction) as raised:
        GAME.apply(state, Event.action(0, too_short))
    assert raised.value.code == "deck/illegal"
    assert "deck/" in raised.value.detail
    assert state.decks == [None, None]
    foreign = {**deck, "gunslinger": "jenny-james"}  # stampede is Buffalo Kid's SIGNATURE card
    with pytest.raises(IllegalAction) as raised:
        GAME.apply(state, Event.action(0, foreign))
    assert raised.value.code == "deck/illegal" and "deck/foreign_signature" in raised.value.detail
    banned = GAME.new_state(seats=2, options={"format": "frontier"})
    with pytest.raises(IllegalAction) as raised:
        GAME.apply(banned, Event.action(0, bring("smoking-barrels")))
    assert "deck/banned" in raised.value.detail


def test_the_deck_list_is_private_and_its_order_irrelevant() -> None:
    state = GAME.new_state(seats=2)
    deck = bring("saloon-nights")
    shuffled = {**deck, "cards": list(reversed(deck["cards"]))}
    event = Event.action(0, shuffled)
    assert GAME.event_audience(state, event) == frozenset({0})
    brought = after(state, event)
    assert brought.decks[0] == tuple(deck["cards"])  # canonical
    # while decks are brought nobody else learns anything of it
    assert GAME.view(brought, 1) == GAME.view(GAME.new_state(seats=2), 1) | {"decks_brought": [True, False]}
    assert GAME.view(brought, 0)["your_deck"]["gunslinger"] == "jenny-james"


def test_who_starts_is_a_chance_choice_by_default_then_both_decks_are_shuffled() -> None:
    state = GAME.new_state(seats=2)
    state = act(state, 1, bring("saloon-nights"))
    state = act(state, 0, bring("stampede-at-dawn"))
    assert GAME.decision(state).kind == "chance"
    assert GAME.chance_request(state).kind == "choice" and GAME.chance_request(state).size == 2
    state = after(state, Event.chance_outcome({"index": 1}))
    assert state.first == 1
    shuffle = GAME.chance_request(state)
    assert (shuffle.kind, shuffle.size) == ("shuffle", 15)
    assert GAME.event_audience(state, Event.chance_outcome({"permutation": list(range(15))})) == frozenset()
    state = after(state, Event.chance_outcome({"permutation": list(range(15))}))
    state = after(state, Event.chance_outcome({"permutation": list(reversed(range(15)))}))
    assert state.current == 1 and GAME.decision(state).prompt == "main"
    # seat 0's deck is shuffled first (kept in order), seat 1's second (reversed); seat 1 starts and
    # drew the top three of its deck
    assert state.sides[1].hand == ["turnabout", "sisters", "senorita-rosa"]
    assert state.sides[0].deck[0] == "bear-trap" and len(state.sides[0].deck) == 15


@pytest.mark.parametrize("first, seat", [("seat_0", 0), ("seat_1", 1)])
def test_first_player_option_names_the_seat(first: str, seat: int) -> None:
    state = duel(first=first)
    assert state.first == seat == state.current


def test_the_first_player_does_not_raise_the_cylinder_on_the_first_reload() -> None:
    state = duel()
    first = state.sides[0]
    assert (first.cylinder, first.bullets, len(first.hand), len(first.deck)) == (1, 1, 3, 12)
    assert state.chips() == 0


def test_the_second_player_sets_the_cylinder_to_2_and_takes_two_bullets() -> None:
    """BULLETS example: "I'm the second player and my opponent has just finished his turn. I set the
    Cylinder to 2 and take two Bullets in my token reserve." """
    state = duel()
    state = act(state, 0, {"type": "end_turn"})
    state = act(state, 0, legal(state, 0, "hide")[0])
    second = state.sides[1]
    assert (state.current, second.cylinder, second.bullets) == (1, 2, 2)
    # the first player's unspent Bullet went to the Cartridge Belt
    assert (state.sides[0].belt, state.sides[0].bullets) == (1, 0)
    assert state.chips() == 0
