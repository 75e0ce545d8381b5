"""Card Resolution Order: every action opens a window for every other player; the last action
resolves first. The rulebook's Super Glue / Dodge example, with both of its endings."""

from __future__ import annotations

from engines.greatestsnake.state import RAT, RESPOND

from . import GAME, act, card, pass_all, table

RAT_CARD = card("rat")
GLUE = card("super-glue")
DODGE = card("dodge")
SCALES = card("slippery-scales")


def player_1_tries_to_eat(*, hand_0: list[int], gear_0: dict[int, int] | None = None):
    """Seat 2 ends its turn; seat 0 (Player 1) draws a Rat and tries to eat it; seat 1 (Player 2)
    holds Super Glue."""
    state = table(3, active=2, hands={0: hand_0, 1: [GLUE]}, gear={0: gear_0 or {}}, deck_top=[RAT_CARD])
    state = pass_all(act(state, 2, {"type": "digest"}))
    assert (state.active, state.phase, state.drawn) == (0, RAT, RAT_CARD)
    state = act(state, 0, {"type": "eat"})
    assert GAME.decision(state).kind == "response" and GAME.decision(state).seats == {1}
    # Player 2 plays Super Glue to stop them.
    return act(state, 1, {"type": "play", "card": GLUE, "snake": 0})


def test_the_example_with_a_dodge_power_card_eats_the_rat() -> None:
    state = player_1_tries_to_eat(hand_0=[DODGE])
    assert GAME.decision(state).seats == {0}
    assert {"type": "play", "card": DODGE, "entry": 1} in GAME.legal_actions(state, 0)
    # "so Player 1 plays Dodge. Player 1 dodges the Super Glue and eats the rat."
    state = act(state, 0, {"type": "play", "card": DODGE, "entry": 1})
    state = pass_all(state)
    assert state.spaces[0][0] == RAT_CARD
    assert state.glue[0] == -1 and state.awake[0]
    assert GLUE in state.discard and DODGE in state.discard
    assert state.phase == "main" and state.active == 0


def test_the_example_with_an_equipment_dodge_falls_asleep_and_cannot_eat() -> None:
    state = player_1_tries_to_eat(hand_0=[], gear_0={0: SCALES})
    # Player 1 has no card in hand, but an awake snake with a sleep-paid ability may still answer.
    assert GAME.decision(state).seats == {0}
    state = act(state, 0, {"type": "use", "equipment": SCALES, "entry": 1})
    assert not state.awake[0]  # "it would then be asleep (the cost of that equipment ability)"
    state = pass_all(state)
    # "... and unable to eat the rat, because the dodging would resolve before the rat was in the
    # snake's mouth."
    assert state.spaces[0][0] == -1
    assert state.pit[-1] == RAT_CARD
    assert state.glue[0] == -1 and GLUE in state.discard  # the glue was dodged all the same
    assert state.gear[0][0] == SCALES  # equipment stays


def test_undodged_super_glue_stops_the_meal_and_holds_until_digest() -> None:
    state = pass_all(player_1_tries_to_eat(hand_0=[DODGE]))
    assert state.spaces[0][0] == -1 and state.pit[-1] == RAT_CARD
    assert state.glue[0] == GLUE  # on the Head until the next Digest!
    state = pass_all(act(state, 0, {"type": "digest"}))
    assert state.glue[0] == -1 and GLUE in state.discard


def test_every_other_player_may_respond_and_an_answer_reopens_the_window() -> None:
    squeeze = card("squeeze")
    # a rat in seat 0's snake, so that seat 2's Squeeze has a target
    state = table(3, hands={0: [GLUE], 1: [DODGE], 2: [squeeze]}, rats={0: {1: RAT_CARD}})
    state = act(state, 0, {"type": "play", "card": GLUE, "snake": 1})
    assert GAME.decision(state).kind == "response" and GAME.decision(state).seats == {1, 2}
    state = act(state, 2, {"type": "pass"})
    assert GAME.decision(state).seats == {1}
    state = act(state, 1, {"type": "play", "card": DODGE, "entry": 0})
    # the answer reopens the window for every other player with an answer (seat 0's hand is empty
    # now, seat 1 just answered)
    assert GAME.decision(state).seats == {2}
    state = act(state, 2, {"type": "pass"})
    assert state.phase == "main" and state.glue[1] == -1


def test_a_window_is_skipped_when_nobody_could_answer() -> None:
    state = table(3, hands={0: [GLUE]})
    state = act(state, 0, {"type": "play", "card": GLUE, "snake": 1})
    assert state.phase == "main" and state.glue[1] == GLUE


def test_a_seat_that_could_only_pass_is_not_asked() -> None:
    # Seat 1 holds a Dodge, but nothing is aimed at its snake; seat 2 a Squeeze, with no rat to
    # squeeze: neither has an answer, so no window waits on a lone "pass".
    state = table(3, hands={0: [GLUE], 1: [DODGE], 2: [card("squeeze")]})
    state = act(state, 0, {"type": "play", "card": GLUE, "snake": 0})
    assert state.phase == "main" and state.glue[0] == GLUE


def test_the_last_response_resolves_first() -> None:
    # Seat 0 feeds Fake Rat to seat 1; seat 1 answers with Lullaby on seat 0 ... the Fake Rat still
    # lands (seat 1 is awake), resolved after the Lullaby.
    fake, lullaby = card("fake-rat"), card("lullaby")
    state = table(3, hands={0: [fake], 1: [lullaby]})
    state = act(state, 0, {"type": "play", "card": fake, "snake": 1})
    state = act(state, 1, {"type": "play", "card": lullaby, "snake": 1})  # puts its own snake to sleep
    state = pass_all(state)
    # Lullaby resolved first: seat 1 asleep, so the Fake Rat (which needs an awake mouth) is discarded.
    assert not state.awake[1]
    assert state.spaces[1][0] == -1
    assert state.discard[-1] == fake


def test_responders_cannot_equip_or_digest() -> None:
    lullaby = card("lullaby")
    state = table(3, hands={0: [GLUE], 1: [card("iron-belly"), lullaby]})
    state = act(state, 0, {"type": "play", "card": GLUE, "snake": 2})
    assert state.phase == RESPOND
    assert {action["type"] for action in GAME.legal_actions(state, 1)} == {"pass", "play"}
    assert all(action.get("card") == lullaby for action in GAME.legal_actions(state, 1)[1:])
