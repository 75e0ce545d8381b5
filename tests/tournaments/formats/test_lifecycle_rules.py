"""The tournament log, rule by rule: results and their history, refusals with their codes, drops,
late entries, forbidden pairs, corrections, brackets, pods, groups and the spec."""

from __future__ import annotations

import json
import random

import pytest

from tournaments.formats.common import FormatError
from tournaments.formats.lifecycle import (
    FORMATS,
    TournamentSpec,
    bracket,
    is_complete,
    new_state,
    next_round,
    pending_tables,
    spec_check,
    spec_describe,
    standings,
    summary,
    table,
)

from .test_lifecycle import Log, check_finished, drive, names, play_round


def first_table(log: Log) -> dict:
    return pending_tables(log.state)[0]


def points(log: Log) -> dict:
    return {r["player"]: r["points"] for r in standings(log.state)}


# -- results -----------------------------------------------------------------------------------------


def test_report_then_confirm():
    log = Log(TournamentSpec("swiss")).start(names(4))
    log.pair()
    t = first_table(log)
    a, b = t["players"]
    log.do({"kind": "result_reported", "match_key": t["match_key"], "by": a, "ranks": [1, 2]})
    assert table(log.state, t["match_key"])["status"] == "reported"
    assert [x["status"] for x in pending_tables(log.state)].count("reported") == 1
    log.refused(
        {"kind": "result_confirmed", "match_key": t["match_key"], "by": a}, "result/cannot_confirm_own"
    )
    log.refused({"kind": "result_confirmed", "match_key": t["match_key"], "by": "p99"}, "result/not_a_player")
    log.do({"kind": "result_confirmed", "match_key": t["match_key"], "by": b})
    view = table(log.state, t["match_key"])
    assert (
        view["status"] == "decided"
        and view["result"]["winner"] == a
        and view["result"]["decided_by"] == "confirmed"
    )
    assert [h["kind"] for h in view["history"]] == ["result_reported", "result_confirmed"]
    assert points(log)[a] == 1.0


def test_a_second_report_by_the_same_player_replaces_theirs():
    log = Log(TournamentSpec("swiss")).start(names(4))
    log.pair()
    t = first_table(log)
    a, b = t["players"]
    log.do({"kind": "result_reported", "match_key": t["match_key"], "by": a, "ranks": [1, 2]})
    log.do({"kind": "result_reported", "match_key": t["match_key"], "by": a, "ranks": [1, 1]})
    assert len(table(log.state, t["match_key"])["reports"]) == 1
    log.do({"kind": "result_confirmed", "match_key": t["match_key"], "by": b})
    assert table(log.state, t["match_key"])["result"]["ranks"] == [1, 1]
    assert points(log)[a] == points(log)[b] == 0.5


def test_report_dispute_correction():
    log = Log(TournamentSpec("round_robin")).start(names(4))
    log.pair()
    t = first_table(log)
    a, b = t["players"]
    key = t["match_key"]
    log.refused(
        {"kind": "result_disputed", "match_key": key, "by": b, "reason": "?"}, "result/nothing_to_dispute"
    )
    log.do({"kind": "result_reported", "match_key": key, "by": a, "ranks": [1, 2]})
    log.do({"kind": "result_disputed", "match_key": key, "by": b, "reason": "I won"})
    assert table(log.state, key)["status"] == "disputed"
    assert {x["match_key"]: x["status"] for x in pending_tables(log.state)}[key] == "disputed"
    log.refused({"kind": "result_confirmed", "match_key": key, "by": b}, "result/disputed")
    log.do({"kind": "result_corrected", "match_key": key, "ranks": [2, 1], "reason": "arbiter saw the board"})
    view = table(log.state, key)
    assert (
        view["status"] == "decided"
        and view["result"]["winner"] == b
        and view["result"]["decided_by"] == "corrected"
    )
    assert [h["kind"] for h in view["history"]] == ["result_reported", "result_disputed", "result_corrected"]
    assert view["history"][1]["reason"] == "I won"
    assert points(log)[b] == 3.0  # round robin: match points by default


