"""HIDEOUT (rules 0.3): what is left in hand is hidden at the end of the turn, in two slots, in the
player's order; only the top card of a slot is usable and visible to the opponent."""

from __future__ import annotations

import copy

import pytest

from engines.errors import IllegalAction
from engines.protocol import Event
from engines.ragnguns import GAME

from . import act, duel, lay_out, legal


def test_hiding_three_cards_into_two_slots() -> None:
    """ "I must hide Improvise, Doc Ravenstorm and Brass Knuckle. I choose to put Doc in the right slot
    and the other two in the left one. I hide Brass Kuckle above Improvise; if I ever discard the Brass
    Knuckle I can pick it from the discarded zone with the Improvise below." """
    state = lay_out(duel(), 0, hand=["improvise", "doc-ravenstorm", "brass-knuckles"], bullets=0)
    state = act(state, 0, {"type": "end_turn"})
    assert GAME.decision(state).prompt == "hide"
    arrangements = legal(state, 0)
    assert len(arrangements) == 24  # 3! orders x 4 cuts: "you choose the order and the slot"
    action = {"type": "hide", "slots": [["improvise", "brass-knuckles"], ["doc-ravenstorm"]]}
    assert action in arrangements
    assert GAME.event_audience(state, Event.action(0, action)) == {0}
    state = act(state, 0, action)
    assert state.sides[0].hideout == [["improvise", "brass-knuckles"], ["doc-ravenstorm"]]
    assert state.sides[0].hand == [] and state.current == 1
    # the opponent sees the top of each slot and how many cards lie there, never the card below
    seen = GAME.view(state, 1)["seats"][0]["hideout"]
    assert seen == [
        {"count": 2, "top": {"card": "brass-knuckles", "face_down": False}},
        {"count": 1, "top": {"card": "doc-ravenstorm", "face_down": False}},
    ]
    assert "improvise" not in str(GAME.view(state, 1)) and "improvise" not in str(GAME.view(state, None))
    assert GAME.view(state, 0)["seats"][0]["hideout"][0][0] == {"card": "improvise", "face_down": False}


def test_discarding_the_top_card_makes_the_one_below_usable() -> None:
    """ "I actually need Improvise below the Brass Knuckle. I can discard Brass Knuckle to make
    Improvise visible and play its Effect." """
    state = lay_out(
        duel(), 0, hand=[], hideout=[["improvise", "brass-knuckles"], ["doc-ravenstorm"]], bullets=1
    )
    assert not [a for a in legal(state, 0, "play") if a["card"] == "improvise"]
    state = act(state, 0, {"type": "discard", "card": "brass-knuckles"})
    assert {"type": "play", "card": "improvise", "effect": 0, "pick": "brass-knuckles", "slot": 0} in legal(
        state, 0
    )
    state = act(
        state, 0, {"type": "play", "card": "improvise", "effect": 0, "pick": "brass-knuckles", "slot": 0}
    )
    assert state.sides[0].hideout == [["brass-knuckles"], ["doc-ravenstorm"]]
    assert state.sides[0].discard == ["improvise"]


def test_hidden_cards_are_in_play_their_effects_can_be_played() -> None:
    state = lay_out(duel(), 0, hand=[], hideout=[["old-bourbon"], []], wounds=1, bullets=1)
    assert {"type": "play", "card": "old-bourbon", "effect": 0, "target": "gunslinger"} in legal(state, 0)


def test_an_empty_hand_ends_the_turn_without_hiding() -> None:
    state = lay_out(duel(), 0, hand=[], bullets=1)
    state = act(state, 0, {"type": "end_turn"})
    assert state.current == 1 and state.sides[0].belt == 1


def test_a_malformed_arrangement_is_refused_with_a_code() -> None:
    state = act(lay_out(duel(), 0, hand=["machete", "whip"]), 0, {"type": "end_turn"})
    for slots in (
        [[1], ["machete"]],
        [["machete"], []],
        [["machete", "whip"]],
        "both",
        [["whip", "whip"], []],
    ):
        snapshot = copy.deepcopy(state)
        with pytest.raises(IllegalAction) as raised:
            GAME.apply(state, Event.action(0, {"type": "hide", "slots": slots}))
        assert raised.value.code == "hide/bad_arrangement" and state == snapshot
