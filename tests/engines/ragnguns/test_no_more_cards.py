"""NO MORE CARDS? (rules 0.3): from the sixth turn there is nothing to draw and the GUNSLINGER is
ready: it may move into the Alley for free and for good, with its firepower and keywords."""

from __future__ import annotations

from engines.ragnguns import GAME
from engines.ragnguns import effects as fx

from . import act, duel, lay_out, legal


def _end_turn(state, seat):
    state = act(state, seat, {"type": "end_turn"})
    if GAME.decision(state).prompt == "hide":
        state = act(state, seat, legal(state, seat)[0])
    return state


def test_on_the_sixth_turn_nothing_is_drawn_and_the_gunslinger_is_ready() -> None:
    state = duel()
    for turn in range(1, 6):
        assert state.sides[0].turns == turn and len(state.sides[0].deck) == 15 - 3 * turn
        assert not fx.is_ready(state.sides[0]) and not legal(state, 0, "ready")
        state = _end_turn(_end_turn(state, 0), 1)
        if GAME.decision(state).prompt == "defuse":  # no TRAP was set: never happens here
            raise AssertionError
    side = state.sides[0]
    assert side.turns == 6 and side.deck == [] and side.hand == []
    assert side.cylinder == 6 and fx.is_ready(side)
    assert legal(state, 0, "ready") == [{"type": "ready"}]


def test_the_ready_gunslinger_moves_into_the_alley_for_good() -> None:
    state = lay_out(duel(), 0, ready=True, alley="iron-bar", bullets=6, hand=["machete"])
    state = lay_out(state, 1, shelter=None, alley=None)
    moved = act(state, 0, {"type": "ready"})
    side = moved.sides[0]
    assert side.in_alley and side.alley is None and side.discard == ["iron-bar"]
    # "he provides you his FIREPOWER and KEYWORDS": Buffalo Kid has 2 ♠ and QUICK
    assert [a["bullets"] for a in legal(moved, 0, "gunfight")] == [1, 2]
    # "there's no turning back": nothing is placed in the Alley any more, and no second move
    assert {a["zone"] for a in legal(moved, 0, "place")} == {"shelter"}
    assert not legal(moved, 0, "ready")


def test_a_gunslinger_in_the_alley_takes_every_bullet_the_shelter_does_not() -> None:
    state = lay_out(duel(), 0, alley="sisters", bullets=3)
    state = lay_out(state, 1, in_alley=True, alley=None, shelter="iron-bar")
    shot = act(state, 0, {"type": "gunfight", "bullets": 3})
    assert shot.sides[1].wounds == 2 and GAME.decision(shot).prompt == "main"


def test_the_duel_is_called_at_the_turn_limit() -> None:
    state = duel(turn_limit=6)
    for _ in range(6):
        state = _end_turn(_end_turn(state, 0), 1) if GAME.decision(state).kind != "over" else state
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.reason == "turn_limit" and outcome.scores == (0.5, 0.5)
