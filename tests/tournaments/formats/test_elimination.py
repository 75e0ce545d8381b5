import random
from collections import Counter

import pytest

from tournaments.formats import (
    Report,
    bracket_progress,
    double_elimination,
    seed_players,
    seeding_order,
    single_elimination,
)

COUNTS = [2, 3, 4, 5, 7, 8, 16, 33]


def play_out(bracket, rnd, pick=None):
    """Report random winners until nothing is ready; returns (progress, reports, losses)."""
    reports = {}
    losses = Counter()
    while True:
        progress = bracket_progress(bracket, reports)
        assert progress.problems == ()
        if not progress.ready:
            return progress, reports, losses
        for mid in progress.ready:
            a, b = progress.slots[mid]
            winner = pick(mid, a, b) if pick else rnd.choice((a, b))
            reports[mid] = winner
            losses[b if winner == a else a] += 1


def test_seeding_order_top_seeds_meet_last():
    assert seeding_order(16)[:4] == (1, 16, 8, 9)
    assert seeding_order(8) == (1, 8, 4, 5, 2, 7, 3, 6)


@pytest.mark.parametrize("n", COUNTS)
@pytest.mark.parametrize("third_place", [False, True])
def test_single_elimination_end_to_end(n, third_place):
    seeds = seed_players(list(range(1, n + 1)), "random", rng=n)
    bracket = single_elimination(seeds, third_place=third_place)
    progress, reports, losses = play_out(bracket, random.Random(n))
    assert progress.finished and progress.champion is not None
    assert losses[progress.champion] == 0
    # Everyone else loses exactly once, except third-place match players who may lose twice.
    assert all(losses[p] >= 1 for p in seeds if p != progress.champion)
    placed = [p for _, p in progress.placements]
    assert sorted(placed) == sorted(seeds)  # complete, no one twice
    assert progress.placements[0] == (1, progress.champion)
    # Each round: no one plays twice.
    for rnd in {m.round for m in bracket.matches}:
        players = [
            p
            for m in bracket.matches
            if m.round == rnd and m.bracket == "winners"
            for p in progress.slots[m.id]
        ]
        assert len(players) == len(set(players))
    played = len([m for m in bracket.matches if progress.status[m.id] == "done"])
    assert played == n - 1 + (1 if bracket.third_place else 0)


@pytest.mark.parametrize("n", [5, 6, 7, 12])
def test_byes_go_to_top_seeds(n):
    seeds = list(range(1, n + 1))
    bracket = single_elimination(seeds)
    first_round = {p for m in bracket.matches if m.round == 1 for s in m.slots for p in [s.ref]}
    size = bracket.size
    with_bye = [s for s in seeds if s not in first_round]
    assert with_bye == seeds[: size - n]


def test_best_of_per_round_and_bad_score():
    bracket = single_elimination(list("abcd"), best_of=[1, 3])
    assert [m.best_of for m in bracket.matches if m.bracket == "winners"] == [1, 1, 3]
    progress = bracket_progress(bracket, {"W1-1": "a", "W1-2": "b", "W2-1": Report("a", (1, 0))})
    assert progress.problems[0].code == "bracket/bad_score"
    progress = bracket_progress(bracket, {"W1-1": "a", "W1-2": "b", "W2-1": Report("a", (2, 1))})
    assert progress.champion == "a"


def test_problems_are_returned_not_raised():
    bracket = single_elimination(list("abcd"))
    progress = bracket_progress(bracket, {"W9-9": "a", "W1-1": "z", "W2-1": "a"})
    assert {p.code for p in progress.problems} == {
        "bracket/unknown_match",
        "bracket/wrong_winner",
        "bracket/not_ready",
    }


@pytest.mark.parametrize("n", COUNTS)
@pytest.mark.parametrize("reset", [False, True])
def test_double_elimination_end_to_end(n, reset):
    seeds = list(range(1, n + 1))
    bracket = double_elimination(seeds, bracket_reset=reset)
    progress, reports, losses = play_out(bracket, random.Random(n * 7 + reset))
    assert progress.finished
    champion = progress.champion
    assert losses[champion] <= 1
    for p in seeds:
        if p != champion:
            assert losses[p] == 2 or (not reset and losses[p] == 1 and p == progress.placements[1][1])
    assert sorted(p for _, p in progress.placements) == seeds
    assert [place for place, _ in progress.placements][:2] == [1, 2]


def test_losers_drop_in_crossing_avoids_immediate_rematch():
    """In losers' round 2, the loser of a winners' round-2 match never meets a survivor from its own
    half-subtree (the player it may just have beaten in winners' round 1)."""
    bracket = double_elimination(list(range(1, 33)))
    by_id = {m.id: m for m in bracket.matches}

    def wb_round1_under(mid):
        m = by_id[mid]
        if m.round == 1 and m.bracket == "winners":
            return {mid}
        return set().union(*(wb_round1_under(s.ref) for s in m.slots if s.kind != "seed"))

    def lb_sources(mid):
        m = by_id[mid]
        out = set()
        for s in m.slots:
            if s.kind == "loser":
                out |= {s.ref}
            elif s.kind == "winner":
                out |= lb_sources(s.ref)
        return out

    for m in bracket.matches:
        if m.bracket == "losers" and m.round == 2:
            survivor, dropped = m.slots
            assert not (lb_sources(survivor.ref) & wb_round1_under(dropped.ref))


@pytest.mark.parametrize("lb_champion_wins_first", [False, True])
def test_bracket_reset_both_outcomes(lb_champion_wins_first):
    bracket = double_elimination(list("abcd"), bracket_reset=True)
    # a wins the winners' bracket; b comes through the losers' bracket.
    reports = {"W1-1": "a", "W1-2": "b", "W2-1": "a", "L1-1": "c", "L2-1": "b"}
    progress = bracket_progress(bracket, reports)
    assert progress.slots["GF1"] == ("a", "b") and progress.ready == ("GF1",)
    reports["GF1"] = "b" if lb_champion_wins_first else "a"
    progress = bracket_progress(bracket, reports)
    if lb_champion_wins_first:
        assert progress.ready == ("GF2",) and not progress.finished
        reports["GF2"] = "b"
        progress = bracket_progress(bracket, reports)
        assert progress.champion == "b" and progress.placements[:2] == ((1, "b"), (2, "a"))
    else:
        assert progress.status["GF2"] == "not_needed" and progress.finished
        assert progress.champion == "a"
    assert [pl for pl, _ in progress.placements] == [1, 2, 3, 4]
