"""Matchmaking: split one ladder round's competitors into pods (matches) of a game's seat count.

Pure: no Django, no clock, no global random (a seeded `random.Random` is passed in and used only to
break exact ties), no I/O. Same input and seed give the same round. Reasons and sources for every
rule are in docs/ratings.md; in short, in order of priority:

1. Every competitor is in at most one pod; every pod has a size the game allows.
2. As many competitors play as the seat range allows (`pod_sizes`); with a fixed pod size the
   remainder (n mod size) sits out.
3. Nobody meets an opponent from their previous round when an alternative exists.
4. Who sits out: first those who did not sit out last round, then the lowest sigma (most settled
   rating), then the most games. Uncertain ratings play, so new entrants settle fast: in the
   Weng-Lin update a game moves mu by ~sigma^2/c and shrinks the variance by a factor ~sigma^3/c^3
   (ratings/skill.py), so a game teaches most about the least certain player.
5. Opponents near in rating (mu): pods are runs of neighbours in mu order, minimising the total
   rating spread (max mu - min mu per pod).

Two algorithms:
- pairs (a fixed 2-seat game) with at most EXACT_PAIRS_MAX competitors: one exact minimum-cost
  perfect matching (networkx `max_weight_matching`, Edmonds' blossom algorithm) over the
  competitors plus a "bench" node, with rules 3, 4, 5 as lexicographic integer cost tiers;
- anything else (pods of 3-5, seat ranges, larger pair ladders): two starting groupings (runs of
  neighbours in mu order; first fit avoiding recent opponents), each improved by member swaps between
  nearby pods or with the bench that strictly improve (rematch pairs, sit-out cost, total spread)
  lexicographically; the better is kept. If a rematch is left and the ladder is small
  (<= SEARCH_MAX), a budgeted depth-first search looks for a rematch-free round.
Why not one matching for everything: networkx's pure-Python blossom is cubic, ~0.55 s for 100
competitors (complete graph) and ~86 s for 3,000 even on a sparse 8-neighbour band graph (measured
here), while the heuristic takes 0.5-2.5 s for 3,000. Runs of neighbours already minimise total
spread on a line, so the heuristic loses optimality only where it repairs rematches.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

import networkx as nx

from ratings.skill import ORDINAL_Z

# Above this many competitors a 2-seat round uses the heuristic instead of the exact matching.
EXACT_PAIRS_MAX: Final = 64
# The swap pass looks this many pods either side (in rating order) for a partner to swap with.
SWAP_REACH: Final = 4
# Ladders up to this size get a depth-first search for a rematch-free round when swaps leave a
# rematch; it gives up after SEARCH_BUDGET steps (a few tens of milliseconds).
SEARCH_MAX: Final = 120
SEARCH_BUDGET: Final = 50_000
# Rating distances become integers in millionths of a mu point, so the matching weights are exact.
_SCALE: Final = 1_000_000
_EPSILON: Final = 1e-9


@dataclass(frozen=True, slots=True)
class Competitor:
    """A ladder entrant as matchmaking sees it. `id` is the ladder's entry id as a string."""

    id: str
    mu: float
    sigma: float
    games: int = 0

    @property
    def ordinal(self) -> float:
        return self.mu - ORDINAL_Z * self.sigma


@dataclass(frozen=True, slots=True)
class Seats:
    """How many players a pod may have: `min`..`max` inclusive (a fixed size has min == max)."""

    min: int
    max: int

    def __post_init__(self) -> None:
        if not (2 <= self.min <= self.max):
            raise ValueError(f"seats must satisfy 2 <= min <= max, not {self.min}..{self.max}")

    @classmethod
    def of(cls, seats: int | tuple[int, int] | Seats) -> Seats:
        if isinstance(seats, Seats):
            return seats
        if isinstance(seats, int):
            return cls(seats, seats)
        low, high = seats
        return cls(low, high)


@dataclass(frozen=True, slots=True)
class Pod:
    """One match of the round. `members` are ids, highest mu first."""

    members: tuple[str, ...]
    spread: float  # max mu - min mu among the members
    rematches: tuple[tuple[str, str], ...]  # immediate rematches no alternative could avoid
    explanation: str


@dataclass(frozen=True, slots=True)
class SitOut:
    id: str
    reason: str


@dataclass(frozen=True, slots=True)
class RoundPairing:
    """The round: pods strongest first (by mean mu), then who sits out and why."""

    pods: tuple[Pod, ...]
    sat_out: tuple[SitOut, ...]
    summary: str


