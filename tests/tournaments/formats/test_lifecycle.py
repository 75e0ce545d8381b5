"""The tournament log end to end: every format driven purely from its events, with seeded random
results; replay equals the incremental fold; state and projections round-trip through JSON."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tournaments.formats.common import FormatError
from tournaments.formats.lifecycle import (
    TournamentSpec,
    apply,
    bracket,
    is_complete,
    new_state,
    next_round,
    pending_tables,
    replay,
    replay_partial,
    standings,
    state_from_json,
    state_to_json,
    summary,
    table,
)

COUNTS = [3, 4, 5, 7, 8, 16, 33]


def names(n: int, prefix: str = "p") -> list[str]:
    return [f"{prefix}{i:02d}" for i in range(1, n + 1)]


class Log:
    """An event log and the state folded from it, as the service keeps them."""

    def __init__(self, spec: TournamentSpec):
        self.spec = spec
        self.state = new_state(spec)
        self.events: list[dict] = []

    def do(self, event: dict) -> None:
        self.state = apply(self.state, event)
        self.events.append(event)

    def refused(self, event: dict, code: str) -> None:
        before = self.state
        with pytest.raises(FormatError) as info:
            apply(self.state, event)
        assert info.value.code == code, info.value
        assert self.state == before

    def start(self, players: list[str]) -> Log:
        for p in players:
            self.do({"kind": "registered", "player": p, "seed": None, "rating": None})
        self.do({"kind": "started", "players": list(players)})
        return self

    def pair(self, rng: random.Random | None = None) -> dict:
        event = next_round(self.state, rng=rng or random.Random(0))
        self.do(event)
        return event


def decide(log: Log, rng: random.Random, key: str, players: list[str], *, draws: bool = True) -> None:
    """Decide one table by one of the ways the service records results."""
    elimination = log.state.spec.format in ("single_elimination", "double_elimination") or any(
        t.match_key == key and t.stage == "playoff" for t in log.state.tables
    )
    draws = draws and not elimination
    pod = len(players) > 2
    way = rng.random()
    if way < 0.45:  # the platform records each game of the series
        while table(log.state, key)["status"] != "decided":
            if pod:
                ranks = [rng.randint(1, len(players)) for _ in players]
            else:
                x = rng.random()
                ranks = (
                    [1, 1] if x < 0.15 else [1, 2] if x < 0.6 else [2, 1]
                )  # a drawn game is replayed in elimination
            log.do(
                {"kind": "game_recorded", "match_key": key, "ranks": ranks, "match_id": rng.randint(1, 10**6)}
            )
        return
    if pod:
        ranks = [rng.randint(1, len(players)) for _ in players]
    else:
        x = rng.random()
        ranks = [1, 1] if (draws and x < 0.15) else [1, 2] if x < 0.6 else [2, 1]
    reporter = rng.choice(players)
    log.do({"kind": "result_reported", "match_key": key, "by": reporter, "ranks": ranks, "games": None})
    other = rng.choice([p for p in players if p != reporter])
    if way < 0.85:
        log.do({"kind": "result_confirmed", "match_key": key, "by": other})
    else:
        log.do(
            {"kind": "result_disputed", "match_key": key, "by": other, "reason": "that is not what happened"}
        )
        fixed = list(reversed(ranks))
        log.do(
            {
                "kind": "result_corrected",
                "match_key": key,
                "ranks": fixed,
                "games": None,
                "reason": "organiser ruling",
            }
        )


def play_round(log: Log, rng: random.Random, **kw) -> None:
    for t in pending_tables(log.state):
        decide(log, rng, t["match_key"], t["players"], **kw)


def drive(spec: TournamentSpec, n: int, seed: int = 0, *, finish: bool = True, before_round=None) -> Log:
    rng = random.Random(seed)
    log = Log(spec).start(names(n))
    rounds = 0
    while not is_complete(log.state):
        if before_round:
            before_round(log, rng, rounds)
        if is_complete(log.state):
            break
        log.pair(rng)
        play_round(log, rng)
        rounds += 1
        assert rounds < 200
    if finish:
        log.do({"kind": "finished"})
    return log


def check_json(state) -> None:
    for view in (standings(state), bracket(state), pending_tables(state), summary(state)):
        assert json.loads(json.dumps(view)) == view
    for t in state.tables:
        view = table(state, t.match_key)
        assert json.loads(json.dumps(view)) == view
    assert state_from_json(json.loads(json.dumps(state_to_json(state)))) == state


def check_finished(log: Log, n: int) -> list[dict]:
    state = log.state
    assert state.status == "finished" and is_complete(state)
    assert all(t.decided for t in state.tables) and pending_tables(state) == []
    rows = standings(state)
    assert sorted(r["player"] for r in rows) == sorted(state.everyone)
    assert len(rows) == n
    ranks = [r["rank"] for r in rows]
    assert ranks == sorted(ranks) and ranks[0] == 1
    for k, r in enumerate(rows):  # competition ranking: a rank never exceeds the row's position
        assert 1 <= r["rank"] <= k + 1
    with pytest.raises(FormatError) as info:
        next_round(state, rng=random.Random(0))
    assert info.value.code == "tournament/complete"
    assert summary(state)["status"] == "finished"
    check_json(state)
    assert replay(log.spec, json.loads(json.dumps(log.events))) == state
    return rows


def check_points_order(rows):
    points = [r["points"] for r in rows]
    assert points == sorted(points, reverse=True)
    ranks = [r["rank"] for r in rows]
    assert len(set(ranks)) == len(ranks)


@pytest.mark.parametrize("n", COUNTS)
def test_round_robin(n):
    log = drive(TournamentSpec("round_robin"), n, seed=n)
    rows = check_finished(log, n)
    check_points_order(rows)
    pairs = [frozenset(t.players) for t in log.state.tables]
    assert len(pairs) == len(set(pairs)) == n * (n - 1) // 2  # everyone met everyone once
    assert bracket(log.state) is None


def test_round_robin_two_legs():
    log = drive(TournamentSpec("round_robin", config={"legs": 2, "scoring": "chess"}), 5, seed=1)
    rows = check_finished(log, 5)
    check_points_order(rows)
    assert len(log.state.tables) == 20


@pytest.mark.parametrize("n", COUNTS)
def test_swiss(n):
    log = drive(TournamentSpec("swiss"), n, seed=n)
    rows = check_finished(log, n)
    check_points_order(rows)
    rounds = len(log.state.rounds)
    assert rounds == max(1, (n - 1).bit_length())
    pairs = [frozenset(t.players) for t in log.state.tables]
    assert len(pairs) == len(set(pairs))  # no rematches
    byes = [p for r in log.state.rounds for p in r.byes]
    assert len(byes) == len(set(byes)) == (rounds if n % 2 else 0)


@pytest.mark.parametrize("n", COUNTS)
@pytest.mark.parametrize("third_place", [False, True])
def test_single_elimination(n, third_place):
    log = drive(TournamentSpec("single_elimination", config={"third_place": third_place}), n, seed=n)
    rows = check_finished(log, n)
    view = bracket(log.state)
    assert view["champion"] == rows[0]["player"] and [r["rank"] for r in rows].count(1) == 1
    assert rows[1]["rank"] == 2
    assert len(log.state.tables) == n - 1 + (1 if third_place and n >= 4 else 0)
    if third_place and n >= 4:
        assert [r["rank"] for r in rows[:4]] == [1, 2, 3, 4]


@pytest.mark.parametrize("n", COUNTS)
def test_double_elimination(n):
    log = drive(TournamentSpec("double_elimination"), n, seed=n)
    rows = check_finished(log, n)
    view = bracket(log.state)
    assert view["champion"] == rows[0]["player"] and [r["rank"] for r in rows].count(1) == 1
    losses = {p: 0 for p in log.state.players}
    for t in log.state.tables:
        for p, r in zip(t.players, t.ranks):
            losses[p] += r == 2
    assert sorted(losses.values())[-1] == 2  # everyone but the champion leaves with two losses
    assert sum(1 for v in losses.values() if v < 2) == 1 and losses[view["champion"]] <= 1


@pytest.mark.parametrize("n", COUNTS + [12])
@pytest.mark.parametrize("size", [3, 4, 5])
def test_pods(n, size):
    log = drive(TournamentSpec("pods", size), n, seed=n * size)
    rows = check_finished(log, n)
    final = [t for t in log.state.tables if t.stage == "final"]
    assert len(final) == 1 and len(final[0].players) == min(size, n)
    finalists = set(final[0].players)
    assert {r["player"] for r in rows[: len(finalists)]} == finalists
    rest = rows[len(finalists) :]
    assert [r["points"] for r in rest] == sorted((r["points"] for r in rest), reverse=True)
    for t in log.state.tables:
        assert 3 <= len(t.players) <= size


def test_pods_twelve_in_pods_of_four():
    log = drive(TournamentSpec("pods", 4, {"rounds": 3}), 12, seed=12)
    check_finished(log, 12)
    for r in log.state.rounds[:3]:
        assert len(r.match_keys) == 3 and r.byes == ()
    assert log.state.rounds[-1].stage == "final"


def _groups_spec(n: int, **extra) -> TournamentSpec:
    groups = 1 if n < 4 else 2 if n < 16 else 4
    return TournamentSpec("groups_playoffs", config={"groups": groups, **extra})


@pytest.mark.parametrize("n", COUNTS)
@pytest.mark.parametrize(
    "extra",
    [{}, {"group_format": "swiss", "playoff": "double_elimination"}],
    ids=["rr-single", "swiss-double"],
)
def test_groups_playoffs(n, extra):
    spec = _groups_spec(n, **extra)
    log = drive(spec, n, seed=n)
    rows = check_finished(log, n)
    seeds = log.state.playoff_seeds
    groups = spec.config["groups"]
    assert len(seeds) == 2 * groups
    assert {r["player"] for r in rows[: len(seeds)]} == set(seeds)
    assert bracket(log.state)["champion"] == rows[0]["player"]
    keys = [t.match_key for t in log.state.tables if t.stage == "group"]
    assert all(k[0] in "ABCD" and "-R" in k for k in keys)
    # within each group, qualifiers are the top of the group table
    for row in rows:
        assert row["group_rank"] <= 2 or row["player"] not in seeds


# -- replay = fold; JSON -----------------------------------------------------------------------------

SPECS = [
    TournamentSpec("round_robin"),
    TournamentSpec("swiss", config={"best_of": 3}),
    TournamentSpec("single_elimination", config={"best_of": [1, 3], "third_place": True}),
    TournamentSpec("double_elimination", config={"best_of": 3}),
    TournamentSpec("pods", 4),
    TournamentSpec("groups_playoffs", config={"groups": 2, "group_format": "swiss"}),
]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=st.sampled_from(SPECS), n=st.integers(4, 12), seed=st.integers(0, 10**6), drops=st.integers(0, 2))
def test_replay_equals_incremental_state(spec, n, seed, drops):
    def before_round(log, rng, rounds):
        if rounds == 1:
            active = [p for p in log.state.everyone if p not in log.state.dropped_set]
            for p in rng.sample(active, min(drops, len(active) - 3)):
                log.do({"kind": "dropped", "player": p})

    log = drive(spec, n, seed, before_round=before_round)
    assert replay(spec, log.events) == log.state
    assert replay(spec, json.loads(json.dumps(log.events))) == log.state
    check_json(log.state)
    # Every prefix replays to a state from which the rest of the log applies.
    cut = random.Random(seed).randrange(len(log.events))
    state = replay(spec, log.events[:cut])
    for event in log.events[cut:]:
        state = apply(state, event)
    assert state == log.state


def test_replay_partial_reports_the_first_failure():
    log = Log(TournamentSpec("swiss")).start(names(4))
    log.pair()
    events = log.events + [{"kind": "finished"}, {"kind": "dropped", "player": "p01"}]
    state, failure, index = replay_partial(log.spec, events)
    assert state == log.state and failure.code == "tournament/not_complete" and index == len(log.events)
    with pytest.raises(FormatError) as info:
        replay(log.spec, events)
    assert info.value.code == "tournament/not_complete"


def test_projections_mid_tournament_are_json():
    for spec in SPECS:
        log = Log(spec).start(names(8))
        log.pair()
        check_json(log.state)
        first = pending_tables(log.state)[0]
        log.do(
            {
                "kind": "result_reported",
                "match_key": first["match_key"],
                "by": first["players"][0],
                "ranks": list(range(1, len(first["players"]) + 1)),
            }
        )
        check_json(log.state)
        assert summary(log.state)["status"] == "running"