def test_reporting_a_decided_table_is_refused_and_changes_nothing():
    log = Log(TournamentSpec("swiss")).start(names(4))
    log.pair()
    t = first_table(log)
    a, b = t["players"]
    key = t["match_key"]
    log.do({"kind": "game_recorded", "match_key": key, "ranks": [2, 1], "match_id": 7})
    assert table(log.state, key)["result"]["winner"] == b
    for event in (
        {"kind": "result_reported", "match_key": key, "by": a, "ranks": [1, 2]},
        {"kind": "result_reported", "match_key": key, "by": b, "ranks": [2, 1]},
        {"kind": "game_recorded", "match_key": key, "ranks": [1, 2], "match_id": 8},
        {"kind": "result_confirmed", "match_key": key, "by": a},
        {"kind": "result_disputed", "match_key": key, "by": a, "reason": "x"},
    ):
        log.refused(event, "result/already_recorded")


def test_bad_result_payloads():
    log = Log(TournamentSpec("single_elimination")).start(names(4))
    log.pair()
    t = first_table(log)
    key, (a, b) = t["match_key"], t["players"]
    log.refused(
        {"kind": "result_reported", "match_key": key, "by": "p99", "ranks": [1, 2]}, "result/not_a_player"
    )
    log.refused({"kind": "result_reported", "match_key": key, "by": a, "ranks": [1]}, "result/bad_ranks")
    log.refused(
        {"kind": "result_reported", "match_key": key, "by": a, "ranks": [1, 1]}, "result/draw_not_allowed"
    )
    log.refused(
        {"kind": "result_reported", "match_key": key, "by": a, "ranks": [1, 2], "games": [[2, 1]]},
        "result/games_mismatch",
    )
    log.refused({"kind": "result_reported", "match_key": "nope", "by": a, "ranks": [1, 2]}, "table/unknown")
    log.refused({"kind": "result_confirmed", "match_key": key, "by": b}, "result/nothing_to_confirm")
    log.refused({"kind": "what", "match_key": key}, "event/unknown_kind")
    log.do({"kind": "result_reported", "match_key": key, "by": a, "ranks": [1, 2], "games": [[1, 2]]})


def test_best_of_three_series_in_elimination_replays_drawn_games():
    log = Log(TournamentSpec("single_elimination", config={"best_of": 3})).start(names(2))
    log.pair()
    key = "W1-1"
    for ranks in ([1, 2], [1, 1], [2, 1], [1, 1]):
        log.do({"kind": "game_recorded", "match_key": key, "ranks": ranks, "match_id": None})
        assert table(log.state, key)["status"] == "open"
    assert pending_tables(log.state)[0]["games_played"] == 4
    log.do({"kind": "game_recorded", "match_key": key, "ranks": [2, 1], "match_id": None})
    view = table(log.state, key)
    assert view["status"] == "decided" and view["result"]["winner"] == "p02" and view["games_played"] == 5
    assert is_complete(log.state)
    assert bracket(log.state)["champion"] == "p02"


def test_best_of_three_in_swiss_counts_drawn_games():
    log = Log(TournamentSpec("swiss", config={"best_of": 3})).start(names(2))
    log.pair()
    key = first_table(log)["match_key"]
    for ranks in ([1, 2], [1, 1]):
        log.do({"kind": "game_recorded", "match_key": key, "ranks": ranks, "match_id": None})
    assert table(log.state, key)["status"] == "open"
    log.do({"kind": "game_recorded", "match_key": key, "ranks": [2, 1], "match_id": None})
    view = table(log.state, key)
    assert view["status"] == "decided" and view["result"]["ranks"] == [
        1,
        1,
    ]  # 1-1 with a drawn game: a drawn match
    rows = standings(log.state)
    assert [r["points"] for r in rows] == [0.5, 0.5]
    # a 2-0 ends the series early
    log2 = Log(TournamentSpec("swiss", config={"best_of": 3})).start(names(2))
    log2.pair()
    for _ in range(2):
        log2.do({"kind": "game_recorded", "match_key": key, "ranks": [1, 2], "match_id": None})
    assert table(log2.state, key)["result"]["games"] == [[1, 2], [1, 2]]