def pod_sizes(count: int, seats: int | tuple[int, int] | Seats) -> list[int]:
    """The pod sizes for `count` competitors, largest first.

    Most competitors play; among partitions that seat that many, the fewest pods (so the biggest
    games the range allows), as equal in size as possible: 10 players of a 3-4 seat game play 4+3+3,
    not 4+4 with two sitting out; 10 of a fixed 4-seat game play 4+4 and two sit out.
    """
    seats = Seats.of(seats)
    for playing in range(count, 0, -1):
        pods = -(-playing // seats.max)  # ceil
        if pods * seats.min <= playing:
            base, extra = divmod(playing, pods)
            return [base + 1] * extra + [base] * (pods - extra)
    return []


def pair_round(
    competitors: Sequence[Competitor],
    seats: int | tuple[int, int] | Seats,
    *,
    rng: random.Random,
    recent_opponents: Mapping[str, Collection[str]] | None = None,
    sat_out_last_round: Collection[str] = (),
) -> RoundPairing:
    """Pods for one ladder round.

    `recent_opponents[id]` are the ids `id` met in its previous round (either side suffices: a
    rematch is a pair where one lists the other). `sat_out_last_round` protects those ids from
    sitting out twice running when anyone else can. `rng` breaks exact ties only (equal mu, equal
    sit-out priority); the result does not depend on the order of `competitors`.
    """
    seats = Seats.of(seats)
    ids = [c.id for c in competitors]
    if len(set(ids)) != len(ids):
        raise ValueError("competitor ids must be unique")
    recent_opponents = recent_opponents or {}
    rested = set(sat_out_last_round)

    # One random number per competitor, drawn in id order so the input order cannot matter.
    by_id = sorted(competitors, key=lambda c: c.id)
    tiebreak = {c.id: rng.random() for c in by_id}
    people = sorted(by_id, key=lambda c: (c.mu, tiebreak[c.id]))  # index = position in mu order
    count = len(people)
    index = {c.id: i for i, c in enumerate(people)}

    # Sit-out priority: 0 sits out first.
    priority_order = sorted(
        range(count),
        key=lambda i: (people[i].id in rested, people[i].sigma, -people[i].games, tiebreak[people[i].id]),
    )
    priority = [0] * count
    for rank, i in enumerate(priority_order):
        priority[i] = rank

    partners: list[set[int]] = [set() for _ in range(count)]
    for me, others in recent_opponents.items():
        if me not in index:
            continue
        for other in others:
            if other in index and other != me:
                partners[index[me]].add(index[other])
                partners[index[other]].add(index[me])

    sizes = pod_sizes(count, seats)
    playing = sum(sizes)
    if seats.max == 2 and count <= EXACT_PAIRS_MAX:
        groups, bench = _pairs_exact(people, priority, partners, count - playing)
    else:
        groups, bench = _pods_local(people, priority, partners, sizes, priority_order)
    return _describe(people, priority, partners, rested, groups, bench, sizes, seats)


def _pairs_exact(
    people: list[Competitor], priority: list[int], partners: list[set[int]], benched: int
) -> tuple[list[list[int]], list[int]]:
    """Exact lexicographic (rematches, sit-out priority, total rating distance) minimum."""
    count = len(people)
    if count - benched < 2:
        return [], list(range(count))
    mu_units = [round(c.mu * _SCALE) for c in people]
    widest = mu_units[-1] - mu_units[0]
    # Each tier outweighs everything below it summed over a whole matching.
    bench_unit = (count // 2) * widest + 1
    rematch_unit = (count * count + 1) * bench_unit
    top = rematch_unit + 1  # weights are top - cost > 0
    graph = nx.Graph()
    graph.add_nodes_from(range(count + benched))
    for i in range(count):
        for j in range(i + 1, count):
            cost = (rematch_unit if j in partners[i] else 0) + (mu_units[j] - mu_units[i])
            graph.add_edge(i, j, weight=top - cost)
        for seat in range(count, count + benched):  # a bench seat; at most one for pairs
            graph.add_edge(i, seat, weight=top - priority[i] * bench_unit)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    groups: list[list[int]] = []
    bench: list[int] = []
    for a, b in matching:
        low, high = min(a, b), max(a, b)
        if high >= count:
            bench.append(low)
        else:
            groups.append([low, high])
    groups.sort()
    return groups, sorted(bench)


def _pods_local(
    people: list[Competitor],
    priority: list[int],
    partners: list[set[int]],
    sizes: list[int],
    priority_order: list[int],
) -> tuple[list[list[int]], list[int]]:
    """Two starts, each improved by swaps; the better under (rematches, bench cost, total spread).

    - runs: consecutive pods in mu order, the closest grouping when there is no history;
    - first fit: in mu order, each player joins the earliest open pod holding none of their recent
      opponents. After a round grouped by rating, a rematch-free pod must take players from k
      different old pods; first fit builds exactly that from adjacent old pods, where repairing the
      runs by swaps tends to scatter them.
    """
    benched = len(people) - sum(sizes)
    bench = sorted(priority_order[:benched])
    if not sizes:
        return [], list(range(len(people)))
    bench_set = set(bench)
    players = [i for i in range(len(people)) if i not in bench_set]  # mu order
    mus = [c.mu for c in people]

    runs: list[list[int]] = []
    start = 0
    for size in sizes:
        runs.append(players[start : start + size])
        start += size
    fit = _first_fit(players, sizes, partners)

    best: tuple[tuple[int, int, float], list[list[int]], list[int]] | None = None
    for groups in (runs, fit):
        slots = _improve([list(g) for g in groups] + [list(bench)], mus, priority, partners, benched)
        pods, seated_out = slots[:-1], slots[-1]
        score = (
            sum(1 for g in pods for n, a in enumerate(g) for b in g[n + 1 :] if b in partners[a]),
            sum(priority[i] for i in seated_out),
            sum(max(mus[i] for i in g) - min(mus[i] for i in g) for g in pods),
        )
        better_tiers = best is None or score[:2] < best[0][:2]
        if better_tiers or (score[:2] == best[0][:2] and score[2] < best[0][2] - _EPSILON):
            best = (score, pods, seated_out)
    assert best is not None
    if best[0][0] and len(people) <= SEARCH_MAX:
        # Swaps can stall in a local minimum on small, dense histories: search for a rematch-free
        # round outright (exhaustive within SEARCH_BUDGET steps), then tidy it with swaps.
        found = _search_rematch_free(list(range(len(people))), sizes, benched, partners, priority)
        if found is not None:
            slots = _improve(found, mus, priority, partners, benched)
            return [sorted(g) for g in slots[:-1]], sorted(slots[-1])
    return [sorted(g) for g in best[1]], sorted(best[2])


class _OutOfBudget(Exception):
    pass


def _search_rematch_free(
    order: list[int], sizes: list[int], benched: int, partners: list[set[int]], priority: list[int]
) -> list[list[int]] | None:
    """Depth-first: the first unplaced competitor (mu order) sits out or opens a pod with nearby
    compatible mates. Returns pods + [bench] with no rematch, or None (none exists / out of budget)."""
    left = {size: sizes.count(size) for size in set(sizes)}
    placed: set[int] = set()
    pods: list[list[int]] = []
    bench: list[int] = []
    budget = [SEARCH_BUDGET]

    def cliques(members: list[int], need: int, start: int):
        if need == 0:
            yield members
            return
        for j in range(start, len(order)):
            budget[0] -= 1
            if budget[0] < 0:
                raise _OutOfBudget
            x = order[j]
            if x in placed or any(x in partners[m] for m in members):
                continue
            yield from cliques([*members, x], need - 1, j + 1)

    def place(position: int) -> bool:
        while position < len(order) and order[position] in placed:
            position += 1
        if position == len(order):
            return True
        budget[0] -= 1
        if budget[0] < 0:
            raise _OutOfBudget
        u = order[position]
        options: list[int] = sorted((size for size, n in left.items() if n), reverse=True)
        if len(bench) < benched:  # 0 stands for "sits out"; first if u is due to sit out anyway
            options.insert(0 if priority[u] < benched else len(options), 0)
        for size in options:
            if size == 0:
                bench.append(u)
                placed.add(u)
                if place(position + 1):
                    return True
                placed.discard(u)
                bench.pop()
                continue
            left[size] -= 1
            for pod in cliques([u], size - 1, position + 1):
                placed.update(pod)
                pods.append(pod)
                if place(position + 1):
                    return True
                pods.pop()
                placed.difference_update(pod)
            left[size] += 1
        return False

    try:
        if place(0):
            return [*pods, bench]
    except _OutOfBudget:
        pass
    return None


def _first_fit(players: list[int], sizes: list[int], partners: list[set[int]]) -> list[list[int]]:
    pods: list[list[int]] = [[] for _ in sizes]
    opened = 0
    for i in players:
        open_pods = [p for p in range(opened) if len(pods[p]) < sizes[p]]
        clean = [p for p in open_pods if not any(j in partners[i] for j in pods[p])]
        if clean:
            target = clean[0]
        elif opened < len(sizes):
            target = opened
            opened += 1
        else:  # every pod left holds a recent opponent: the fewest, earliest first
            target = min(open_pods, key=lambda p: (sum(1 for j in pods[p] if j in partners[i]), p))
        pods[target].append(i)
    return pods


def _improve(
    slots: list[list[int]], mus: list[float], priority: list[int], partners: list[set[int]], benched: int
) -> list[list[int]]:
    """Member swaps between pods near in rating (or with the bench, the last slot) while they
    strictly improve (rematch pairs, bench priority cost, total spread), lexicographically."""
    bench_slot = len(slots) - 1
    pod_count = bench_slot
    where = [0] * len(mus)
    for slot, members in enumerate(slots):
        for i in members:
            where[i] = slot

    def conflicts(i: int, slot: int, without: int) -> int:
        if slot == bench_slot:
            return 0
        mine = partners[i]
        return sum(1 for j in slots[slot] if j != without and j in mine)

    def spread(members: list[int], out: int, into: int) -> float:
        values = [mus[j] for j in members if j != out]
        values.append(mus[into])
        return max(values) - min(values)

    def width(members: list[int]) -> float:
        return max(mus[j] for j in members) - min(mus[j] for j in members)

    dirty = set(range(pod_count))
    for _ in range(100):  # each swap strictly lowers the objective; the cap is only a guard
        moved: set[int] = set()
        for p in sorted(dirty):
            for a in list(slots[p]):
                if where[a] != p:
                    continue
                best: tuple[int, int, float] | None = None
                best_swap = (0, 0)
                stay_a = conflicts(a, p, a)
                # pods are built in mu order, so nearby slot numbers hold nearby ratings
                reach = range(max(0, p - SWAP_REACH), min(pod_count, p + SWAP_REACH + 1))
                near = [q for q in reach if q != p]
                if benched:
                    near.append(bench_slot)
                width_p = width(slots[p])
                for q in near:
                    width_q = width(slots[q]) if q != bench_slot else 0.0
                    for x in slots[q]:
                        d_rem = (conflicts(a, q, x) + conflicts(x, p, a)) - (stay_a + conflicts(x, q, x))
                        if q == bench_slot:
                            d_bench = priority[a] - priority[x]
                            d_spread = spread(slots[p], a, x) - width_p
                        else:
                            d_bench = 0
                            d_spread = spread(slots[p], a, x) + spread(slots[q], x, a) - width_p - width_q
                        key = (d_rem, d_bench, d_spread)
                        if best is None or key < best:
                            best, best_swap = key, (q, x)
                if best is None:
                    continue
                if best[0] < 0 or (best[0] == 0 and (best[1] < 0 or (best[1] == 0 and best[2] < -_EPSILON))):
                    q, x = best_swap
                    slots[p][slots[p].index(a)] = x
                    slots[q][slots[q].index(x)] = a
                    where[a], where[x] = q, p
                    moved.update((p, q))
        dirty = {slot for slot in moved if slot != bench_slot}
        if not dirty:
            break
    return slots


def _describe(
    people: list[Competitor],
    priority: list[int],
    partners: list[set[int]],
    rested: set[str],
    groups: list[list[int]],
    bench: list[int],
    sizes: list[int],
    seats: Seats,
) -> RoundPairing:
    pods = []
    for members in sorted(groups, key=lambda g: -sum(people[i].mu for i in g) / len(g)):
        ordered = sorted(members, key=lambda i: -people[i].mu)  # mu order is index order
        high, low = people[ordered[0]].mu, people[ordered[-1]].mu
        rematches = tuple(
            (people[a].id, people[b].id)
            for n, a in enumerate(ordered)
            for b in ordered[n + 1 :]
            if b in partners[a]
        )
        text = f"{len(members)} players, rating spread {high - low:.2f} (mu {low:.2f} to {high:.2f})"
        if rematches:
            text += "; unavoidable immediate rematch: " + ", ".join(f"{a} v {b}" for a, b in rematches)
        pods.append(Pod(tuple(people[i].id for i in ordered), high - low, rematches, text))

    seat_text = f"{seats.min}" if seats.min == seats.max else f"{seats.min}-{seats.max}"
    sat_out = []
    for i in sorted(bench, key=lambda i: priority[i]):
        person = people[i]
        if not sizes:
            reason = f"only {len(people)} competitor(s), fewer than the {seats.min} a pod needs"
        elif priority[i] < len(bench):
            reason = (
                f"{len(people)} competitors fill {sum(sizes)} seats in pods of {seat_text}; the most "
                f"settled ratings sit out first (sigma {person.sigma:.2f}, {person.games} games)"
            )
        else:
            reason = (
                f"sits out in place of a more settled competitor so that nobody faces an immediate "
                f"rematch (sigma {person.sigma:.2f}, {person.games} games)"
            )
        if person.id in rested and priority[i] < len(bench):
            reason += "; sat out last round too: fewer others could sit out than must"
        sat_out.append(SitOut(person.id, reason))
    summary = (
        f"{len(people)} competitors, {len(pods)} pod(s) of sizes "
        f"{'+'.join(map(str, sizes)) or 'none'}, {len(sat_out)} sit out"
    )
    return RoundPairing(tuple(pods), tuple(sat_out), summary)
