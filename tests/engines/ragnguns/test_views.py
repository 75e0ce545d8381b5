"""What each seat sees (rules 0.3: HIDEOUT, TRAPS; issue 15: hand, deck order, face-down TRAPS and the
lower Hideout cards are in no view of the opponent, the counts are)."""

from __future__ import annotations

import json

from engines.ragnguns import GAME

from . import act, duel, lay_out


def _table():
    state = lay_out(
        duel(),
        0,
        hand=["machete", "fall"],
        hideout=[["improvise", "whip"], ["lure"]],
        face_down=frozenset({"lure"}),
        alley="sisters",
        alley_wounds=1,
        bullets=3,
        belt=2,
    )
    state = act(state, 0, {"type": "trap", "bullets": 1})
    return act(state, 0, {"type": "set_trap", "card": "fall"})


def test_a_seat_sees_its_own_hand_hideout_and_traps() -> None:
    mine = GAME.view(_table(), 0)["seats"][0]
    assert mine["hand"] == ["machete"]
    assert mine["hideout"] == [
        [{"card": "improvise", "face_down": False}, {"card": "whip", "face_down": False}],
        [{"card": "lure", "face_down": True}],
    ]
    assert mine["traps"] == [{"card": "fall", "bullets": 1}]
    assert (mine["bullets"], mine["cartridge_belt"], mine["alley"]) == (
        2,
        2,
        {"card": "sisters", "bullets": 1},
    )
    assert mine["deck_count"] == 12 and "deck" not in mine


def test_the_opponent_and_a_spectator_see_counts_tops_and_backs() -> None:
    state = _table()
    for seat in (1, None):
        theirs = GAME.view(state, seat)["seats"][0]
        assert "hand" not in theirs and theirs["hand_count"] == 1
        assert theirs["hideout"] == [
            {"count": 2, "top": {"card": "whip", "face_down": False}},
            {"count": 1, "top": {"card": None, "face_down": True}},
        ]
        assert theirs["traps"] == [{"card": None, "bullets": 1}]
        text = json.dumps(GAME.view(state, seat))
        for secret in ("improvise", "lure", "fall", "machete"):
            assert secret not in text, (seat, secret)
    assert GAME.view(state, None)["you"] is None


def test_views_are_json_and_name_the_moment() -> None:
    view = GAME.view(_table(), 1)
    assert json.loads(json.dumps(view)) == view
    assert (view["phase"], view["current"], view["first_player"]) == ("main", 0, 0)