def test_next_round_before_the_round_is_complete_is_refused():
    log = Log(TournamentSpec("swiss")).start(names(6))
    with pytest.raises(FormatError) as info:
        next_round(new_state(TournamentSpec("swiss")), rng=random.Random(0))
    assert info.value.code == "tournament/not_started"
    event = log.pair()
    with pytest.raises(FormatError) as info:
        next_round(log.state, rng=random.Random(0))
    assert info.value.code == "round/not_complete"
    stale = dict(event, round=2, tables=[dict(t, match_key="X" + t["match_key"]) for t in event["tables"]])
    log.refused(stale, "round/not_complete")
    log.refused({"kind": "finished"}, "tournament/not_complete")


def test_round_paired_is_checked():
    log = Log(TournamentSpec("swiss")).start(names(4))
    event = next_round(log.state, rng=random.Random(0))
    twice = dict(
        event,
        tables=[
            event["tables"][0],
            dict(event["tables"][1], players=event["tables"][0]["players"], match_key="R1-T9"),
        ],
    )
    log.refused(twice, "round/duplicate_player")
    stranger = dict(event, tables=[dict(event["tables"][0], players=["p01", "zz"])])
    log.refused(stranger, "round/unknown_player")
    log.refused(dict(event, round=3), "round/out_of_order")
    log.do(event)


def test_registration_rules():
    log = Log(TournamentSpec("round_robin"))
    log.do({"kind": "registered", "player": "a", "seed": 1, "rating": 1500})
    log.refused({"kind": "registered", "player": "a"}, "player/already_registered")
    log.refused({"kind": "checked_in", "player": "b"}, "player/not_registered")
    log.do({"kind": "checked_in", "player": "a"})
    log.do({"kind": "registered", "player": "b"})
    log.do({"kind": "registered", "player": "c"})
    log.do({"kind": "dropped", "player": "c"})
    assert summary(log.state) == dict(summary(log.state), status="registration", players=2, checked_in=1)
    log.refused({"kind": "started", "players": ["a", "c"]}, "player/not_registered")
    log.refused({"kind": "started", "players": ["a"]}, "tournament/too_few_players")
    log.refused(
        {"kind": "round_paired", "round": 1, "stage": "main", "tables": [], "byes": []},
        "tournament/not_started",
    )
    log.do({"kind": "started", "players": ["a", "b"]})
    log.refused(
        {"kind": "registered", "player": "d"}, "player/registration_closed"
    )  # no late entry in a round robin
    log.refused({"kind": "checked_in", "player": "a"}, "tournament/already_started")
    log.refused({"kind": "started", "players": ["a", "b"]}, "tournament/already_started")


def test_after_finished_only_corrections():
    log = drive(TournamentSpec("swiss"), 4, seed=3)
    key = log.state.tables[0].match_key
    a = log.state.tables[0].players[0]
    log.refused({"kind": "registered", "player": "late"}, "tournament/finished")
    log.refused(
        {"kind": "result_reported", "match_key": key, "by": a, "ranks": [1, 2]}, "tournament/finished"
    )
    log.do({"kind": "result_corrected", "match_key": key, "ranks": [1, 1], "reason": "late appeal"})
    check_finished(log, 4)


# -- swiss -------------------------------------------------------------------------------------------


