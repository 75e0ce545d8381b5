"""Free-for-all pods for 3–5 player games.

A pod round splits the field into pods of the game's size by snake seeding: seeds 1..p go to pods
1..p, seeds p+1..2p to pods p..1, and so on, so every pod gets one player from each band of strength.
When the count does not divide, pods are made as even as possible (sizes differ by at most one, so
pods of `size` and `size - 1`, the smaller pods last); a pod is never smaller than the game's
minimum player count: if even pods would be, the lowest-ranked players sit out with a bye (`byes`,
scored `bye_points`) instead.

Placement points (default 4-3-2-1) are given by finishing position; a pod with fewer players than
points uses the first values (a 3-player pod scores 4-3-2). Players tied for a position share the
*average* of the points of the positions they cover (tied 2nd-3rd in 4-3-2-1 get 2.5 each): this keeps
a pod's total constant, which is why we chose it over giving both the higher value.

A pods event: `rounds` pod rounds (round 1 by seed, later rounds by standings, both snake-seeded),
then the best `final_size` players (default the game's size) overall — or the winner of each pod in
the last round with `advance="pod_winners"` — play a final pod which decides places 1..k. Everyone
else is placed by points, then number of pod wins, then seed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .common import FormatError, PlayerId


@dataclass(frozen=True)
class PodRound:
    round: int
    pods: tuple[tuple[PlayerId, ...], ...]
    byes: tuple[PlayerId, ...] = ()


@dataclass(frozen=True)
class PodResult:
    """One pod's finish: `finish` is a tuple of finishing groups, best first; a group of several
    players is a tie."""

    round: int
    finish: tuple[tuple[PlayerId, ...], ...]


@dataclass(frozen=True)
class PodConfig:
    size: int = 4
    min_size: int = 3
    placement_points: tuple[float, ...] = (4, 3, 2, 1)
    bye_points: float = 0.0


def pod_sizes(n: int, size: int, min_size: int) -> tuple[tuple[int, ...], int]:
    """(pod sizes, number of byes) for n players."""
    if not 2 <= min_size <= size:
        raise FormatError("need 2 <= min_size <= size", code="pods/bad_size")
    if n < min_size:
        raise FormatError(
            f"{n} players cannot fill a pod of at least {min_size}", code="pods/too_few_players"
        )
    pods = -(-n // size)
    if n // pods >= min_size:
        q, r = divmod(n, pods)
        return tuple([q + 1] * r + [q] * (pods - r)), 0
    # Even pods would be too small: seat as many as possible in full pods, the rest sit out.
    pods = n // size
    return tuple([size] * pods), n - pods * size


def snake_pods(ranked: Sequence[PlayerId], sizes: Sequence[int]) -> tuple[tuple[PlayerId, ...], ...]:
    """Deal `ranked` players into pods of `sizes` in snake order, skipping full pods."""
    pods: list[list[PlayerId]] = [[] for _ in sizes]
    order = list(range(len(sizes)))
    forward = True
    it = iter(ranked)
    remaining = sum(sizes)
    while remaining:
        for k in order if forward else order[::-1]:
            if len(pods[k]) < sizes[k] and remaining:
                pods[k].append(next(it))
                remaining -= 1
        forward = not forward
    return tuple(tuple(p) for p in pods)


def make_pod_round(ranked: Sequence[PlayerId], round: int, config: PodConfig) -> PodRound:
    ranked = tuple(ranked)
    if len(set(ranked)) != len(ranked):
        raise FormatError("a player appears twice", code="pods/duplicate_player")
    sizes, byes = pod_sizes(len(ranked), config.size, config.min_size)
    seated = ranked[: len(ranked) - byes]
    return PodRound(round, snake_pods(seated, sizes), ranked[len(ranked) - byes :])


def placement_points(result: PodResult, points: Sequence[float]) -> dict[PlayerId, float]:
    """Points per player of one pod; ties share the average of the positions they cover."""
    out, position = {}, 0
    for group in result.finish:
        covered = [points[k] if k < len(points) else 0.0 for k in range(position, position + len(group))]
        share = sum(covered) / len(group)
        for p in group:
            out[p] = share
        position += len(group)
    return out


@dataclass(frozen=True)
class PodStanding:
    rank: int
    player: PlayerId
    points: float
    pod_wins: int
    explanation: str


def pod_standings(
    seeds: Sequence[PlayerId], rounds: Sequence[PodRound], results: Sequence[PodResult], config: PodConfig
) -> list[PodStanding]:
    """Points, then pod wins (sole or shared first place), then seed."""
    seed_of = {p: i for i, p in enumerate(seeds)}
    points = {p: 0.0 for p in seeds}
    wins = {p: 0 for p in seeds}
    detail: dict[PlayerId, list[str]] = {p: [] for p in seeds}
    for pod_round in rounds:
        for p in pod_round.byes:
            points[p] += config.bye_points
            detail[p].append(f"r{pod_round.round} bye {config.bye_points:g}")
    for result in results:
        for p, pts in placement_points(result, config.placement_points).items():
            points[p] += pts
            detail[p].append(f"r{result.round} {pts:g}")
        for p in result.finish[0]:
            wins[p] += 1
    order = sorted(seeds, key=lambda p: (-points[p], -wins[p], seed_of[p]))
    return [PodStanding(k + 1, p, points[p], wins[p], ", ".join(detail[p])) for k, p in enumerate(order)]


def pods_advance(
    standings: Sequence[PodStanding],
    last_round: PodRound,
    last_results: Sequence[PodResult],
    *,
    advance: str = "best_overall",
    count: int = 4,
) -> tuple[PlayerId, ...]:
    """Who plays the final pod: the best `count` overall, or the winner of each last-round pod
    (a tie for first: the better-ranked overall) — in standings order."""
    rank = {s.player: s.rank for s in standings}
    if advance == "best_overall":
        return tuple(s.player for s in standings[:count])
    if advance == "pod_winners":
        winners = [min(r.finish[0], key=rank.__getitem__) for r in last_results]
        return tuple(sorted(winners, key=rank.__getitem__))
    raise FormatError(f"unknown advance rule {advance!r}", code="pods/bad_advance")


def pods_final_placements(
    standings: Sequence[PodStanding], final: PodResult
) -> tuple[tuple[int, PlayerId], ...]:
    """Final pod decides places 1..k (tied finishers share a place); the rest follow in standings order."""
    out, place = [], 1
    finalists = set()
    for group in final.finish:
        for p in group:
            out.append((place, p))
            finalists.add(p)
        place += len(group)
    for s in standings:
        if s.player not in finalists:
            out.append((place, s.player))
            place += 1
    return tuple(out)
