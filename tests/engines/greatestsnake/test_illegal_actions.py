"""Illegal actions: refused with a namespaced code, and the state left exactly as it was."""

from __future__ import annotations

import copy

import pytest

from engines.errors import IllegalAction
from engines.protocol import Event

from . import GAME, act, card, table

GLUE, COILS = card("super-glue"), card("coils")


def refused(state, seat, action) -> str:
    before = copy.deepcopy(state)
    with pytest.raises(IllegalAction) as raised:
        GAME.apply(state, Event.action(seat, action))
    assert state == before
    return raised.value.code


def test_an_unknown_action_type() -> None:
    assert refused(table(3), 0, {"type": "shed_skin"}) == "action/unknown"


def test_fields_are_whole_numbers_never_booleans_or_text() -> None:
    state = table(3, hands={0: [GLUE]})
    assert refused(state, 0, {"type": "play", "card": GLUE, "snake": True}) == "action/malformed"
    assert refused(state, 0, {"type": "play", "card": str(GLUE), "snake": 1}) == "action/malformed"


def test_a_card_not_in_hand_cannot_be_played() -> None:
    state = table(3, hands={0: [GLUE], 1: [card("super-glue", 1)]})
    assert (
        refused(state, 0, {"type": "play", "card": card("super-glue", 1), "snake": 1}) == "play/not_allowed"
    )


def test_no_eating_outside_the_draw() -> None:
    assert refused(table(3), 0, {"type": "eat"}) == "action/not_now"


def test_no_equipping_onto_the_head_or_tail_or_a_taken_body_card() -> None:
    # Body Cards 0 (taken by Iron Belly) and 1 (free); -1 would be the Head, 2 the Tail
    state = table(3, hands={0: [COILS]}, bodies={0: [card("rat", 5)]}, gear={0: {0: card("iron-belly")}})
    assert {"type": "equip", "card": COILS, "body": 1} in GAME.legal_actions(state, 0)
    for body in (-1, 2, 0):
        assert refused(state, 0, {"type": "equip", "card": COILS, "body": body}) == "equip/not_allowed"


def test_no_digest_over_the_hand_limit_and_no_discard_under_it() -> None:
    hand = [card("squeeze", i) for i in range(3)] + [card("dodge", i) for i in range(3)]
    state = table(3, hands={0: hand})
    assert refused(state, 0, {"type": "discard", "card": hand[0]}) == "action/not_now"
    state = table(3, hands={0: [*hand, card("steal"), card("swap")]})
    assert refused(state, 0, {"type": "digest"}) == "action/not_now"


def test_no_sleep_paid_ability_while_asleep() -> None:
    rat = card("rat")
    state = table(3, gear={0: {0: COILS}}, rats={1: {1: rat}})
    state.awake[0] = False
    assert refused(state, 0, {"type": "use", "equipment": COILS, "rat": rat}) == "action/not_now"


def test_a_refused_action_leaves_a_usable_state() -> None:
    state = table(3, hands={0: [GLUE]})
    refused(state, 0, {"type": "play", "card": GLUE, "snake": 7})
    state = act(state, 0, {"type": "play", "card": GLUE, "snake": 1})
    assert state.glue[1] == GLUE
