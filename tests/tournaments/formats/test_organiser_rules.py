"""The reducer's rules for what organisers and players do around the pairing engine: reporting as a
state machine, drops at an open table, forbidden pairs and re-pairing as events, Baku acceleration,
late entrants' missed rounds and byes after a forfeit win."""

from __future__ import annotations

import random

from tournaments.formats.common import MatchResult, WinDrawLoss
from tournaments.formats.lifecycle import (
    TournamentSpec,
    pending_tables,
    standings,
    state_from_json,
    state_to_json,
    table,
)
from tournaments.formats.swiss import swiss_pair_round

from .test_lifecycle import Log, names, play_round


def _duel(log: Log) -> tuple[str, str, str]:
    t = pending_tables(log.state)[0]
    return t["match_key"], *t["players"]


def test_a_report_waits_for_another_participant_and_an_agreeing_report_confirms_it():
    log = Log(TournamentSpec("swiss")).start(names(4))
    log.pair()
    key, a, b = _duel(log)
    log.do({"kind": "result_reported", "match_key": key, "by": a, "ranks": [1, 2]})
    assert table(log.state, key)["status"] == "reported"
    log.do({"kind": "result_reported", "match_key": key, "by": b, "ranks": [1, 2]})
    view = table(log.state, key)
    assert (
        view["status"] == "decided"
        and view["result"]["decided_by"] == "confirmed"
        and view["result"]["winner"] == a
    )
    assert [(h["kind"], h.get("by")) for h in view["history"]] == [
        ("result_reported", a),
        ("result_reported", b),
        ("result_confirmed", b),
    ]


def test_disagreeing_reports_open_a_dispute_that_only_a_correction_settles():
    log = Log(TournamentSpec("swiss")).start(names(4))
    log.pair()
    key, a, b = _duel(log)
    log.do({"kind": "result_reported", "match_key": key, "by": a, "ranks": [1, 2]})
    log.do({"kind": "result_reported", "match_key": key, "by": b, "ranks": [2, 1]})
    view = table(log.state, key)
    assert view["status"] == "disputed"
    assert [h["kind"] for h in view["history"]] == ["result_reported", "result_reported", "result_disputed"]
    # Neither player, nor the organiser's confirmation, settles it; a new report cannot either.
    log.refused({"kind": "result_confirmed", "match_key": key, "by": a}, "result/disputed")
    log.refused({"kind": "result_confirmed", "match_key": key, "by": b}, "result/disputed")
    log.refused({"kind": "result_confirmed", "match_key": key, "by_organiser": True}, "result/disputed")
    log.refused({"kind": "result_reported", "match_key": key, "by": a, "ranks": [2, 1]}, "result/disputed")
    log.do({"kind": "result_corrected", "match_key": key, "ranks": [2, 1], "reason": "arbiter saw it"})
    assert table(log.state, key)["result"]["winner"] == b


def test_a_player_cannot_confirm_their_own_report_nor_dispute_it():
    log = Log(TournamentSpec("swiss")).start(names(4))
    log.pair()
    key, a, _b = _duel(log)
    log.do({"kind": "result_reported", "match_key": key, "by": a, "ranks": [1, 2]})
    log.refused({"kind": "result_confirmed", "match_key": key, "by": a}, "result/cannot_confirm_own")
    log.refused(
        {"kind": "result_disputed", "match_key": key, "by": a, "reason": "x"}, "result/cannot_dispute_own"
    )
    log.do({"kind": "result_confirmed", "match_key": key, "by_organiser": True})
    view = table(log.state, key)
    assert view["status"] == "decided" and view["history"][-1] == {
        "kind": "result_confirmed",
        "ranks": [1, 2],
        "reason": "organiser",
    }


def test_a_pod_report_is_confirmed_by_another_player_of_the_pod():
    log = Log(TournamentSpec("pods", seats_per_match=4, config={"min_seats": 3})).start(names(8))
    log.pair()
    t = pending_tables(log.state)[0]
    key, players = t["match_key"], t["players"]
    log.do({"kind": "result_reported", "match_key": key, "by": players[0], "ranks": [1, 2, 3, 4]})
    log.do({"kind": "result_reported", "match_key": key, "by": players[2], "ranks": [1, 2, 3, 4]})
    assert table(log.state, key)["status"] == "decided"


def test_a_drop_at_an_open_duel_is_a_forfeit_at_once_and_the_player_is_not_paired_again():
    log = Log(TournamentSpec("swiss", config={"rounds": 3})).start(names(6))
    log.pair()
    key, a, b = _duel(log)
    log.do({"kind": "result_reported", "match_key": key, "by": a, "ranks": [1, 2]})
    log.do({"kind": "dropped", "player": a})
    view = table(log.state, key)
    assert view["status"] == "decided" and view["result"]["forfeit"] and view["result"]["winner"] == b
    play_round(log, random.Random(1))
    event = log.pair()
    assert a not in [p for t in event["tables"] for p in t["players"]] and a not in event["byes"]


