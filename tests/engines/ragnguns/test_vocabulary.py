"""The effect vocabulary (rules 0.3, EFFECTS and BACKUPS; docs/games/ragnguns.md "The effect
vocabulary"): the loader's refusals, and each verb at work through the engine, on catalogue cards."""

from __future__ import annotations

import pytest

from engines.ragnguns import GAME
from engines.ragnguns import effects as fx
from engines.ragnguns.catalogue import CatalogueError, catalogue_from_data

from . import act, duel, lay_out, legal, raw_catalogue


def _edit(card_id: str, index: int, do) -> dict:
    data = raw_catalogue()
    card = next(c for c in data["cards"] if c["id"] == card_id)
    card["effects"][index]["do"] = do
    return data


@pytest.mark.parametrize(
    "card_id, index, do, field",
    [
        ("whip", 0, [{"op": "explode"}], "effects[0].do[0]"),
        ("whip", 0, [{"op": "shoot", "n": 1}], "effects[0].do[0]"),
        ("whip", 0, [{"op": "shoot", "n": 1, "at": "moon"}], "effects[0].do[0].at"),
        ("whip", 0, [{"op": "shoot", "n": -1, "at": "volley"}], "effects[0].do[0].n"),
        ("whip", 0, [{"op": "heal", "n": 1, "on": "any", "colour": "red"}], "effects[0].do[0]"),
        ("whip", 0, [{"op": "shield", "n": 1}], "effects[0].do[0]"),  # ◊ verb on a played Effect
        ("deputy-nelson", 0, [{"op": "draw", "n": 1}], "effects[0].do[0]"),  # played verb on a ◊ Effect
        ("whip", 0, [{"op": "discard_from_hand"}], "effects[0].do[0]"),  # only TRAPS
        ("whip", 0, [{"op": "shoot", "n": 1, "at": "volley"}, {"op": "draw", "n": 1}], "effects[0].do[0]"),
        ("whip", 0, [{"op": "pick", "keywords": ["GUNS"]}], "effects[0].do[0].keywords"),
        ("whip", 0, "shoot", "effects[0].do"),
    ],
)
def test_the_loader_refuses_what_the_vocabulary_does_not_say(card_id, index, do, field) -> None:
    with pytest.raises(CatalogueError) as raised:
        catalogue_from_data(_edit(card_id, index, do))
    assert (raised.value.card_id, raised.value.field) == (card_id, field)


def test_a_shot_at_the_card_in_the_alley_stops_at_that_card() -> None:
    state = lay_out(duel(), 0, hideout=[["bowie-knife"], []], bullets=1)
    state = lay_out(state, 1, alley="machete", wounds=0)
    state = act(state, 0, {"type": "play", "card": "bowie-knife", "effect": 0})
    assert (
        state.sides[1].alley is None and state.sides[1].discard == ["machete"] and state.sides[1].wounds == 0
    )


def test_a_shot_at_the_gunslinger_skips_the_shelter() -> None:
    state = lay_out(duel(), 0, alley="tomahawk", bullets=1)
    state = lay_out(state, 1, shelter="sisters")
    state = act(state, 0, {"type": "play", "card": "tomahawk", "effect": 0})
    assert (state.sides[1].wounds, state.sides[1].shelter_wounds) == (1, 0)


def test_a_shot_per_keyword_counts_cards_in_play() -> None:
    state = lay_out(
        duel(), 0, hand=["stampede"], alley="machete", hideout=[["iron-bar", "whip"], []], bullets=2
    )
    state = lay_out(state, 1, shelter=None, alley=None)
    state = act(state, 0, {"type": "play", "card": "stampede", "effect": 0})
    assert state.sides[1].wounds == 3  # Machete, Iron bar (below) and Whip


def test_discount_while_placed_and_not_for_the_card_itself() -> None:
    base = duel("saloon-nights", "stampede-at-dawn")
    state = lay_out(base, 0, alley="banjo-winter", hand=["campfire-song"], wounds=1, bullets=0)
    assert {"type": "play", "card": "campfire-song", "effect": 0} in legal(state, 0)  # ① - 1 = ⓪
    elsewhere = lay_out(base, 0, shelter="banjo-winter", hand=["campfire-song"], wounds=1, bullets=0)
    assert all(a["card"] != "campfire-song" for a in legal(elsewhere, 0, "play"))  # not in the Alley