def test_swiss_correction_after_later_rounds_changes_standings():
    log = Log(TournamentSpec("swiss")).start(names(8))
    rng = random.Random(5)
    log.pair()
    play_round(log, rng)
    log.pair()
    play_round(log, rng)
    key = log.state.tables[0].match_key
    a, b = log.state.tables[0].players
    ranks = log.state.tables[0].ranks
    before = points(log)
    flipped = [ranks[1], ranks[0]] if ranks[0] != ranks[1] else [1, 2]
    log.do({"kind": "result_corrected", "match_key": key, "ranks": flipped, "reason": "scoresheet"})
    after = points(log)
    assert after != before
    assert sum(after.values()) == sum(before.values())
    assert after[a] - before[a] == -(after[b] - before[b]) != 0
    log.pair()  # later rounds keep going from the corrected standings
    play_round(log, rng)
    assert is_complete(log.state)


def test_swiss_late_entry_and_drops():
    log = Log(TournamentSpec("swiss", config={"rounds": 4})).start(names(7))
    rng = random.Random(2)
    log.pair()
    log.do({"kind": "registered", "player": "late1", "seed": None, "rating": 1600.0})
    log.do({"kind": "dropped", "player": "p07"})  # dropping with a pending table leaves its result alone
    pending_before = pending_tables(log.state)
    assert all("late1" not in t["players"] for t in pending_before)
    play_round(log, rng)
    r2 = log.pair()
    seated = [p for t in r2["tables"] for p in t["players"]] + r2["byes"]
    assert "late1" in seated and "p07" not in seated
    play_round(log, rng)
    log.do({"kind": "dropped", "player": "p01"})
    log.refused({"kind": "dropped", "player": "p01"}, "player/already_dropped")
    log.refused({"kind": "dropped", "player": "nobody"}, "player/not_registered")
    while not is_complete(log.state):
        event = log.pair()
        assert "p01" not in [p for t in event["tables"] for p in t["players"]] + event["byes"]
        play_round(log, rng)
    log.do({"kind": "finished"})
    rows = check_finished(log, 8)
    by_player = {r["player"]: r for r in rows}
    assert by_player["p01"]["dropped"] and by_player["p07"]["dropped"] and not by_player["late1"]["dropped"]
    assert (
        len([t for t in log.state.tables if "late1" in t.players])
        + sum("late1" in r.byes for r in log.state.rounds)
        == 3
    )
    assert summary(log.state)["players"] == 8 and summary(log.state)["active"] == 6


def test_swiss_forbidden_pairs_are_honoured():
    players = names(8)
    forbidden = [["p01", "p02"], ["p03", "p04"], ["p01", "p05"], ["p06", "p07"]]
    for seed in range(4):
        log = drive(TournamentSpec("swiss", config={"forbidden_pairs": forbidden, "rounds": 3}), 8, seed=seed)
        met = {frozenset(t.players) for t in log.state.tables}
        assert not met & {frozenset(p) for p in forbidden}
        check_finished(log, len(players))
    event = Log(TournamentSpec("swiss", config={"forbidden_pairs": forbidden})).start(players).pair()
    assert any("forbidden" in c for c in event["explanation"]["constraints"])


def test_a_swiss_round_its_forbidden_pairs_make_unpairable_is_a_clear_error_not_an_empty_finish():
    log = Log(TournamentSpec("swiss", config={"rounds": 2, "forbidden_pairs": [["p01", "p02"]]})).start(
        names(2)
    )
    assert not is_complete(log.state)
    with pytest.raises(FormatError) as info:
        next_round(log.state, rng=random.Random(0))
    assert info.value.code == "swiss/no_legal_pairing"
    assert "forbidden pairs" in str(info.value)


def test_a_swiss_whose_players_have_all_met_ends_early_instead_of_pairing_a_rematch():
    log = Log(TournamentSpec("swiss", config={"rounds": 3})).start(names(2))
    log.pair()
    play_round(log, random.Random(0))
    assert is_complete(log.state)
    with pytest.raises(FormatError) as info:
        next_round(log.state, rng=random.Random(0))
    assert info.value.code == "tournament/complete"


