"""Single and double elimination brackets.

Sources and conventions:
- Standard seeding order (as used by tennis draws, the NCAA and Challonge): the bracket of 2s slots is
  built from the one of s by putting seed x beside seed 2s+1-x, so 1 v 16, 8 v 9, 4 v 13, ...
  and seeds 1 and 2 can only meet in the final.
- A field that is not a power of two is padded with phantom seeds n+1..2^k; a match against a phantom
  is a bye for the real player. Because of the seeding order the byes go to the top seeds.
- Double elimination: losers of winners' round 1 meet in losers' round 1; each later winners' round
  drops its losers into an even losers' round (2j), against the survivors of the odd losers' round
  before it. To avoid early rematches the drop-in order alternates: reversed in the first drop-in
  round, halves swapped in the next, reversed again, ... (the "split and reverse" method used by
  Challonge and most double-elimination charts). Grand final: winners' champion (slot 0) v losers'
  champion (slot 1); with `bracket_reset`, a second grand final is played only if the losers'
  champion wins the first one (both then have one loss).

A bracket is a static value: matches, their slots and where each slot comes from ("seed 5",
"winner of W1-3", "loser of W2-1"), plus winner_to / loser_to. Matches that would contain a phantom are
resolved when the bracket is built and do not appear: a slot fed by a bye match is rewired to the
real player's own source. `bracket_progress` folds reported results over the bracket: who sits in each
slot, which matches are ready, who won, the placements, and the problems in the reports (returned, not
raised).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .common import FormatError, PlayerId, Problem


@dataclass(frozen=True)
class Source:
    kind: str  # "seed" (ref = 1-based seed), "winner" or "loser" (ref = match id)
    ref: int | str

    def __str__(self) -> str:
        return f"seed {self.ref}" if self.kind == "seed" else f"{self.kind} of {self.ref}"


@dataclass(frozen=True)
class BracketMatch:
    id: str
    bracket: str  # "winners", "losers", "grand_final", "third_place"
    round: int
    best_of: int
    slots: tuple[Source, Source]
    winner_to: tuple[str, int] | None = None
    loser_to: tuple[str, int] | None = None
    conditional: bool = False  # the bracket-reset grand final: played only if needed


@dataclass(frozen=True)
class Bracket:
    kind: str  # "single" or "double"
    seeds: tuple[PlayerId, ...]
    size: int  # power of two
    matches: tuple[BracketMatch, ...]  # in an order where every source comes first
    deciders: tuple[str, ...]  # the final (single), or GF1[, GF2] (double)
    third_place: str | None
    # Groups of match ids whose losers are eliminated there, best finish first, with the place.
    elimination_places: tuple[tuple[int, tuple[str, ...]], ...]

    def match(self, match_id: str) -> BracketMatch:
        for m in self.matches:
            if m.id == match_id:
                return m
        raise FormatError(f"no match {match_id!r}", code="bracket/unknown_match")


def seeding_order(size: int) -> tuple[int, ...]:
    """Seed numbers slot by slot for a bracket of `size` (a power of two): 1, 16, 8, 9, 4, 13, ..."""
    if size < 1 or size & (size - 1):
        raise FormatError("bracket size must be a power of two", code="bracket/bad_size")
    order = [1]
    while len(order) < size:
        s = 2 * len(order)
        order = [x for seed in order for x in (seed, s + 1 - seed)]
    return tuple(order)


def _per_round(value: int | Sequence[int], rounds: int, what: str) -> list[int]:
    values = [value] if isinstance(value, int) else list(value)
    if not values or any((not isinstance(v, int)) or v < 1 for v in values):
        raise FormatError(f"{what}: best-of must be positive integers", code="bracket/bad_best_of")
    return [values[min(r, len(values) - 1)] for r in range(max(rounds, 1))]


_EMPTY = None


def _build(kind, seeds, raw, deciders, third_place) -> Bracket:
    """Prune phantom matches out of `raw` [(id, bracket, round, best_of, (src, src), conditional)]."""
    n = len(seeds)
    status: dict[str, tuple[str, Source | None]] = {}

    def resolve(src: Source) -> Source | None:
        if src.kind == "seed":
            return src if src.ref <= n else _EMPTY
        state, through = status[src.ref]
        if state == "real":
            return src
        if state == "pass" and src.kind == "winner":
            return through
        return _EMPTY

    real = []
    for mid, bracket, rnd, best_of, slots, conditional in raw:
        a, b = resolve(slots[0]), resolve(slots[1])
        if a is not None and b is not None:
            status[mid] = ("real", None)
            real.append(BracketMatch(mid, bracket, rnd, best_of, (a, b), conditional=conditional))
        elif a is None and b is None:
            status[mid] = ("empty", None)
        else:
            status[mid] = ("pass", a if a is not None else b)
    feeds: dict[tuple[str, str], tuple[str, int]] = {}
    for m in real:
        for k, src in enumerate(m.slots):
            if src.kind != "seed":
                feeds[(src.kind, src.ref)] = (m.id, k)
    matches = tuple(
        BracketMatch(
            m.id,
            m.bracket,
            m.round,
            m.best_of,
            m.slots,
            feeds.get(("winner", m.id)),
            feeds.get(("loser", m.id)),
            m.conditional,
        )
        for m in real
    )
    real_ids = {m.id for m in matches}
    third = third_place if third_place in real_ids else None
    # Places: champion and runner-up (2), third-place match (2), then eliminations, latest first.
    special = set(deciders) | ({third} if third else set())
    stages: dict[tuple[int, int], list[str]] = {}
    for m in matches:
        if m.loser_to is None and m.id not in special:
            key = (1 if m.bracket == "losers" else 0, m.round) if kind == "double" else (0, m.round)
            stages.setdefault(key, []).append(m.id)
    above = 2 + (2 if third else 0)
    places = []
    for key in sorted(stages, reverse=True):
        places.append((above + 1, tuple(stages[key])))
        above += len(stages[key])
    return Bracket(
        kind,
        tuple(seeds),
        _size(n),
        matches,
        tuple(d for d in deciders if d in real_ids),
        third,
        tuple(places),
    )


def _size(n: int) -> int:
    size = 1
    while size < n:
        size *= 2
    return size


def _winners_rounds(size: int, best_of: list[int], raw: list) -> int:
    order = seeding_order(size)
    k = size.bit_length() - 1
    for i in range(size // 2):
        raw.append(
            (
                f"W1-{i + 1}",
                "winners",
                1,
                best_of[0],
                (Source("seed", order[2 * i]), Source("seed", order[2 * i + 1])),
                False,
            )
        )
    for r in range(2, k + 1):
        for i in range(size >> r):
            raw.append(
                (
                    f"W{r}-{i + 1}",
                    "winners",
                    r,
                    best_of[r - 1],
                    (Source("winner", f"W{r - 1}-{2 * i + 1}"), Source("winner", f"W{r - 1}-{2 * i + 2}")),
                    False,
                )
            )
    return k


def _check(seeds: Sequence[PlayerId]) -> tuple:
    seeds = tuple(seeds)
    if len(seeds) < 2:
        raise FormatError("a bracket needs at least 2 players", code="bracket/too_few_players")
    if len(set(seeds)) != len(seeds):
        raise FormatError("a player appears twice", code="bracket/duplicate_player")
    return seeds


def single_elimination(
    seeds: Sequence[PlayerId], *, best_of: int | Sequence[int] = 1, third_place: bool = False
) -> Bracket:
    """A single-elimination bracket over `seeds` (seed order; see `common.seed_players`).
    `best_of`: one N for all rounds, or one per round (the last repeats)."""
    seeds = _check(seeds)
    size = _size(len(seeds))
    k = size.bit_length() - 1
    per_round = _per_round(best_of, k, "best_of")
    raw: list = []
    _winners_rounds(size, per_round, raw)
    final = f"W{k}-1"
    third = None
    if third_place and k >= 2:
        # Only when both semi-finals are real matches; otherwise both semi-final losers share third.
        if _semis_have_two(seeds, size):
            third = "3P"
            raw.append(
                (
                    third,
                    "third_place",
                    k,
                    per_round[-1],
                    (Source("loser", f"W{k - 1}-1"), Source("loser", f"W{k - 1}-2")),
                    False,
                )
            )
    return _build("single", seeds, raw, (final,), third)


def _semis_have_two(seeds, size) -> bool:
    order = seeding_order(size)
    quarter = size // 2
    return all(sum(1 for s in order[h * quarter : (h + 1) * quarter] if s <= len(seeds)) >= 2 for h in (0, 1))


def double_elimination(
    seeds: Sequence[PlayerId],
    *,
    best_of: int | Sequence[int] = 1,
    losers_best_of: int | Sequence[int] | None = None,
    final_best_of: int | None = None,
    bracket_reset: bool = True,
) -> Bracket:
    """A double-elimination bracket: winners' rounds W1..Wk, losers' rounds L1..L(2k-2), grand final
    GF1 and (with `bracket_reset`) the conditional GF2."""
    seeds = _check(seeds)
    size = _size(len(seeds))
    k = size.bit_length() - 1
    wb = _per_round(best_of, k, "best_of")
    lb = _per_round(losers_best_of if losers_best_of is not None else best_of, 2 * k - 2, "losers_best_of")
    gf = final_best_of if final_best_of is not None else wb[-1]
    raw: list = []
    _winners_rounds(size, wb, raw)
    if k >= 2:
        for i in range(size // 4):
            raw.append(
                (
                    f"L1-{i + 1}",
                    "losers",
                    1,
                    lb[0],
                    (Source("loser", f"W1-{2 * i + 1}"), Source("loser", f"W1-{2 * i + 2}")),
                    False,
                )
            )
        for j in range(1, k):
            count = size >> (j + 1)
            for i in range(count):
                if j % 2 == 1:
                    drop = count - i  # reversed
                else:
                    drop = (i + count // 2) % count + 1  # halves swapped
                raw.append(
                    (
                        f"L{2 * j}-{i + 1}",
                        "losers",
                        2 * j,
                        lb[2 * j - 1],
                        (Source("winner", f"L{2 * j - 1}-{i + 1}"), Source("loser", f"W{j + 1}-{drop}")),
                        False,
                    )
                )
            if j < k - 1:
                for i in range(count // 2):
                    raw.append(
                        (
                            f"L{2 * j + 1}-{i + 1}",
                            "losers",
                            2 * j + 1,
                            lb[2 * j],
                            (
                                Source("winner", f"L{2 * j}-{2 * i + 1}"),
                                Source("winner", f"L{2 * j}-{2 * i + 2}"),
                            ),
                            False,
                        )
                    )
        lb_champion = Source("winner", f"L{2 * k - 2}-1")
    else:
        lb_champion = Source("loser", "W1-1")
    raw.append(("GF1", "grand_final", 1, gf, (Source("winner", f"W{k}-1"), lb_champion), False))
    deciders = ("GF1",)
    if bracket_reset:
        raw.append(("GF2", "grand_final", 2, gf, (Source("winner", "GF1"), Source("loser", "GF1")), True))
        deciders = ("GF1", "GF2")
    return _build("double", seeds, raw, deciders, None)


@dataclass(frozen=True)
class Report:
    """A reported match: the winner and optionally the games (winner's wins, loser's wins)."""

    winner: PlayerId
    games: tuple[int, int] | None = None


@dataclass(frozen=True)
class BracketProgress:
    slots: dict  # match id -> (slot 0 player or None, slot 1 player or None)
    status: dict  # match id -> "waiting" | "ready" | "done" | "not_needed"
    winners: dict  # match id -> winner
    ready: tuple[str, ...]  # matches that can be played now, in bracket order
    finished: bool
    champion: PlayerId | None
    placements: tuple[tuple[int, PlayerId], ...]  # (place, player), known so far; ties share a place
    problems: tuple[Problem, ...]


def bracket_progress(bracket: Bracket, reports: Mapping[str, Report | PlayerId]) -> BracketProgress:
    """Advance players through `bracket` with the results reported so far."""
    by_id = {m.id: m for m in bracket.matches}
    problems = [
        Problem("bracket/unknown_match", f"no match {mid!r} in this bracket")
        for mid in reports
        if mid not in by_id
    ]
    slots, status, winners, losers = {}, {}, {}, {}

    def occupant(src: Source):
        if src.kind == "seed":
            return bracket.seeds[src.ref - 1]
        return (winners if src.kind == "winner" else losers).get(src.ref)

    for m in bracket.matches:
        pair = (occupant(m.slots[0]), occupant(m.slots[1]))
        slots[m.id] = pair
        if m.conditional:
            first = m.slots[0].ref
            if first not in winners:
                status[m.id] = "waiting"
                if m.id in reports:
                    problems.append(Problem("bracket/not_ready", f"{m.id} is not ready"))
                continue
            gf1 = by_id[first]
            if winners[first] == occupant(gf1.slots[0]):  # the winners' champion won: no reset
                status[m.id] = "not_needed"
                if m.id in reports:
                    problems.append(
                        Problem(
                            "bracket/not_needed", f"{m.id} is not played: the winners' champion won {first}"
                        )
                    )
                continue
        if pair[0] is None or pair[1] is None:
            status[m.id] = "waiting"
            if m.id in reports:
                problems.append(
                    Problem("bracket/not_ready", f"{m.id} is not ready: its players are not known yet")
                )
            continue
        report = reports.get(m.id)
        if report is None:
            status[m.id] = "ready"
            continue
        if not isinstance(report, Report):
            report = Report(report)
        if report.winner not in pair:
            problems.append(Problem("bracket/wrong_winner", f"{report.winner!r} does not play in {m.id}"))
            status[m.id] = "ready"
            continue
        if report.games is not None:
            need = m.best_of // 2 + 1
            w, lost = report.games
            if w != need or not 0 <= lost < need:
                problems.append(
                    Problem(
                        "bracket/bad_score",
                        f"{m.id} is best of {m.best_of}: the winner needs {need} game wins, got {w}-{lost}",
                    )
                )
                status[m.id] = "ready"
                continue
        winners[m.id] = report.winner
        losers[m.id] = pair[1] if report.winner == pair[0] else pair[0]
        status[m.id] = "done"
    placements: list[tuple[int, PlayerId]] = []
    champion = None
    decider = None
    for d in bracket.deciders:
        if status.get(d) == "done":
            decider = d
    finished = decider is not None and all(s in ("done", "not_needed") for s in status.values())
    if finished:
        champion = winners[decider]
        placements += [(1, champion), (2, losers[decider])]
    if bracket.third_place and status.get(bracket.third_place) == "done":
        placements += [(3, winners[bracket.third_place]), (4, losers[bracket.third_place])]
    for place, ids in bracket.elimination_places:
        placements += [(place, losers[mid]) for mid in ids if mid in losers]
    placements.sort(key=lambda pp: pp[0])
    ready = tuple(m.id for m in bracket.matches if status[m.id] == "ready")
    return BracketProgress(
        slots, status, winners, ready, finished, champion, tuple(placements), tuple(problems)
    )
