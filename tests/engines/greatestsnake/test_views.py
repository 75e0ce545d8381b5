"""Hidden information: a hand is in its owner's view only, the Deck's order in nobody's; the Discard
Pile, the Pit, the snakes and the stack are face up."""

from __future__ import annotations

import json
import random

from engines.chance import draw
from engines.protocol import Event

from . import GAME, act, card, table

GLUE, DODGE = card("super-glue"), card("dodge")


def test_each_seat_sees_its_own_hand_and_only_counts_of_the_others() -> None:
    state = table(3, hands={0: [GLUE], 1: [DODGE, card("squeeze")]})
    mine = GAME.view(state, 1)
    assert [c["id"] for c in mine["hand"]] == [DODGE, card("squeeze")]
    assert [snake["hand_count"] for snake in mine["snakes"]] == [1, 2, 0]
    assert GAME.view(state, None)["hand"] is None
    for seat in (0, 2, None):
        text = json.dumps(GAME.view(state, seat))
        assert f'"id": {DODGE}' not in text


def test_no_view_shows_the_deck_order() -> None:
    state = table(3)
    for seat in (None, 0, 1, 2):
        view = GAME.view(state, seat)
        assert view["deck_count"] == len(state.deck)
        assert "deck" not in view


def test_a_hidden_hand_does_not_change_another_seats_view() -> None:
    with_glue = table(3, hands={1: [GLUE]})
    with_dodge = table(3, hands={1: [DODGE]})
    for seat in (0, 2, None):
        assert GAME.view(with_glue, seat) == GAME.view(with_dodge, seat)


def test_only_shuffles_are_hidden_in_the_log() -> None:
    state = GAME.new_state(seats=3)
    assert GAME.event_audience(state, Event.chance_outcome({"index": 1})) is None  # who goes first
    state = GAME.new_state(seats=3, options={"first_player": "0"})
    shuffle = Event.chance_outcome(draw(b"seed", 1, GAME.chance_request(state)))
    assert GAME.event_audience(state, shuffle) == frozenset()
    played = table(3, hands={0: [GLUE]})
    assert GAME.event_audience(played, Event.action(0, {"type": "play", "card": GLUE, "snake": 1})) is None


def test_views_of_a_random_match_are_json_and_never_show_another_hand() -> None:
    rng = random.Random(3)
    state = GAME.new_state(seats=4)
    seq = 0
    while GAME.decision(state).kind != "over" and seq < 400:
        decision = GAME.decision(state)
        if decision.kind == "chance":
            event = Event.chance_outcome(draw(b"views", seq, GAME.chance_request(state)))
        else:
            seat = min(decision.seats)
            event = Event.action(seat, rng.choice(GAME.legal_actions(state, seat)))
        GAME.apply(state, event)
        seq += 1
        for seat in (None, 0, 1, 2, 3):
            view = GAME.view(state, seat)
            assert json.loads(json.dumps(view)) == view
            shown = {c["id"] for c in view["hand"] or []}
            others = {c for other in range(4) if other != seat for c in state.hands[other]}
            assert not shown & others


def test_the_stack_is_public() -> None:
    state = table(3, hands={0: [GLUE], 1: [DODGE]})
    state = act(state, 0, {"type": "play", "card": GLUE, "snake": 1})
    stack = GAME.view(state, 2)["stack"]
    assert stack == [
        {
            "author": 0,
            "what": "play",
            "card": GLUE,
            "effect": "glue",
            "snake": 1,
            "target": None,
            "extra": None,
            "cancelled": False,
        }
    ]