def test_a_swiss_group_whose_last_players_have_met_ends_its_stage():
    log = Log(TournamentSpec("swiss", config={"rounds": 3})).start(names(3))
    log.pair()
    play_round(log, random.Random(2))
    # Only the two who met in round one are left: no legal round two exists.
    met = [t.players for t in log.state.tables if len(t.players) == 2][0]
    log.do({"kind": "dropped", "player": next(p for p in names(3) if p not in met)})
    assert is_complete(log.state)


# -- round robin -------------------------------------------------------------------------------------


def test_round_robin_drop_forfeits_the_remaining_games():
    log = Log(TournamentSpec("round_robin")).start(names(4))
    rng = random.Random(1)
    log.pair()
    play_round(log, rng)
    log.do({"kind": "dropped", "player": "p02"})
    log.refused({"kind": "registered", "player": "late"}, "player/registration_closed")
    event = log.pair()
    forfeited = [t for t in log.state.tables if t.round == 2 and "p02" in t.players]
    assert len(forfeited) == 1 and forfeited[0].decided and forfeited[0].forfeit
    assert "p02" in [p for t in event["tables"] for p in t["players"]]
    other = [p for p in forfeited[0].players if p != "p02"][0]
    assert table(log.state, forfeited[0].match_key)["result"]["winner"] == other
    play_round(log, rng)
    log.pair()
    play_round(log, rng)
    log.do({"kind": "finished"})
    rows = check_finished(log, 4)
    assert next(r for r in rows if r["player"] == "p02")["dropped"]


# -- elimination -------------------------------------------------------------------------------------


def _decide_winners(log: Log, winners: dict) -> None:
    for t in pending_tables(log.state):
        a, b = t["players"]
        w = winners.get(t["match_key"], a)
        log.do(
            {
                "kind": "result_corrected",
                "match_key": t["match_key"],
                "ranks": [1, 2] if w == a else [2, 1],
                "reason": "test",
            }
        )


@pytest.mark.parametrize("reset", [True, False])
def test_double_elimination_grand_final_both_ways(reset):
    for losers_champion_wins in (False, True):
        log = Log(TournamentSpec("double_elimination", config={"bracket_reset": reset})).start(names(4))
        while True:
            event = log.pair()
            keys = [t["match_key"] for t in event["tables"]]
            if "GF1" in keys:
                wb, lb = event["tables"][keys.index("GF1")]["players"]
                _decide_winners(log, {"GF1": lb if losers_champion_wins else wb})
                break
            _decide_winners(log, {})
        view = bracket(log.state)
        gf2 = [m for m in view["matches"] if m["match_key"] == "GF2"]
        if not reset:
            assert not gf2 and is_complete(log.state)
            assert view["champion"] == (lb if losers_champion_wins else wb)
            continue
        if not losers_champion_wins:
            assert gf2[0]["status"] == "not_needed" and is_complete(log.state) and view["champion"] == wb
            continue
        assert not is_complete(log.state) and view["champion"] is None
        event = log.pair()
        assert [t["match_key"] for t in event["tables"]] == ["GF2"] and event["tables"][0]["players"] == [
            lb,
            wb,
        ]  # winner of GF1 first
        _decide_winners(log, {"GF2": wb})
        assert is_complete(log.state) and bracket(log.state)["champion"] == wb
        log.do({"kind": "finished"})
        rows = check_finished(log, 4)
        assert [r["player"] for r in rows[:2]] == [wb, lb]


