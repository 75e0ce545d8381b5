"""Equipment Cards: equipped only on your own turn onto a Body Card (never Head or Tail), stay until an
effect or their owner discards them, non-constant abilities blocked by a rat on their card, sleep-paid
abilities not usable asleep, Gun and Lasers paid with ammo."""

from __future__ import annotations

from engines.greatestsnake.state import MAIN, RESPOND

from . import GAME, act, card, pass_all, table

GUN, LASERS, COILS, BELLY = card("gun"), card("lasers"), card("coils"), card("iron-belly")
R1 = card("rat", 0)


def test_equipment_goes_on_a_body_card_on_your_own_turn() -> None:
    state = table(3, hands={0: [COILS]}, bodies={0: [card("rat", 5)]})
    equips = [action for action in GAME.legal_actions(state, 0) if action["type"] == "equip"]
    # the Fashionable Body and the digested rat: Body Cards 0 and 1, never the Head or Tail
    assert equips == [
        {"type": "equip", "card": COILS, "body": 0},
        {"type": "equip", "card": COILS, "body": 1},
    ]
    state = pass_all(act(state, 0, {"type": "equip", "card": COILS, "body": 1}))
    assert state.gear[0] == [-1, COILS]


def test_no_equipping_on_another_players_turn() -> None:
    # Seat 0 holds Coils and a Lullaby: asked for its Lullaby, never offered to equip the Coils.
    glue, lullaby = card("super-glue"), card("lullaby")
    state = table(3, active=1, hands={1: [glue], 0: [COILS, lullaby]})
    state = act(state, 1, {"type": "play", "card": glue, "snake": 2})
    assert state.phase == RESPOND
    assert {action["type"] for action in GAME.legal_actions(state, 0)} == {"pass", "play"}
    # With the Coils alone it could only pass, so it is not asked at all: the glue is on at once.
    state = table(3, active=1, hands={1: [glue], 0: [COILS]})
    state = act(state, 1, {"type": "play", "card": glue, "snake": 2})
    assert state.phase == MAIN and state.glue[2] == glue


def test_a_rat_does_not_stop_equipping_but_blocks_the_ability() -> None:
    state = table(3, hands={0: [COILS]}, rats={0: {1: R1}, 1: {1: card("rat", 1)}})
    assert {"type": "equip", "card": COILS, "body": 0} in GAME.legal_actions(state, 0)
    state = pass_all(act(state, 0, {"type": "equip", "card": COILS, "body": 0}))
    assert not any(action["type"] == "use" for action in GAME.legal_actions(state, 0))
    state = table(3, gear={0: {0: COILS}}, rats={1: {1: card("rat", 1)}})
    assert {"type": "use", "equipment": COILS, "rat": card("rat", 1)} in GAME.legal_actions(state, 0)


def test_a_sleep_paid_ability_puts_the_snake_to_sleep_and_cannot_be_used_asleep() -> None:
    state = table(3, gear={0: {0: COILS}}, rats={1: {1: R1}})
    state = pass_all(act(state, 0, {"type": "use", "equipment": COILS, "rat": R1}))
    assert not state.awake[0] and state.pit == [R1] and state.gear[0][0] == COILS
    state = table(3, gear={0: {0: COILS}}, rats={1: {2: R1}})
    state.awake[0] = False
    assert not any(action["type"] == "use" for action in GAME.legal_actions(state, 0))


def test_the_owner_may_discard_equipment() -> None:
    state = table(3, gear={0: {0: BELLY}})
    state = act(state, 0, {"type": "discard_equipment", "equipment": BELLY})
    assert state.gear[0] == [-1] and state.discard == [BELLY]


def test_gun_uses_ammo_from_the_hand_and_is_used_up_after_three() -> None:
    ammo = [card("squeeze", i) for i in range(3)]
    state = table(
        3,
        hands={0: ammo},
        gear={0: {0: GUN}, 1: {0: BELLY, 1: COILS, 2: card("iron-belly", 1)}},
        bodies={1: [card("rat", 5), card("rat", 6)]},
    )
    for shot, target in enumerate((BELLY, COILS)):
        state = pass_all(
            act(state, 0, {"type": "use", "equipment": GUN, "target": target, "ammo": ammo[shot]})
        )
        assert state.ammo[GUN] == tuple(ammo[: shot + 1])
        assert target in state.discard
    assert GAME.view(state, 1)["snakes"][0]["body"][0]["equipment"]["uses_left"] == 1
    state = pass_all(
        act(state, 0, {"type": "use", "equipment": GUN, "target": card("iron-belly", 1), "ammo": ammo[2]})
    )
    # used up: Gun and its ammo go to the Discard Pile
    assert state.gear[0][0] == -1 and GUN not in state.ammo
    assert {GUN, *ammo} <= set(state.discard)


def test_lasers_squeeze_with_ammo() -> None:
    ammo = card("dodge")
    state = table(3, hands={0: [ammo]}, gear={0: {0: LASERS}}, rats={2: {1: R1}})
    state = pass_all(act(state, 0, {"type": "use", "equipment": LASERS, "rat": R1, "ammo": ammo}))
    assert state.pit == [R1] and state.ammo[LASERS] == (ammo,)


def test_steal_takes_equipment_even_with_a_rat_on_it() -> None:
    steal = card("steal")
    state = table(3, hands={0: [steal]}, gear={1: {0: COILS}}, rats={1: {1: R1}})
    # "rats do not prevent you from ... stop an opponent from stealing equipment in that spot"
    action = {"type": "play", "card": steal, "equipment": COILS, "body": 0}
    assert action in GAME.legal_actions(state, 0)
    state = pass_all(act(state, 0, action))
    assert state.gear[0] == [COILS] and state.gear[1] == [-1]
