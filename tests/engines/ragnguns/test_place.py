"""PLACE, ALLEY, SHELTER (rules 0.3): paying the cost, one card per zone, replacing discards."""

from __future__ import annotations

import copy

import pytest

from engines.errors import IllegalAction
from engines.protocol import Event
from engines.ragnguns import GAME

from . import act, duel, lay_out, legal


def test_the_machete_costs_two_bullets_to_place() -> None:
    """ "the Machete costs 2. I must therefore discard two Bullets to place it." """
    state = lay_out(duel(), 0, hand=["machete"], bullets=2)
    placed = act(state, 0, {"type": "place", "card": "machete", "zone": "alley"})
    side = placed.sides[0]
    assert (side.alley, side.bullets, side.hand) == ("machete", 0, [])
    assert placed.bank == state.bank + 2  # the two Bullets went back to the chip stack
    poor = lay_out(state, 0, bullets=1)
    assert not any(a["card"] == "machete" for a in legal(poor, 0, "place"))
    snapshot = copy.deepcopy(poor)
    with pytest.raises(IllegalAction) as raised:
        GAME.apply(poor, Event.action(0, {"type": "place", "card": "machete", "zone": "alley"}))
    assert raised.value.code == "place/not_enough_bullets" and poor == snapshot


def test_replacing_the_brass_knuckles_with_the_machete_discards_them() -> None:
    """ "the Brass Knuckles is in my Alley and I want to put the Machete there. So I have to discard the
    Brass Knuckles, pay two Bullets for the Machete, and place it face-up" """
    state = lay_out(duel(), 0, hand=["machete"], alley="brass-knuckles", alley_wounds=0, bullets=3)
    placed = act(state, 0, {"type": "place", "card": "machete", "zone": "alley"})
    side = placed.sides[0]
    assert (side.alley, side.bullets, side.discard) == ("machete", 1, ["brass-knuckles"])


def test_a_replaced_card_takes_its_wounds_back_to_the_chip_stack() -> None:
    state = lay_out(duel(), 0, hand=["machete"], shelter="sisters", shelter_wounds=1, bullets=2)
    placed = act(state, 0, {"type": "place", "card": "machete", "zone": "shelter"})
    assert (placed.sides[0].shelter, placed.sides[0].shelter_wounds) == ("machete", 0)
    assert placed.chips() == 0


def test_only_cards_with_statistics_are_placed() -> None:
    state = lay_out(duel(), 0, hand=["improvise", "fall", "machete"], bullets=6)
    assert {a["card"] for a in legal(state, 0, "place")} == {"machete"}
    with pytest.raises(IllegalAction) as raised:
        GAME.apply(state, Event.action(0, {"type": "place", "card": "improvise", "zone": "alley"}))
    assert raised.value.code == "place/no_statistics"


def test_a_card_on_top_of_a_hideout_slot_can_be_placed_but_not_one_below() -> None:
    state = lay_out(duel(), 0, hand=[], hideout=[["iron-bar", "machete"], []], bullets=3)
    assert {a["card"] for a in legal(state, 0, "place")} == {"machete"}
    placed = act(state, 0, {"type": "place", "card": "machete", "zone": "alley"})
    assert placed.sides[0].hideout == [["iron-bar"], []]
    assert {a["card"] for a in legal(placed, 0, "place")} == {"iron-bar"}