def test_elimination_correction_after_the_bracket_moved_on_is_refused():
    log = Log(TournamentSpec("single_elimination")).start(names(4))
    log.pair()
    _decide_winners(log, {})
    # before the next round is paired, a correction may change the winner
    log.do(
        {"kind": "result_corrected", "match_key": "W1-1", "ranks": [2, 1], "reason": "wrong winner entered"}
    )
    log.pair()
    log.refused(
        {"kind": "result_corrected", "match_key": "W1-1", "ranks": [1, 2], "reason": "again"},
        "result/bracket_moved_on",
    )
    # a correction that keeps the winner (e.g. adds the games) is fine
    log.do(
        {
            "kind": "result_corrected",
            "match_key": "W1-1",
            "ranks": [2, 1],
            "games": [[2, 1]],
            "reason": "games",
        }
    )
    final = pending_tables(log.state)[0]
    assert final["players"][0] == "p04"
    _decide_winners(log, {})
    log.do({"kind": "finished"})
    log.refused(
        {"kind": "result_corrected", "match_key": "W2-1", "ranks": [1, 1], "reason": "x"},
        "result/draw_not_allowed",
    )
    log.do(
        {"kind": "result_corrected", "match_key": "W2-1", "ranks": [2, 1], "reason": "final result swapped"}
    )
    assert bracket(log.state)["champion"] == standings(log.state)[0]["player"] == final["players"][1]


def test_elimination_drop_at_an_open_table_is_a_forfeit_at_once():
    log = Log(TournamentSpec("double_elimination")).start(names(8))
    log.pair()
    mine = next(t for t in log.state.tables if "p01" in t.players)
    log.do({"kind": "dropped", "player": "p01"})
    view = table(log.state, mine.match_key)
    assert view["status"] == "decided" and view["result"]["forfeit"] and view["result"]["winner"] != "p01"
    assert view["result"]["decided_by"] == "forfeit"


def test_elimination_drop_between_rounds_forfeits_the_next_table():
    log = Log(TournamentSpec("double_elimination")).start(names(8))
    log.pair()
    _decide_winners(log, {})
    log.do({"kind": "dropped", "player": "p01"})
    event = log.pair()
    assert event["explanation"]["forfeits"]
    mine = [t for t in log.state.tables if t.round == 2 and "p01" in t.players]
    assert len(mine) == 1 and mine[0].decided and mine[0].forfeit
    assert table(log.state, mine[0].match_key)["result"]["winner"] != "p01"
    rng = random.Random(4)
    play_round(log, rng)
    while not is_complete(log.state):
        log.pair()
        play_round(log, rng)
    log.do({"kind": "finished"})
    rows = check_finished(log, 8)
    row = next(r for r in rows if r["player"] == "p01")
    assert row["dropped"] and row["rank"] > 1
    assert sum(1 for t in log.state.tables if "p01" in t.players and t.forfeit) == 2  # two forfeits = out


def test_bracket_view_before_and_during():
    log = Log(TournamentSpec("single_elimination", config={"third_place": True}))
    assert bracket(log.state) is None
    log.start(names(5))
    view = bracket(log.state)
    assert view["kind"] == "single" and all(m["status"] in ("ready", "waiting") for m in view["matches"])
    sources = {m["match_key"]: [s["source"] for s in m["slots"]] for m in view["matches"]}
    assert "W1-1" not in sources and sources["W1-2"] == ["seed 4", "seed 5"]  # 1 v 8 is a bye
    assert {m["bracket"] for m in view["matches"]} == {"winners", "final", "third_place"}
    log.pair()
    view = bracket(log.state)
    assert {m["match_key"]: m["status"] for m in view["matches"]}["W1-2"] == "open"
    assert view["matches"][0]["winner_to"] == "W2-1" and view["matches"][0]["loser_to"] is None


# -- pods --------------------------------------------------------------------------------------------


def test_pods_final_and_placement_points():
    log = Log(TournamentSpec("pods", 4, {"rounds": 2})).start(names(8))
    log.pair()
    for t in pending_tables(log.state):
        log.do(
            {"kind": "game_recorded", "match_key": t["match_key"], "ranks": [1, 2, 2, 4], "match_id": None}
        )
    rows = standings(log.state)
    assert rows[0]["points"] == 4.0 and rows[0]["explain"]["PTS"] == [
        [1, rows[0]["explain"]["PTS"][0][1], 4.0]
    ]
    assert sorted(r["points"] for r in rows) == [1, 1, 2.5, 2.5, 2.5, 2.5, 4, 4]
    log.pair()
    play_round(log, random.Random(1))
    event = log.pair()
    assert event["stage"] == "final" and event["tables"][0]["match_key"] == "FINAL"
    finalists = event["tables"][0]["players"]
    assert finalists == [r["player"] for r in standings(log.state)[:4]]
    log.do({"kind": "result_reported", "match_key": "FINAL", "by": finalists[0], "ranks": [4, 3, 2, 1]})
    log.do({"kind": "result_confirmed", "match_key": "FINAL", "by": finalists[2]})
    log.do({"kind": "finished"})
    rows = check_finished(log, 8)
    assert [r["player"] for r in rows[:4]] == finalists[::-1]


