"""TRAPS (rules 0.3): cost X (at least one Bullet), face down between the players; the opponent
follows, raises or does nothing at the start of their turn."""

from __future__ import annotations

from engines.protocol import Event
from engines.ragnguns import GAME

from . import act, duel, lay_out, legal


def _fall_with_three_bullets(opponent_bullets_next_turn: int = 4):
    """ "I decide to play Fall, I've got quite a few Bullets ... Therefore I put three Bullets on the
    face-down card." """
    state = lay_out(duel(), 0, hand=["fall"], bullets=3)
    state = lay_out(state, 1, cylinder=opponent_bullets_next_turn - 1)
    assert [a["bullets"] for a in legal(state, 0, "trap")] == [1, 2, 3]
    state = act(state, 0, {"type": "trap", "bullets": 3})
    assert GAME.decision(state).prompt == "choose_trap"
    choose = {"type": "set_trap", "card": "fall"}
    assert legal(state, 0) == [choose]
    assert GAME.event_audience(state, Event.action(0, choose)) == frozenset({0})
    state = act(state, 0, choose)
    assert state.sides[0].traps == [("fall", 3)] and state.sides[0].bullets == 0
    # the opponent sees a face-down card with three Bullets on it
    assert GAME.view(state, 1)["seats"][0]["traps"] == [{"card": None, "bullets": 3}]
    state = act(state, 0, {"type": "end_turn"})
    return state


def test_fall_follow_raise_or_do_nothing() -> None:
    """ "my opponent can pay three Bullets for the Fall to return in my Hideout, or four for discards it,
    but he chooses to do nothing. He flips the card to know what's going on and discards one of his
    cards in hand as written." """
    state = _fall_with_three_bullets()
    assert (state.current, state.sides[1].bullets, GAME.decision(state).prompt) == (1, 4, "defuse")
    assert legal(state, 1) == [{"type": "follow"}, {"type": "raise"}, {"type": "do_nothing"}]

    followed = act(state, 1, {"type": "follow"})
    assert followed.sides[1].bullets == 1
    assert followed.sides[0].hideout[0] == ["fall"] and "fall" in followed.sides[0].face_down
    assert GAME.view(followed, 1)["seats"][0]["hideout"][0]["top"] == {"card": None, "face_down": True}

    raised = act(state, 1, {"type": "raise"})
    assert raised.sides[1].bullets == 0 and raised.sides[0].discard[-1] == "fall"

    nothing = act(state, 1, {"type": "do_nothing"})
    assert nothing.sides[1].bullets == 4 and nothing.sides[0].discard[-1] == "fall"
    assert GAME.decision(nothing).prompt == "discard_from_hand"
    hand = nothing.sides[1].hand
    assert len(hand) == 3
    done = act(nothing, 1, {"type": "discard_from_hand", "card": hand[0]})
    assert done.sides[1].hand == hand[1:] and done.sides[1].discard == [hand[0]]
    assert GAME.decision(done).prompt == "main"
    for after in (followed, raised, done):
        assert after.chips() == 0


def test_following_needs_the_bullets() -> None:
    state = _fall_with_three_bullets(opponent_bullets_next_turn=3)
    assert legal(state, 1) == [{"type": "follow"}, {"type": "do_nothing"}]


def test_a_trap_on_top_of_the_hideout_can_be_placed_again() -> None:
    state = lay_out(duel(), 0, hand=[], hideout=[["fall"], []], face_down=frozenset({"fall"}), bullets=1)
    state = act(state, 0, {"type": "trap", "bullets": 1})
    state = act(state, 0, {"type": "set_trap", "card": "fall"})
    assert state.sides[0].hideout == [[], []] and state.sides[0].face_down == frozenset()


def test_lure_was_a_bluff_and_goes_back_to_the_hideout() -> None:
    state = lay_out(duel(), 0, hand=["lure"], bullets=2)
    state = act(state, 0, {"type": "trap", "bullets": 2})
    state = act(state, 0, {"type": "set_trap", "card": "lure"})
    state = act(state, 0, {"type": "end_turn"})
    state = act(state, 1, {"type": "do_nothing"})
    assert state.sides[0].hideout[0] == ["lure"] and "lure" not in state.sides[0].discard
    assert GAME.decision(state).prompt == "main" and state.chips() == 0
