"""EFFECTS and BACKUPS (rules 0.3): pay, apply, discard -- or keep for ∞, once per turn; ↓ on placing,
◊ while placed; ACTIONS from the hand; the GUNSLINGER's two Effects from the Cartridge Belt. Every
example of those sections, step by step through the engine."""

from __future__ import annotations

import copy

import pytest

from engines.errors import IllegalAction
from engines.protocol import Event
from engines.ragnguns import GAME

from . import act, duel, lay_out, legal


def test_the_whip_shoots_one_of_its_two_bullets_into_the_opponents_alley() -> None:
    """ "the Effect of the Whip card needs two Bullet and allows you to shoot one of these Bullets into
    your opponent's Alley. I therefore place the first Bullet in my stack of chips and the second on
    the card in the opponent's Alley." """
    state = lay_out(duel(), 0, alley="whip", bullets=2)
    state = lay_out(state, 1, alley="sisters")
    action = {"type": "play", "card": "whip", "effect": 0}
    assert action in legal(state, 0)
    played = act(state, 0, action)
    assert played.sides[0].bullets == 0
    assert played.sides[1].alley_wounds == 1
    assert played.bank == state.bank + 1  # one chip back to the stack, one on the Sisters
    assert played.sides[0].alley is None and played.sides[0].discard[-1] == "whip"  # not ∞: discarded
    assert played.chips() == 0


def test_old_bourbon_heals_once_per_turn_and_stays() -> None:
    """ "the ∞ Effect of Old Bourbon allows me to heal one Bullet, but I can't play it more than once per
    turn." """
    state = lay_out(duel(), 0, shelter="old-bourbon", alley="machete", wounds=2, bullets=3)
    heals = [a for a in legal(state, 0, "play") if a["card"] == "old-bourbon" and a["effect"] == 0]
    assert heals == [{"type": "play", "card": "old-bourbon", "effect": 0, "target": "gunslinger"}]
    healed = act(state, 0, heals[0])
    assert (healed.sides[0].wounds, healed.sides[0].shelter, healed.sides[0].bullets) == (1, "old-bourbon", 2)
    assert not [a for a in legal(healed, 0, "play") if a["card"] == "old-bourbon" and a["effect"] == 0]
    # ITEMS: "you can play it then play the second" -- the second is not ∞ and discards the card
    assert any(a["card"] == "old-bourbon" and a["effect"] == 1 for a in legal(healed, 0, "play"))


def test_jenny_heals_the_sisters_with_two_bullets_from_her_cartridge_belt() -> None:
    """ "the Sisters take one Bullet. Thanks to Jenny's Effect I can spend two Bullets from my Cartridge
    Belt to heal one Bullet. I spend the Bullet and return the chip on the Sisters in the chip pile." """
    state = lay_out(duel("saloon-nights", "stampede-at-dawn"), 0, alley="sisters", alley_wounds=1, belt=2)
    action = {"type": "play", "card": "jenny-james", "effect": 0, "target": "alley"}
    assert action in legal(state, 0)
    healed = act(state, 0, action)
    side = healed.sides[0]
    assert (side.alley, side.alley_wounds, side.belt) == ("sisters", 0, 0)
    assert healed.bank == state.bank + 3 and healed.chips() == 0
    poor = lay_out(state, 0, belt=1, bullets=5)  # Bullets in hand do not pay a GUNSLINGER's Effect
    assert not [a for a in legal(poor, 0, "play") if a["card"] == "jenny-james" and a["effect"] == 0]


def test_deputy_nelson_picks_a_sheriff_card_when_placed_in_the_alley() -> None:
    """Deputy Nelson's "↓ Effect is activated in the moment I place it in the Alley" """
    state = lay_out(duel(), 0, hand=["deputy-nelson"], discard=["tin-star", "machete"], bullets=3)
    places = [a for a in legal(state, 0, "place") if a["card"] == "deputy-nelson"]
    assert {
        "type": "place",
        "card": "deputy-nelson",
        "zone": "alley",
        "pick": "tin-star",
        "slot": 1,
    } in places
    assert {"type": "place", "card": "deputy-nelson", "zone": "shelter"} in places
    placed = act(
        state, 0, {"type": "place", "card": "deputy-nelson", "zone": "alley", "pick": "tin-star", "slot": 1}
    )
    assert placed.sides[0].hideout[1][-1] == "tin-star" and placed.sides[0].discard == ["machete"]