def test_pods_correction_that_would_change_the_final_is_refused():
    log = Log(TournamentSpec("pods", 3, {"rounds": 1, "min_seats": 3})).start(names(6))
    log.pair()
    tables = pending_tables(log.state)
    for t in tables:
        log.do({"kind": "game_recorded", "match_key": t["match_key"], "ranks": [1, 2, 3], "match_id": None})
    log.pair()
    key = tables[0]["match_key"]
    log.refused(
        {"kind": "result_corrected", "match_key": key, "ranks": [3, 2, 1], "reason": "x"},
        "result/bracket_moved_on",
    )
    log.do({"kind": "result_corrected", "match_key": key, "ranks": [1, 2, 2], "reason": "tie for second"})


def test_pods_late_entry_drop_and_pod_winners():
    log = Log(TournamentSpec("pods", 4, {"rounds": 3, "advance": "pod_winners"})).start(names(11))
    rng = random.Random(3)
    log.pair()
    play_round(log, rng)
    log.do({"kind": "registered", "player": "late", "seed": None, "rating": None})
    log.do({"kind": "dropped", "player": "p03"})
    event = log.pair()
    seated = [p for t in event["tables"] for p in t["players"]] + event["byes"]
    assert "late" in seated and "p03" not in seated and len(seated) == 11
    play_round(log, rng)
    log.pair()
    play_round(log, rng)
    log.refused({"kind": "registered", "player": "late2"}, "player/registration_closed")
    event = log.pair()
    assert event["stage"] == "final" and 3 <= len(event["tables"][0]["players"]) <= 4
    play_round(log, rng)
    log.do({"kind": "finished"})
    check_finished(log, 12)


def test_pods_with_a_minimum_that_forces_byes():
    log = Log(TournamentSpec("pods", 4, {"min_seats": 4, "rounds": 2, "final_pod": False})).start(names(6))
    event = log.pair()
    assert [len(t["players"]) for t in event["tables"]] == [4] and len(event["byes"]) == 2
    play_round(log, random.Random(0))
    log.pair()
    play_round(log, random.Random(0))
    log.do({"kind": "finished"})
    check_finished(log, 6)


# -- groups ------------------------------------------------------------------------------------------


def test_groups_correction_that_would_reseed_the_playoff_is_refused():
    log = Log(TournamentSpec("groups_playoffs", config={"groups": 2, "advance_per_group": 1})).start(names(6))
    while True:
        event = log.pair()
        if event["stage"] == "playoff":
            break
        for t in pending_tables(log.state):  # the better seed wins every group game
            a, b = t["players"]
            log.do(
                {
                    "kind": "game_recorded",
                    "match_key": t["match_key"],
                    "ranks": [1, 2] if a < b else [2, 1],
                    "match_id": None,
                }
            )
    # snake groups: A = p01, p04, p05; B = p02, p03, p06
    assert log.state.playoff_seeds == ("p01", "p02")
    assert event["explanation"]["playoff_seeds"] == ["p01", "p02"]
    by_pair = {frozenset(t.players): t for t in log.state.tables if t.stage == "group"}
    top = by_pair[frozenset(("p01", "p04"))]
    flipped = [2 if p == "p01" else 1 for p in top.players]
    log.refused(
        {"kind": "result_corrected", "match_key": top.match_key, "ranks": flipped, "reason": "x"},
        "result/bracket_moved_on",
    )
    log.do({"kind": "result_corrected", "match_key": "W1-1", "ranks": [1, 2], "reason": "final"})
    log.do({"kind": "dropped", "player": "p05"})  # a drop after the seeding does not reseed the playoff
    low = by_pair[frozenset(("p04", "p05"))]
    log.do(
        {
            "kind": "result_corrected",
            "match_key": low.match_key,
            "ranks": [2 if p == "p04" else 1 for p in low.players],
            "reason": "y",
        }
    )
    rows = standings(log.state)
    assert {r["player"] for r in rows[:2]} == {"p01", "p02"} and rows[0]["group"] in ("A", "B")
    assert [r["rank"] for r in rows] == sorted(r["rank"] for r in rows)


