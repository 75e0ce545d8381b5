from collections import Counter
from itertools import combinations

import pytest

from tournaments.formats import FormatError, MatchResult, WinDrawLoss, league_standings, round_robin_schedule

COUNTS = [2, 3, 4, 5, 7, 8, 16, 33]


@pytest.mark.parametrize("n", COUNTS)
@pytest.mark.parametrize("legs", [1, 2])
def test_schedule_structure(n, legs):
    players = [f"p{i}" for i in range(n)]
    rounds = round_robin_schedule(players, legs=legs)
    per_leg = n - 1 if n % 2 == 0 else n
    assert len(rounds) == per_leg * legs
    meetings = Counter()
    seat0 = Counter()
    games = Counter()
    byes = Counter()
    for rnd in rounds:
        seen = [p for pairing in rnd.pairings for p in pairing.players]
        if rnd.bye is not None:
            seen.append(rnd.bye)
            byes[rnd.bye] += 1
        assert sorted(seen) == sorted(players)  # everyone exactly once per round
        for pairing in rnd.pairings:
            meetings[frozenset(pairing.players)] += 1
            seat0[pairing.seat0] += 1
            games[pairing.seat0] += 1
            games[pairing.seat1] += 1
    assert set(meetings) == {frozenset(c) for c in combinations(players, 2)}
    assert set(meetings.values()) == {legs}
    assert all(games[p] == (n - 1) * legs for p in players)
    assert (n % 2 == 0 and not byes) or all(byes[p] == legs for p in players)
    for p in players:  # balanced first seat: counts differ by at most one
        assert abs(2 * seat0[p] - games[p]) <= 1


def test_second_leg_mirrors_first():
    rounds = round_robin_schedule(list("abcd"), legs=2)
    for first, second in zip(rounds[:3], rounds[3:]):
        assert [(p.seat1, p.seat0) for p in first.pairings] == [(p.seat0, p.seat1) for p in second.pairings]


def test_bad_input():
    with pytest.raises(FormatError) as err:
        round_robin_schedule(["a"])
    assert err.value.code == "round_robin/too_few_players"


def test_league_standings_three_one_zero():
    # a beats b, a draws c, b beats c: a 3+1 = 4, b 3, c 1.
    results = [
        MatchResult(1, "a", "b", WinDrawLoss.WIN),
        MatchResult(2, "c", "a", WinDrawLoss.DRAW),
        MatchResult(3, "b", "c", WinDrawLoss.WIN),
    ]
    rows = league_standings(["a", "b", "c"], results)
    assert [(r.player, r.points) for r in rows] == [("a", 4.0), ("b", 3.0), ("c", 1.0)]
