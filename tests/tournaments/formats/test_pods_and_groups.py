import random
from collections import Counter

import pytest

from tournaments.formats import (
    MatchResult,
    PodConfig,
    PodResult,
    WinDrawLoss,
    bracket_progress,
    groups_to_bracket,
    make_pod_round,
    placement_points,
    playoff_seeds,
    pod_sizes,
    pod_standings,
    pods_advance,
    pods_final_placements,
    round_robin_schedule,
    snake_groups,
    snake_pods,
    standings,
)

COUNTS = [3, 4, 5, 7, 8, 16, 33]


@pytest.mark.parametrize(
    "n, size, min_size, sizes, byes",
    [
        (3, 4, 3, (3,), 0),
        (4, 4, 3, (4,), 0),
        (5, 4, 3, (4,), 1),
        (7, 4, 3, (4, 3), 0),
        (8, 4, 3, (4, 4), 0),
        (33, 4, 3, (4, 4, 4, 4, 4, 4, 3, 3, 3), 0),
        (11, 5, 3, (4, 4, 3), 0),
        (7, 3, 3, (3, 3), 1),
    ],
)
def test_pod_sizes(n, size, min_size, sizes, byes):
    assert pod_sizes(n, size, min_size) == (sizes, byes)


def test_snake_seeding_balances_pods():
    pods = snake_pods(list(range(1, 9)), (4, 4))
    assert pods == ((1, 4, 5, 8), (2, 3, 6, 7))
    assert sum(pods[0]) == sum(pods[1])


@pytest.mark.parametrize(
    "finish, expected",
    [
        ((("a",), ("b",), ("c",), ("d",)), {"a": 4, "b": 3, "c": 2, "d": 1}),
        ((("a",), ("b", "c"), ("d",)), {"a": 4, "b": 2.5, "c": 2.5, "d": 1}),  # 2nd-3rd share (3+2)/2
        ((("a", "b", "c", "d"),), {p: 2.5 for p in "abcd"}),
        ((("a",), ("b",), ("c",)), {"a": 4, "b": 3, "c": 2}),  # a pod of 3 uses the first values
    ],
)
def test_placement_points_ties_share_the_average(finish, expected):
    assert placement_points(PodResult(1, finish), (4, 3, 2, 1)) == expected


@pytest.mark.parametrize("n", COUNTS)
def test_pods_event_end_to_end(n):
    config = PodConfig(size=4, min_size=3)
    rnd = random.Random(n)
    seeds = [f"s{i}" for i in range(n)]
    rounds, results = [], []
    ranked = seeds
    for r in range(1, 4):
        pod_round = make_pod_round(ranked, r, config)
        seated = [p for pod in pod_round.pods for p in pod]
        assert len(seated) == len(set(seated)) and sorted(seated + list(pod_round.byes)) == sorted(seeds)
        assert all(config.min_size <= len(pod) <= config.size for pod in pod_round.pods)
        rounds.append(pod_round)
        for pod in pod_round.pods:
            order = list(pod)
            rnd.shuffle(order)
            results.append(PodResult(r, tuple((p,) for p in order)))
        ranked = [s.player for s in pod_standings(seeds, rounds, results, config)]
    table = pod_standings(seeds, rounds, results, config)
    finalists = pods_advance(table, rounds[-1], results[-len(rounds[-1].pods) :], count=min(4, n))
    final = PodResult(4, tuple((p,) for p in finalists))
    placements = pods_final_placements(table, final)
    assert [p for _, p in placements] and sorted(p for _, p in placements) == sorted(seeds)
    assert placements[0] == (1, finalists[0])
    winners = pods_advance(table, rounds[-1], results[-len(rounds[-1].pods) :], advance="pod_winners")
    assert len(winners) == len(rounds[-1].pods)


def test_snake_groups_and_cross_seeding():
    assert snake_groups(list(range(1, 9)), 2) == ((1, 4, 5, 8), (2, 3, 6, 7))
    bracket = groups_to_bracket([["A1", "A2", "A3"], ["B1", "B2", "B3"]], 2)
    first = {frozenset(bracket.seeds[s.ref - 1] for s in m.slots) for m in bracket.matches if m.round == 1}
    assert first == {frozenset(("A1", "B2")), frozenset(("B1", "A2"))}
    seeds = playoff_seeds([["A1", "A2"], ["B1", "B2"], ["C1", "C2"], ["D1", "D2"]], 2)
    assert seeds[:4] == ("A1", "B1", "C1", "D1")
    # Same-group players sit in opposite halves of the 8-bracket (halves: seeds {1,8,4,5} / {2,7,3,6}).
    top = {seeds[k - 1] for k in (1, 8, 4, 5)}
    for g in "ABCD":
        assert (f"{g}1" in top) != (f"{g}2" in top)


@pytest.mark.parametrize("n", COUNTS)
@pytest.mark.parametrize("double", [False, True])
def test_groups_then_playoffs_end_to_end(n, double):
    rnd = random.Random(n)
    seeds = list(range(1, n + 1))
    groups = snake_groups(seeds, max(1, n // 4))
    group_tables = []
    for group in groups:
        results = []
        if len(group) > 1:
            for rd in round_robin_schedule(group):
                for p in rd.pairings:
                    results.append(MatchResult(rd.number, p.seat0, p.seat1, rnd.choice(list(WinDrawLoss))))
            games = Counter(x for r in results for x in (r.seat0, r.seat1))
            assert set(games.values()) == {len(group) - 1}
        group_tables.append([row.player for row in standings(group, results)])
    top = 2 if n > 3 else 3
    bracket = groups_to_bracket(group_tables, top, double=double)
    reports = {}
    while True:
        progress = bracket_progress(bracket, reports)
        if not progress.ready:
            break
        for mid in progress.ready:
            reports[mid] = rnd.choice(progress.slots[mid])
    assert progress.finished and progress.champion is not None
    assert len(progress.placements) == len(bracket.seeds)