def test_deputy_nelson_moved_from_the_shelter_to_the_alley_picks_nothing_but_his_shelter_effect_stops() -> (
    None
):
    """ "If the card goes from the Shelter to the Alley, it doesn't allow me to pick a SHERIFF card from
    my discard zone." A card moved between zones keeps ◊ (in its new zone) and does not trigger ↓."""
    state = lay_out(
        duel(), 0, hand=["turnabout"], shelter="deputy-nelson", alley="machete", discard=["tin-star"]
    )
    state = lay_out(state, 0, bullets=1)
    state = lay_out(state, 1, alley="sisters")
    from engines.ragnguns import effects as fx

    # ◊ in the Shelter: the opponent's Gunfights shoot one Bullet less
    assert fx.firepower(state.sides[1], state.sides[0]) == 2
    swapped = act(state, 0, {"type": "play", "card": "turnabout", "effect": 0})
    side = swapped.sides[0]
    assert (side.alley, side.shelter) == ("deputy-nelson", "machete")
    assert side.discard == ["tin-star", "turnabout"] and side.hideout == [[], []]
    assert fx.firepower(swapped.sides[1], swapped.sides[0]) == 3  # no longer in the Shelter


def test_brass_knuckles_through_improvise() -> None:
    """ "I can discard my Brass Knuckles (it's free) then use Improvise to pick it from the discard zone,
    hide it and play its Effect!" -- with "So I pay nothing" (the default reading)."""
    state = lay_out(
        duel(), 0, hand=["brass-knuckles", "improvise"], alley="machete", shelter="iron-bar", bullets=1
    )
    state = lay_out(state, 1, shelter=None, alley=None)
    # in hand, the Brass Knuckles' Effect cannot be played: the card is not in play
    assert not [a for a in legal(state, 0, "play") if a["card"] == "brass-knuckles"]
    state = act(state, 0, {"type": "discard", "card": "brass-knuckles"})
    assert state.sides[0].bullets == 1  # discarding is free
    state = act(
        state, 0, {"type": "play", "card": "improvise", "effect": 0, "pick": "brass-knuckles", "slot": 0}
    )
    assert state.sides[0].hideout[0] == ["brass-knuckles"] and state.sides[0].bullets == 1
    state = act(state, 0, {"type": "play", "card": "brass-knuckles", "effect": 0})
    assert state.sides[1].wounds == 1 and state.sides[0].bullets == 0
    assert state.sides[0].discard == ["improvise", "brass-knuckles"]


def test_improvise_by_paying_one_is_the_other_reading() -> None:
    state = lay_out(
        duel(improvise_cost="by_paying_one"), 0, hand=["improvise"], discard=["machete"], bullets=0
    )
    assert not legal(state, 0, "play")
    rich = lay_out(state, 0, bullets=1)
    played = act(rich, 0, {"type": "play", "card": "improvise", "effect": 0, "pick": "machete", "slot": 0})
    assert played.sides[0].bullets == 0
    default = lay_out(duel(), 0, hand=["improvise"], discard=["machete"], bullets=0)
    assert legal(default, 0, "play")  # "So I pay nothing"


def test_buffalo_kid_uses_both_effects_with_two_belt_bullets() -> None:
    """ "If I put the Machete there (a MELEE WEAPON) I can use both Effects by spending two Bullets from
    my Cartridge Belt." """
    state = lay_out(duel(), 0, alley="machete", belt=2, bullets=3)
    state = lay_out(state, 1, alley=None, shelter=None)
    from engines.ragnguns import effects as fx

    state = act(state, 0, {"type": "play", "card": "buffalo-kid", "effect": 0})
    assert fx.firepower(state.sides[0], state.sides[1]) == 3
    state = act(state, 0, {"type": "play", "card": "buffalo-kid", "effect": 1})
    assert state.sides[1].wounds == 1 and state.sides[0].belt == 0 and state.sides[0].bullets == 3
    assert not [a for a in legal(state, 0, "play") if a["card"] == "buffalo-kid"]  # once each per turn
    assert [a["bullets"] for a in legal(state, 0, "gunfight")] == [1, 2, 3]


def test_buffalo_kids_second_effect_needs_a_melee_card_in_the_alley() -> None:
    state = lay_out(duel(), 0, alley="sisters", belt=2)
    assert [a["effect"] for a in legal(state, 0, "play") if a["card"] == "buffalo-kid"] == [0]


def test_a_refused_effect_changes_nothing() -> None:
    state = lay_out(duel(), 0, alley="whip", bullets=1)
    snapshot = copy.deepcopy(state)
    with pytest.raises(IllegalAction) as raised:
        GAME.apply(state, Event.action(0, {"type": "play", "card": "whip", "effect": 0}))
    assert raised.value.code == "effect/not_playable" and state == snapshot
