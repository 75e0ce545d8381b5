"""What each seat sees: the view, and the face-down side bets while their window is open."""

from __future__ import annotations

import json

from engines.protocol import Event

from . import GAME, act, bet, bust, check, new, roll

VIEW_KEYS = {
    "game", "you", "options", "ante", "seats", "purses", "thrower", "silo", "phase", "decision",
    "pass", "passes", "passes_remaining", "turns_taken", "skipped", "last_throw", "first_total",
    "side_bets", "house", "house_net", "outcome", "left_ring",
}  # fmt: skip


def test_the_view_at_the_start() -> None:
    view = GAME.view(new(3), 2)
    assert set(view) == VIEW_KEYS
    assert view["you"] == 2 and view["game"] == "rat-snake"
    assert view["options"] == {
        "passes": 2, "starting_purse": 60, "house": True, "rat_and_pips": "may_bow_out",
        "side_bets": True, "max_side_bet": 0, "pot_split": "equal",
    }  # fmt: skip
    assert view["purses"] == [54, 60, 60] and view["thrower"] == 0 and view["silo"] == 6
    assert view["phase"] == "side_bets"
    assert view["decision"] == {"kind": "simultaneous", "seats": [1, 2], "prompt": "side_bets"}
    assert (view["pass"], view["passes"], view["passes_remaining"]) == (1, 2, 2)
    assert view["last_throw"] is None and view["first_total"] is None
    assert view["house"] is True and view["house_net"] == 0
    assert view["side_bets"] == {
        "window": "side_bets", "asked": [1, 2], "answered": [], "open": [], "settled": [],
    }  # fmt: skip


def test_a_bet_is_hidden_from_the_others_while_the_window_is_open() -> None:
    state = bet(new(4), 1, "twists_a_win", 5)
    own = GAME.view(state, 1)
    assert own["side_bets"]["open"] == [{"seat": 1, "prediction": "twists_a_win", "stake": 5, "call": None}]
    assert own["purses"][1] == 55
    for seat in (0, 2, 3, None):
        view = GAME.view(state, seat)
        assert view["side_bets"]["open"] == []
        assert view["side_bets"]["answered"] == [1]  # only that seat 1 has answered
        assert view["purses"][1] == 60  # the stake went face down: the purse still looks whole
        assert "twists_a_win" not in json.dumps(view)


def test_a_bet_and_no_bet_look_the_same_to_the_others() -> None:
    betting = bet(new(4), 1, "rats_out", 3)
    passing = act(new(4), 1, {"type": "no_bet"})
    for seat in (0, 2, 3, None):
        assert GAME.view(betting, seat) == GAME.view(passing, seat)


def test_the_bets_are_turned_up_when_the_window_closes() -> None:
    state = bet(bet(new(3), 1, "rats_out", 3), 2, "loses_grain", 2)
    assert state.phase == "throw"
    for seat in (0, 1, 2, None):
        view = GAME.view(state, seat)
        assert view["side_bets"]["window"] is None
        assert view["side_bets"]["open"] == [
            {"seat": 1, "prediction": "rats_out", "stake": 3, "call": None},
            {"seat": 2, "prediction": "loses_grain", "stake": 2, "call": None},
        ]
        assert view["purses"] == [54, 57, 58]


def test_settled_bets_are_public() -> None:
    state = roll(bet(new(3), 1, "fills_the_silo", 2), 6, 3)
    view = GAME.view(state, 2)
    assert view["side_bets"]["open"] == []
    assert view["side_bets"]["settled"] == [
        {
            "seat": 1,
            "prediction": "fills_the_silo",
            "stake": 2,
            "call": None,
            "result": "won",
            "returned": 6,
            "net": 4,
        }  # fmt: skip
    ]


def test_double_down_calls_are_hidden_until_every_call_is_in() -> None:
    state = bet(bet(new(3), 1, "check_the_silo", 1), 2, "check_the_silo", 2)
    state = act(roll(state, 3, 3), 1, {"type": "double_down", "call": "match"})
    assert GAME.view(state, 1)["side_bets"]["open"][0]["call"] == "match"
    for seat in (0, 2, None):
        view = GAME.view(state, seat)
        assert [b["call"] for b in view["side_bets"]["open"]] == [None, None]
        assert view["side_bets"]["answered"] == [1]
    state = act(state, 2, {"type": "double_down", "call": "gain"})
    assert [b["call"] for b in GAME.view(state, 0)["side_bets"]["open"]] == ["match", "gain"]


def test_event_audience_hides_face_down_answers_from_all_but_their_author() -> None:
    state = new(3)
    side_bet = {"type": "side_bet", "prediction": "rats_out", "stake": 1}
    assert GAME.event_audience(state, Event.action(1, side_bet)) == {1}
    assert GAME.event_audience(state, Event.action(2, {"type": "no_bet"})) == {2}
    assert GAME.event_audience(state, Event.action(2, {"type": "double_down", "call": "gain"})) == {2}
    assert GAME.event_audience(state, Event.action(0, {"type": "continue"})) is None
    assert GAME.event_audience(state, Event.chance_outcome({"dice": [1, 2]})) is None
    assert GAME.event_audience(state, Event.forfeit(1, "left")) is None


def test_the_first_total_shows_while_the_silo_is_checked() -> None:
    state = roll(new(3), 3, 5)
    view = GAME.view(state, 0)
    assert view["first_total"] == 8 and view["phase"] == "check_the_silo"
    assert view["last_throw"] == {
        "thrower": 0, "dice": [3, 5], "result": "pips_on_both", "first_total": 8, "check": None,
    }  # fmt: skip
    state = check(state, 4, 5)
    view = GAME.view(state, 0)
    assert view["first_total"] is None
    assert view["last_throw"]["check"] == {"dice": [4, 5], "total": 9, "result": "gain"}


def test_the_last_throw_stays_visible_after_the_dice_pass() -> None:
    view = GAME.view(bust(new(3)), 2)
    assert view["last_throw"]["thrower"] == 0 and view["last_throw"]["result"] == "rats_eyes"
    assert view["thrower"] == 1


def test_pass_counts_and_the_end() -> None:
    state = new(2, passes=2, side_bets=False)
    state = bust(bust(state))
    view = GAME.view(state, 0)
    assert (view["pass"], view["passes_remaining"], view["turns_taken"]) == (2, 1, 2)
    state = bust(bust(state))
    view = GAME.view(state, None)
    assert view["phase"] == "over" and view["thrower"] is None
    assert (view["pass"], view["passes_remaining"]) == (2, 0)
    assert view["outcome"] == {"ranks": [1, 1], "scores": [48, 48], "reason": "session_over"}
    assert view["decision"] == {"kind": "over", "seats": [], "prompt": "over"}


def test_without_a_house_there_is_no_house_net() -> None:
    view = GAME.view(new(3, house=False), 0)
    assert view["house"] is False and view["house_net"] is None


def test_views_are_json() -> None:
    state = act(roll(bet(new(3), 1, "check_the_silo", 2), 4, 4), 1, {"type": "double_down", "call": "lose"})
    for seat in (None, 0, 1, 2):
        view = GAME.view(state, seat)
        assert json.loads(json.dumps(view)) == view
