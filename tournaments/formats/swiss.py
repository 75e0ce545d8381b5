"""Swiss system pairing by exact maximum-weight matching.

Sources: FIDE Handbook C.04.1 (basic rules of Swiss systems: no two players meet twice, a player gets
at most one pairing-allocated bye, players with equal scores are paired where possible, colour
balance) and C.04.3 (Dutch system: score brackets, floaters, top half v bottom half). This module is
*Dutch-style*, not a FIDE-endorsed Dutch implementation: it states the same goals as a weighted
matching problem (the approach of Burstein's and Olafsson's weighted-matching Swiss pairing, and of
bbpPairings), not the Dutch transposition order.

Priorities, strictly lexicographic (each tier's multiplier exceeds the largest possible sum of all
lower tiers over a whole matching):
  (a) pair as many players as possible — `max_weight_matching(maxcardinality=True)`;
  (b) the bye (odd fields: a phantom player) goes to the lowest-ranked player without a bye;
  (c) score differences: each pair costs (score difference / score step)², so one two-step float is
      worse than two one-step floats, and same-group pairs cost nothing;
  (d) seat balance: a pair whose players both want the same seat costs the weaker of the two wishes;
  (e) rank order inside a score group: Dutch top half v bottom half (position p meets p + g/2), and a
      floater should be the lowest of its group meeting the highest of the next.
Rematches and organiser-forbidden pairs are not edges at all, so they can never be chosen.

Scale: blossom on all pairs is O(n³) (about 87 s for 1,000 players on 2 cores). Fields up to
`exact_limit` players use all pairs. Larger fields are laid out in rank order with each score group
interleaved (top half / bottom half alternating, so Dutch partners are neighbours) and cut into
windows of `window` players, each solved exactly on all its pairs. If a window leaves players
unpaired, the repair step re-solves those players together with every pair within `radius` layout
places of them, doubling the radius until all are paired, and ultimately solves all pairs exactly —
so the pairing never fails while a legal pairing exists.

Seats (FIDE C.04.1 colour principles, for "seat 0" = white): the player with more seat-0 than seat-1
games gets seat 1; equal → each alternates from their last game; still equal → the higher-ranked
player takes seat 0 on odd tables and seat 1 on even tables (FIDE's initial-colour alternation).
Rematches include forfeited pairings (players paired once are never paired again).
"""

from __future__ import annotations

import math
import random
import time
from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

import networkx as nx

from .common import CHESS, FormatError, MatchResult, Pairing, PlayerId, Problem, Scoring, WinDrawLoss

_BYE = -1  # node id of the phantom bye player


@dataclass(frozen=True)
class SwissConfig:
    scoring: Scoring = CHESS
    exact_limit: int = 64  # fields up to this many players: exact matching over all pairs
    window: int = 24  # players per window of the restricted method (made even)


@dataclass(frozen=True)
class Float:
    player: PlayerId
    direction: str  # "down" or "up"
    score: float  # the player's score
    opponent_score: float
    opponent: PlayerId
    reason: str


@dataclass(frozen=True)
class ByeNote:
    player: PlayerId
    reason: str


@dataclass(frozen=True)
class SwissExplanation:
    round: int
    score_groups: tuple[tuple[float, tuple[PlayerId, ...]], ...]
    floats: tuple[Float, ...]
    constraints: tuple[str, ...]
    bye: ByeNote | None
    method: str

    def text(self) -> str:
        lines = [f"Round {self.round} ({self.method})"]
        for score, members in self.score_groups:
            lines.append(f"  score group {score:g}: {len(members)} players")
        for f in self.floats:
            lines.append(
                f"  {f.player!r} floats {f.direction} ({f.score:g} v {f.opponent!r} {f.opponent_score:g}): {f.reason}"
            )
        for c in self.constraints:
            lines.append(f"  constraint: {c}")
        if self.bye:
            lines.append(f"  bye: {self.bye.player!r}: {self.bye.reason}")
        return "\n".join(lines)


@dataclass(frozen=True)
class SwissRound:
    round: int
    pairings: tuple[Pairing, ...]  # the bye, if any, is the last, with seat1=None
    bye: PlayerId | None
    unpaired: tuple[PlayerId, ...]  # non-empty only when no legal pairing of everyone exists
    explanation: SwissExplanation
    failure: Problem | None = None