def test_forbidden_pairs_are_an_event_editable_until_the_round_is_paired():
    log = Log(TournamentSpec("swiss", config={"rounds": 3})).start(names(4))
    log.refused({"kind": "forbidden_pairs_set", "pairs": [["p01", "p99"]]}, "player/not_registered")
    log.refused({"kind": "forbidden_pairs_set", "pairs": [["p01", "p01"]]}, "pairing/bad_pair")
    log.do({"kind": "forbidden_pairs_set", "pairs": [["p01", "p03"]]})
    log.do({"kind": "forbidden_pairs_set", "pairs": [["p01", "p03"], ["p02", "p04"]]})
    event = log.pair()
    met = {frozenset(t["players"]) for t in event["tables"]}
    assert frozenset({"p01", "p03"}) not in met and frozenset({"p02", "p04"}) not in met
    assert state_from_json(state_to_json(log.state)) == log.state
    league = Log(TournamentSpec("round_robin")).start(names(4))
    league.refused({"kind": "forbidden_pairs_set", "pairs": [["p01", "p02"]]}, "pairing/no_forbidden_pairs")


def test_the_latest_round_can_be_repaired_before_any_result_with_the_same_players():
    log = Log(TournamentSpec("swiss", config={"rounds": 3})).start(names(5))
    event = log.pair()
    (k1, k2), bye = [t["match_key"] for t in event["tables"]], event["byes"][0]
    players = sorted(p for t in event["tables"] for p in t["players"])
    swapped = [
        {"match_key": k1, "players": [players[0], players[3]]},
        {"match_key": k2, "players": [players[1], players[2]]},
    ]
    log.refused({"kind": "round_repaired", "round": 1, "tables": swapped, "byes": []}, "round/bad_table")
    log.refused({"kind": "round_repaired", "round": 2, "tables": swapped, "byes": [bye]}, "round/not_latest")
    log.do({"kind": "round_repaired", "round": 1, "tables": swapped, "byes": [bye], "reason": "teammates"})
    assert table(log.state, k1)["players"] == [players[0], players[3]]
    log.do({"kind": "result_reported", "match_key": k1, "by": players[0], "ranks": [1, 2]})
    log.refused(
        {"kind": "round_repaired", "round": 1, "tables": swapped, "byes": [bye]}, "round/already_started"
    )
    bracket = Log(TournamentSpec("single_elimination")).start(names(4))
    bracket.pair()
    tables = [{"match_key": t["match_key"], "players": t["players"]} for t in pending_tables(bracket.state)]
    bracket.refused(
        {"kind": "round_repaired", "round": 1, "tables": tables, "byes": []}, "round/fixed_by_format"
    )


def test_baku_acceleration_pairs_the_top_half_among_itself_in_round_one_and_keeps_points_honest():
    plain = Log(TournamentSpec("swiss", config={"rounds": 4})).start(names(16)).pair()
    baku_log = Log(TournamentSpec("swiss", config={"rounds": 4, "acceleration": "baku"})).start(names(16))
    baku = baku_log.pair()
    top = set(names(8))
    # Without acceleration seed 1 meets seed 9; with it the top eight meet each other.
    assert any({"p01", "p09"} == set(t["players"]) for t in plain["tables"])
    assert all(set(t["players"]) <= top or not set(t["players"]) & top for t in baku["tables"])
    assert baku["explanation"]["acceleration"]["virtual_points"]["p01"] == 1.0
    assert all(row["points"] == 0 for row in standings(baku_log.state))
    play_round(baku_log, random.Random(3))
    for _ in range(3):
        event = baku_log.pair()
        play_round(baku_log, random.Random(4))
    assert "acceleration" not in event["explanation"]  # the second half of the rounds pairs on real points


def test_a_late_entrants_missed_rounds_score_as_the_organiser_chose():
    for missed, points in (("zero", 0.0), ("half_point_bye", 1.0)):
        log = Log(TournamentSpec("swiss", config={"rounds": 4, "missed_rounds": missed})).start(names(6))
        for _ in range(2):
            log.pair()
            for t in pending_tables(log.state):
                log.do(
                    {
                        "kind": "result_corrected",
                        "match_key": t["match_key"],
                        "ranks": [1, 2],
                        "reason": "test",
                    }
                )
        log.do({"kind": "registered", "player": "late", "seed": None, "rating": None})
        row = next(r for r in standings(log.state) if r["player"] == "late")
        assert row["points"] == points
        event = log.pair()
        assert "late" in [p for t in event["tables"] for p in t["players"]] + event["byes"]


def test_no_pairing_allocated_bye_for_a_player_who_won_by_forfeit_when_another_can_take_it():
    players = ["p1", "p2", "p3", "fw", "gone"]
    results = [
        MatchResult(1, "fw", "gone", WinDrawLoss.WIN, forfeit=True),
        MatchResult(1, "p1", "p2", WinDrawLoss.WIN),
        MatchResult(1, "p3", None),
        MatchResult(2, "p1", "fw", WinDrawLoss.WIN),
        MatchResult(2, "p3", "p2", WinDrawLoss.WIN),
    ]
    # Left in round 3: p1 2, p3 2 (had the bye), fw 1 (won by forfeit). fw is the lowest ranked,
    # but FIDE C.04.1 d bars a forfeit winner from the bye while p1 can take it.
    paired = swiss_pair_round(players, results, round=3, withdrawn=("gone", "p2"))
    assert paired.bye == "p1"
    assert "won by forfeit in round 1" in paired.explanation.bye.reason
    # A missed round (late entry) is not the pairing-allocated bye: it does not bar one.
    missed = [
        MatchResult(1, "late", None, WinDrawLoss.LOSS, forfeit=True),
        MatchResult(1, "a", "b", WinDrawLoss.WIN),
        MatchResult(1, "c", "d", WinDrawLoss.WIN),
    ]
    assert swiss_pair_round(["a", "b", "c", "d", "late"], missed, round=2).bye == "late"
