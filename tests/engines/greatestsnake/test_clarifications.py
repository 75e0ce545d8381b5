"""Clarifications: Gun and Lasers keep their used ammo when stolen or swapped; Fake Rat is a rat and a
Power Card and may be fed to any snake, your own included. (Rat King: see test_rats.py.)"""

from __future__ import annotations

from engines.greatestsnake.catalogue import IS_RAT, KIND

from . import GAME, act, card, pass_all, table

GUN, LASERS, COILS = card("gun"), card("lasers"), card("coils")
FAKE = card("fake-rat")
R1 = card("rat", 0)


def test_a_stolen_gun_keeps_its_used_ammo() -> None:
    steal, spent = card("steal"), card("dodge")
    state = table(3, hands={0: [steal]}, gear={1: {0: GUN}})
    state.ammo[GUN] = (spent,)  # seat 1 has shot once
    state = pass_all(act(state, 0, {"type": "play", "card": steal, "equipment": GUN, "body": 0}))
    assert state.gear[0][0] == GUN and state.ammo[GUN] == (spent,)
    # "If the player you took it from used it once, then it only has two uses left"
    assert GAME.view(state, 0)["snakes"][0]["body"][0]["equipment"]["uses_left"] == 2


def test_swapped_lasers_keep_their_used_ammo() -> None:
    swap, spent = card("swap"), [card("dodge", 0), card("dodge", 1)]
    state = table(3, hands={0: [swap]}, gear={0: {0: COILS}, 2: {0: LASERS}})
    state.ammo[LASERS] = tuple(spent)
    state = pass_all(act(state, 0, {"type": "play", "card": swap, "mine": COILS, "theirs": LASERS}))
    assert state.gear[0][0] == LASERS and state.gear[2][0] == COILS
    assert state.ammo[LASERS] == tuple(spent)
    assert GAME.view(state, None)["snakes"][0]["body"][0]["equipment"]["uses_left"] == 1


def test_fake_rat_is_both_a_rat_and_a_power_card() -> None:
    assert KIND[FAKE] == "power" and IS_RAT[FAKE]


def test_fake_rat_can_be_fed_to_your_own_snake() -> None:
    state = table(3, hands={0: [FAKE]})
    assert {action["snake"] for action in GAME.legal_actions(state, 0) if action.get("card") == FAKE} == {
        0,
        1,
        2,
    }
    state = pass_all(act(state, 0, {"type": "play", "card": FAKE, "snake": 0}))
    assert state.spaces[0][0] == FAKE


def test_fake_rat_stops_another_snake_from_eating_a_real_rat() -> None:
    state = table(3, active=2, hands={1: [FAKE]}, deck_top=[R1])
    state = pass_all(act(state, 2, {"type": "digest"}))
    state = act(state, 0, {"type": "eat"})
    state = pass_all(act(state, 1, {"type": "play", "card": FAKE, "snake": 0}))
    assert state.spaces[0][0] == FAKE and state.pit == [R1]


def test_fake_rat_digests_like_a_rat_but_leaves_no_body_card() -> None:
    state = table(3, rats={0: {2: FAKE}})
    state = pass_all(act(state, 0, {"type": "digest"}))
    assert state.length(0) == 3 and state.discard == [FAKE]


def test_a_dodge_cancels_fake_rat_fed_to_you() -> None:
    dodge = card("dodge")
    state = table(3, hands={0: [FAKE], 1: [dodge]})
    state = act(state, 0, {"type": "play", "card": FAKE, "snake": 1})
    state = pass_all(act(state, 1, {"type": "play", "card": dodge, "entry": 0}))
    assert state.spaces[1][0] == -1 and {FAKE, dodge} <= set(state.discard)


def test_nothing_can_be_played_during_digestion() -> None:
    # "The Digestion Phase happens instantly": once everyone has let "Digest!" through, every snake
    # digests and the next turn begins within the same event; there is no window in between.
    glue = card("super-glue")
    state = table(3, hands={1: [glue]}, rats={1: {2: R1}}, deck_top=[card("dodge")])
    state = act(state, 0, {"type": "digest"})
    assert GAME.decision(state).kind == "response"
    state = act(state, 1, {"type": "pass"})
    assert state.length(1) == 4 and state.active == 1 and GAME.decision(state).prompt == "main"


def test_a_sleeping_snake_is_fed_fake_rat_only_with_the_option() -> None:
    for option, snakes in ((False, {0, 2}), (True, {0, 1, 2})):
        state = table(3, hands={0: [FAKE]}, feed_sleeping=option)
        state.awake[1] = False
        assert {
            action["snake"] for action in GAME.legal_actions(state, 0) if action.get("card") == FAKE
        } == snakes
    state = table(3, hands={0: [FAKE]}, feed_sleeping=True)
    state.awake[1] = False
    state = pass_all(act(state, 0, {"type": "play", "card": FAKE, "snake": 1}))
    assert state.spaces[1][0] == FAKE