def swiss_rounds(n_players: int) -> int:
    """Default number of rounds: ceil(log2 n), at least 1."""
    return max(1, math.ceil(math.log2(max(n_players, 2))))


@dataclass
class _State:
    ids: list[PlayerId]  # active players, ranked
    seed: list[int]  # seed index per ranked player
    score: list[float]
    met: list[set[int]]  # ranked indices already met (or forbidden)
    forbidden: list[set[int]]
    had_bye: list[bool]
    imbalance: list[int]  # seat-0 games minus seat-1 games
    last_seat: list[int | None]
    group: list[int]  # score group number per ranked player
    pos: list[int]  # position inside the group
    gsize: list[int]
    unit: float
    bye_rounds: dict[int, int] = field(default_factory=dict)
    forfeit_rounds: dict[int, int] = field(default_factory=dict)  # a win by forfeit bars the bye too


def _build_state(players, results, withdrawn, forbidden, scoring, adjustments) -> _State:
    players = list(players)
    seed_of = {p: i for i, p in enumerate(players)}
    if len(seed_of) != len(players):
        raise FormatError("a player appears twice", code="swiss/duplicate_player")
    withdrawn = set(withdrawn)
    score = defaultdict(float)
    for p, extra in (adjustments or {}).items():
        score[p] += extra
    met = defaultdict(set)
    had_bye: dict[PlayerId, int] = {}
    forfeit_won: dict[PlayerId, int] = {}
    seat_diff = defaultdict(int)
    last: dict[PlayerId, tuple[int, int]] = {}
    for r in results:
        if r.seat0 not in seed_of or (r.seat1 is not None and r.seat1 not in seed_of):
            raise FormatError(
                f"result of round {r.round} names an unknown player", code="swiss/unknown_player"
            )
        score[r.seat0] += scoring.points(r, r.seat0)
        if r.seat1 is None:
            if not r.forfeit:  # a missed round (late entry) is not the pairing-allocated bye
                had_bye[r.seat0] = r.round
            continue
        if r.forfeit and r.outcome is not WinDrawLoss.DRAW:
            # FIDE C.04.1 d: a player who has scored a win by forfeit takes no pairing-allocated bye.
            winner = r.seat0 if r.outcome is WinDrawLoss.WIN else r.seat1
            forfeit_won.setdefault(winner, r.round)
        score[r.seat1] += scoring.points(r, r.seat1)
        met[r.seat0].add(r.seat1)
        met[r.seat1].add(r.seat0)
        if not r.forfeit:
            seat_diff[r.seat0] += 1
            seat_diff[r.seat1] -= 1
            for p, s in ((r.seat0, 0), (r.seat1, 1)):
                if p not in last or last[p][0] <= r.round:
                    last[p] = (r.round, s)
    active = [p for p in players if p not in withdrawn]
    active.sort(key=lambda p: (-score[p], seed_of[p]))
    rank = {p: i for i, p in enumerate(active)}
    n = len(active)
    forb = [set() for _ in range(n)]
    for pair in forbidden:
        a, b = tuple(pair)
        if a in rank and b in rank:
            forb[rank[a]].add(rank[b])
            forb[rank[b]].add(rank[a])
    group, pos, gsize = [0] * n, [0] * n, [0] * n
    g, start = 0, 0
    for i in range(1, n + 1):
        if i == n or score[active[i]] != score[active[start]]:
            for j in range(start, i):
                group[j], pos[j], gsize[j] = g, j - start, i - start
            g, start = g + 1, i
    distinct = sorted({score[p] for p in active})
    gaps = [b - a for a, b in zip(distinct, distinct[1:]) if b - a > 1e-9]
    unit = min(gaps) if gaps else 1.0
    state = _State(
        ids=active,
        seed=[seed_of[p] for p in active],
        score=[score[p] for p in active],
        met=[{rank[q] for q in met[p] if q in rank} | forb[i] for i, p in enumerate(active)],
        forbidden=forb,
        had_bye=[p in had_bye or p in forfeit_won for p in active],
        imbalance=[seat_diff[p] for p in active],
        last_seat=[last[p][1] if p in last else None for p in active],
        group=group,
        pos=pos,
        gsize=gsize,
        unit=unit,
    )
    state.bye_rounds = {rank[p]: r for p, r in had_bye.items() if p in rank}
    state.forfeit_rounds = {rank[p]: r for p, r in forfeit_won.items() if p in rank and p not in had_bye}
    return state