def test_upkeep_heal_at_the_start_of_the_turn() -> None:
    state = lay_out(duel(), 1, shelter="doc-ravenstorm", wounds=2)
    state = lay_out(state, 0, hand=[])
    state = act(state, 0, {"type": "end_turn"})
    assert state.current == 1 and state.sides[1].wounds == 1


def test_no_opponent_traps_while_the_marshal_sits_in_the_shelter() -> None:
    state = lay_out(duel(), 0, hand=["fall"], bullets=2)
    assert legal(state, 0, "trap")
    guarded = lay_out(state, 1, shelter="marshal-cobb")
    assert legal(guarded, 0, "trap") == []


def test_ready_from_the_fourth_turn_with_old_paint_in_the_alley() -> None:
    state = lay_out(duel(), 0, alley="old-paint", turns=4, bullets=0)
    assert legal(state, 0, "ready") == [{"type": "ready"}]
    assert legal(lay_out(state, 0, turns=3), 0, "ready") == []


def test_belt_bonus_at_the_end_of_the_turn() -> None:
    state = lay_out(duel(), 0, shelter="piano-player", hand=[], bullets=2, belt=0)
    state = act(state, 0, {"type": "end_turn"})
    assert state.sides[0].belt == 3 and state.chips() == 0


def test_draw_and_hide_the_top_card() -> None:
    base = duel("saloon-nights", "stampede-at-dawn")
    state = lay_out(base, 0, shelter="cafe-noir", hand=[], bullets=1)
    top = state.sides[0].deck[0]
    drawn = act(state, 0, {"type": "play", "card": "cafe-noir", "effect": 1})
    assert drawn.sides[0].hand == [top] and drawn.sides[0].discard[-1] == "cafe-noir"
    harmonica = lay_out(base, 0, alley="harmonica", hand=[], bullets=2)
    hidden = act(harmonica, 0, {"type": "play", "card": "harmonica", "effect": 1, "slot": 1})
    assert hidden.sides[0].hideout[1] == [top]


def test_move_a_wound_from_your_shelter_to_their_alley() -> None:
    state = lay_out(duel("saloon-nights", "stampede-at-dawn"), 0, alley="jennys-parasol", shelter="sisters")
    state = lay_out(state, 0, shelter_wounds=1, bullets=2)
    state = lay_out(state, 1, alley="sisters", alley_wounds=0)
    state = act(state, 0, {"type": "play", "card": "jennys-parasol", "effect": 1})
    assert (state.sides[0].shelter_wounds, state.sides[1].alley_wounds) == (0, 1) and state.chips() == 0


def test_discard_the_tops_of_the_opponents_hideout() -> None:
    state = lay_out(duel(), 0, hand=["stagecoach-robbery"], bullets=2)
    state = lay_out(state, 1, hideout=[["sisters", "fall"], ["turnabout"]], face_down=frozenset({"fall"}))
    state = act(state, 0, {"type": "play", "card": "stagecoach-robbery", "effect": 0})
    assert state.sides[1].hideout == [["sisters"], []]
    assert state.sides[1].discard == ["fall", "turnabout"] and state.sides[1].face_down == frozenset()


def test_a_second_gunfight() -> None:
    state = lay_out(duel(), 0, hand=["high-noon"], alley="machete", bullets=6)
    state = act(state, 0, {"type": "gunfight", "bullets": 1})
    assert legal(state, 0, "gunfight") == []
    state = act(state, 0, {"type": "play", "card": "high-noon", "effect": 0})
    assert [a["bullets"] for a in legal(state, 0, "gunfight")] == [1, 2]


def test_shield_lowers_the_opponents_firepower_to_at_least_one() -> None:
    state = lay_out(duel(), 0, alley="iron-bar")
    state = lay_out(state, 1, shelter="deputy-nelson")
    assert fx.firepower(state.sides[0], state.sides[1]) == 1
    assert GAME.view(state, 1)["seats"][0]["firepower"] == 1


def test_rattlesnake_shoots_the_bullets_on_it() -> None:
    state = lay_out(duel("smoking-barrels", "saloon-nights"), 0, hand=["rattlesnake"], bullets=3)
    state = act(state, 0, {"type": "trap", "bullets": 3})
    state = act(state, 0, {"type": "set_trap", "card": "rattlesnake"})
    state = act(state, 0, {"type": "end_turn"})
    state = act(state, 1, {"type": "do_nothing"})
    assert state.sides[1].wounds == 3 and state.chips() == 0