def test_groups_too_few_players():
    log = Log(TournamentSpec("groups_playoffs", config={"groups": 3}))
    for p in names(5):
        log.do({"kind": "registered", "player": p})
    log.refused({"kind": "started", "players": names(5)}, "tournament/too_few_players")


# -- spec --------------------------------------------------------------------------------------------


def test_spec_check_fills_defaults_and_names_bad_keys():
    spec = spec_check(TournamentSpec("swiss"))
    assert spec.config == {
        "rounds": "auto",
        "scoring": "chess",
        "tiebreaks": ["DE", "BH-C1", "BH", "SB"],
        "forbidden_pairs": [],
        "best_of": 1,
        "acceleration": "none",
        "missed_rounds": "zero",
    }
    assert spec_check({"format": "pods", "seats_per_match": 5}).config["placement_points"] == [5, 4, 3, 2, 1]
    assert (
        spec_check(TournamentSpec("groups_playoffs", config={"group_format": "swiss"})).config["tiebreaks"][1]
        == "BH-C1"
    )
    bad = [
        (TournamentSpec("chess960"), "format"),
        (TournamentSpec("swiss", config={"roundz": 3}), "roundz"),
        (TournamentSpec("swiss", config={"rounds": 0}), "rounds"),
        (TournamentSpec("swiss", config={"tiebreaks": ["XX"]}), "tiebreaks"),
        (TournamentSpec("swiss", config={"scoring": {"win": 2}}), "scoring"),
        (TournamentSpec("single_elimination", config={"best_of": 2}), "best_of"),
        (TournamentSpec("double_elimination", config={"bracket_reset": "yes"}), "bracket_reset"),
        (TournamentSpec("pods", 2), "seats_per_match"),
        (TournamentSpec("swiss", 3), "seats_per_match"),
        (TournamentSpec("pods", 3, {"min_seats": 4}), "min_seats"),
        (TournamentSpec("pods", 4, {"advance": "all"}), "advance"),
        (TournamentSpec("groups_playoffs", config={"playoff": "swiss"}), "playoff"),
    ]
    for spec, key in bad:
        with pytest.raises(FormatError) as info:
            spec_check(spec)
        assert info.value.code == "tournament/bad_config" and info.value.detail.startswith(key), info.value


def test_custom_scoring():
    log = Log(TournamentSpec("round_robin", config={"scoring": {"win": 2, "draw": 1, "loss": 0}})).start(
        names(2)
    )
    log.pair()
    key = first_table(log)["match_key"]
    log.do({"kind": "game_recorded", "match_key": key, "ranks": [1, 1], "match_id": 1})
    assert sorted(points(log).values()) == [1.0, 1.0]


def test_spec_describe_covers_every_format():
    described = spec_describe()
    assert set(described) == set(FORMATS)
    json.dumps(described)
    for fmt, info in described.items():
        defaults = {k: v["default"] for k, v in info["options"].items()}
        seats = info["seats_per_match"]["default"]
        checked = spec_check(TournamentSpec(fmt, seats, {}))
        assert set(checked.config) == set(defaults)
        assert all(v["doc"] for v in info["options"].values())