def _wish(st: _State, i: int) -> tuple[int, int]:
    """(wanted seat sign: +1 seat 0, -1 seat 1, 0 none; strength)."""
    d = st.imbalance[i]
    if d:
        return (-1 if d > 0 else 1), 2 * abs(d)
    last = st.last_seat[i]
    if last is None:
        return 0, 0
    return (1 if last == 1 else -1), 1


def _costs(st: _State, a: int, b: int) -> tuple[int, int, int]:
    """(score cost, seat cost, rank cost) of pairing ranked players a < b."""
    if a > b:
        a, b = b, a
    diff = round(abs(st.score[a] - st.score[b]) / st.unit)
    wa, sa = _wish(st, a)
    wb, sb = _wish(st, b)
    seat = min(sa, sb) if wa and wa == wb else 0
    if st.group[a] == st.group[b]:
        rank = abs(abs(st.pos[b] - st.pos[a]) - st.gsize[a] // 2)
    else:
        rank = (st.gsize[a] - 1 - st.pos[a]) + st.pos[b]
    return diff * diff, seat, rank


def _solve(st: _State, nodes: list[int], with_bye: bool) -> dict[int, int]:
    """Exact lexicographic optimum over all legal pairs among `nodes` (+ the phantom if asked).
    Returns mate per node (both directions); the phantom is `_BYE`."""
    n_total = len(st.ids)
    edges = []
    for x in range(len(nodes)):
        a = nodes[x]
        met_a = st.met[a]
        for y in range(x + 1, len(nodes)):
            b = nodes[y]
            if b in met_a:
                continue
            edges.append((a, b, _costs(st, a, b)))
    pairs = len(nodes) // 2 + 1
    max_s = max((c[0] for _, _, c in edges), default=0)
    max_c = max((c[1] for _, _, c in edges), default=0)
    max_r = max((c[2] for _, _, c in edges), default=0)
    m_rank = 1
    m_seat = pairs * max_r + 1
    m_score = pairs * (max_c * m_seat + max_r) + 1
    m_bye = pairs * (max_s * m_score + max_c * m_seat + max_r) + 1
    top = n_total * m_bye + 1
    graph = nx.Graph()
    graph.add_nodes_from(nodes)
    for a, b, (s, c, r) in edges:
        graph.add_edge(a, b, weight=top - (s * m_score + c * m_seat + r * m_rank))
    if with_bye:
        graph.add_node(_BYE)
        for a in nodes:
            if not st.had_bye[a]:
                graph.add_edge(a, _BYE, weight=top - (n_total - 1 - a) * m_bye)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    mate = {}
    for a, b in matching:
        mate[a], mate[b] = b, a
    return mate


def _layout(st: _State) -> tuple[list[int], list[list[int]]]:
    """Ranked indices with each score group interleaved top half / bottom half, and the same as
    units (Dutch pairs, and the odd group's last player alone)."""
    units, i, n = [], 0, len(st.ids)
    while i < n:
        g = st.gsize[i]
        half = g // 2
        units += [[i + k, i + half + k] for k in range(half)]
        if g % 2:
            units.append([i + g - 1])
        i += g
    return [p for unit in units for p in unit], units


def _pair_all(st: _State, config: SwissConfig) -> tuple[dict[int, int], str]:
    n = len(st.ids)
    odd = n % 2 == 1
    if n <= config.exact_limit:
        return _solve(st, list(range(n)), odd), "exact matching over all pairs"
    window = max(4, config.window + config.window % 2)
    layout, units = _layout(st)
    where = {p: k for k, p in enumerate(layout)}
    chunks: list[list[int]] = [[]]
    for unit in units:  # windows end between Dutch pairs where the window's size allows (even)
        if len(chunks[-1]) + len(unit) > window:
            if len(chunks[-1]) % 2:
                chunks[-1].append(unit[0])
                unit = unit[1:]
            chunks.append([])
        chunks[-1].extend(unit)
    if len(chunks) > 1 and len(chunks[-1]) < window // 2:
        tail = chunks.pop()
        chunks[-1] = chunks[-1] + tail
    mate: dict[int, int] = {}
    for k, chunk in enumerate(chunks):
        mate.update(_solve(st, chunk, odd and k == len(chunks) - 1))
    method = f"windows of {window} players"
    radius = window
    while True:
        loose = [p for p in range(n) if p not in mate]
        bye_loose = odd and _BYE not in mate
        if not loose and not bye_loose:
            return mate, method
        if radius >= n:
            region = set(range(n))
        else:
            centres = [where[p] for p in loose] + ([n] if bye_loose else [])
            region = set()
            for c in centres:
                for k in range(max(0, c - radius), min(n, c + radius + 1)):
                    region.add(layout[k])
            region |= {mate[p] for p in region if p in mate}
        with_bye = odd and (bye_loose or mate.get(_BYE) in region)
        if _BYE in region:
            region.discard(_BYE)
        nodes = sorted(region, key=where.__getitem__)
        sub = _solve(st, nodes, with_bye)
        complete = all(p in sub for p in nodes) and (not with_bye or _BYE in sub)
        if complete or len(region) == n:
            for p in nodes:
                mate.pop(p, None)
            if with_bye:
                mate.pop(_BYE, None)
            mate.update(sub)
            if len(region) == n:
                return mate, f"{method}; repaired by exact matching over all pairs"
            method = f"{method}; repaired {len(loose)} unpaired within radius {radius}"
        radius *= 2


def _seats(st: _State, a: int, b: int, table: int) -> tuple[int, int]:
    """(seat-0 player, seat-1 player) for ranked players a < b."""
    if a > b:
        a, b = b, a
    da, db = st.imbalance[a], st.imbalance[b]
    if da != db:
        return (b, a) if da > db else (a, b)
    la, lb = st.last_seat[a], st.last_seat[b]
    if la is not None and lb is not None and la != lb:
        return (a, b) if la == 1 else (b, a)
    if la is not None and lb is None:
        return (a, b) if la == 1 else (b, a)
    if lb is not None and la is None:
        return (b, a) if lb == 1 else (a, b)
    return (a, b) if table % 2 == 1 else (b, a)


def swiss_pair_round(
    players: Sequence[PlayerId],
    results: Sequence[MatchResult],
    *,
    round: int | None = None,
    config: SwissConfig | None = None,
    withdrawn: Collection[PlayerId] = (),
    forbidden: Collection[Collection[PlayerId]] = (),
    score_adjustments: Mapping[PlayerId, float] | None = None,
) -> SwissRound:
    """Pair the next round.

    `players`: everyone ever entered, in seed order (late entrants appended; they start on 0 points
    unless `score_adjustments` gives them some). `results`: every earlier round's results, byes
    included. `withdrawn`: players dropped before this round. `forbidden`: pairs the organiser forbids.
    Same input → same pairing.
    """
    config = config or SwissConfig()
    if round is None:
        round = max((r.round for r in results), default=0) + 1
    st = _build_state(players, results, withdrawn, forbidden, config.scoring, score_adjustments)
    n = len(st.ids)
    mate, method = _pair_all(st, config) if n else ({}, "empty field")
    pairs = sorted({(min(a, b), max(a, b)) for a, b in mate.items() if a != _BYE and b != _BYE})
    pairs.sort(key=lambda ab: (-max(st.score[ab[0]], st.score[ab[1]]), ab[0]))
    pairings = []
    for table, (a, b) in enumerate(pairs, start=1):
        s0, s1 = _seats(st, a, b, table)
        pairings.append(Pairing(round, table, st.ids[s0], st.ids[s1]))
    bye_idx = mate.get(_BYE)
    if bye_idx is not None:
        pairings.append(Pairing(round, len(pairs) + 1, st.ids[bye_idx], None))
    unpaired = tuple(st.ids[p] for p in range(n) if p not in mate)
    failure = None
    if unpaired:
        failure = Problem(
            "swiss/no_legal_pairing",
            f"no legal pairing pairs everyone: {len(unpaired)} left unpaired (rematches, forbidden pairs or byes exhausted)",
        )
    explanation = _explain(st, round, pairs, bye_idx, method)
    return SwissRound(
        round, tuple(pairings), None if bye_idx is None else st.ids[bye_idx], unpaired, explanation, failure
    )


def _explain(st: _State, round: int, pairs, bye_idx, method) -> SwissExplanation:
    ids = st.ids
    groups: dict[int, list[int]] = defaultdict(list)
    for i in range(len(ids)):
        groups[st.group[i]].append(i)
    score_groups = tuple((st.score[m[0]], tuple(ids[i] for i in m)) for _, m in sorted(groups.items()))
    floats = []
    for a, b in pairs:
        if st.group[a] == st.group[b]:
            continue
        hi, lo = (a, b) if st.score[a] > st.score[b] else (b, a)
        for player, other, direction in ((hi, lo, "down"), (lo, hi, "up")):
            mates = [q for q in groups[st.group[player]] if q != player]
            played = [ids[q] for q in mates if q in st.met[player] and q not in st.forbidden[player]]
            banned = [ids[q] for q in mates if q in st.forbidden[player]]
            parts = []
            if len(mates) % 2 == 0:
                parts.append(
                    f"score group {st.score[player]:g} has an odd number of players ({len(mates) + 1})"
                )
            if played:
                parts.append(
                    "already played " + ", ".join(map(repr, played[:8])) + (" …" if len(played) > 8 else "")
                )
            if banned:
                parts.append("forbidden with " + ", ".join(map(repr, banned)))
            if not parts:
                parts.append("the rest of its score group could only be paired this way")
            floats.append(
                Float(ids[player], direction, st.score[player], st.score[other], ids[other], "; ".join(parts))
            )
    constraints = []
    for i in range(len(ids)):
        for j in sorted(st.forbidden[i]):
            if i < j:
                constraints.append(f"forbidden pairing {ids[i]!r} – {ids[j]!r}")
    rematches = sum(len(st.met[i] - st.forbidden[i]) for i in range(len(ids))) // 2
    constraints.append(f"no rematches: {rematches} earlier pairings excluded")
    bye = None
    if bye_idx is not None:
        below = [i for i in range(bye_idx + 1, len(ids))]
        skipped = [
            f"{ids[i]!r} (bye in round {st.bye_rounds[i]})"
            if i in st.bye_rounds
            else f"{ids[i]!r} (won by forfeit in round {st.forfeit_rounds[i]})"
            for i in below
            if st.had_bye[i]
        ]
        others = [repr(ids[i]) for i in below if not st.had_bye[i]]
        reason = f"lowest-ranked player ({st.score[bye_idx]:g} points) without a bye"
        if skipped:
            reason += "; below them already had one: " + ", ".join(skipped[:8])
        if others:
            reason += "; giving it to " + ", ".join(others[:8]) + " would leave the rest unpairable"
        bye = ByeNote(ids[bye_idx], reason)
    return SwissExplanation(round, score_groups, tuple(floats), tuple(constraints), bye, method)


def _simulate_results(
    pairing: SwissRound, rnd: random.Random, strength: Mapping[PlayerId, float]
) -> list[MatchResult]:
    out = []
    for p in pairing.pairings:
        if p.seat1 is None:
            out.append(MatchResult(p.round, p.seat0, None))
            continue
        a, b = strength[p.seat0], strength[p.seat1]
        x = rnd.random()
        expected = 1 / (1 + 10 ** ((b - a) / 400))
        outcome = (
            WinDrawLoss.WIN
            if x < expected * 0.9
            else WinDrawLoss.LOSS
            if x > 1 - (1 - expected) * 0.9
            else WinDrawLoss.DRAW
        )
        out.append(MatchResult(p.round, p.seat0, p.seat1, outcome))
    return out


def bench_swiss(
    n_players: int,
    rounds: int = 1,
    seed: int = 0,
    *,
    prior_rounds: int = 3,
    config: SwissConfig | None = None,
) -> float:
    """Mean seconds to pair one round of `n_players`, over `rounds` timed rounds played after
    `prior_rounds` simulated ones (results drawn from a seeded Elo model)."""
    rnd = random.Random(seed)
    players = list(range(n_players))
    strength = {p: 2400 - 1200 * p / max(1, n_players) + rnd.gauss(0, 100) for p in players}
    results: list[MatchResult] = []
    for _ in range(prior_rounds):
        results += _simulate_results(swiss_pair_round(players, results, config=config), rnd, strength)
    total = 0.0
    for _ in range(rounds):
        start = time.perf_counter()
        pairing = swiss_pair_round(players, results, config=config)
        total += time.perf_counter() - start
        results += _simulate_results(pairing, rnd, strength)
    return total / max(1, rounds)
