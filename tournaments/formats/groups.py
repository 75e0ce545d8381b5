"""Groups, then playoffs.

Players are dealt into groups by snake seeding (group A gets seeds 1, 2g, 2g+1, ...; group B seeds 2,
2g-1, ...), each group plays a round robin (or a Swiss), and the top K of each group fill an
elimination bracket. Cross-seeding: group winners take the top seeds in group order, then each lower
tier is placed, seed slot by seed slot, so that players from the same group meet as late as the
bracket allows — with two groups this gives the classic A1 v B2, B1 v A2, A1 and A2 in opposite halves.
"""

from __future__ import annotations

from collections.abc import Sequence

from .common import FormatError, PlayerId
from .elimination import Bracket, double_elimination, seeding_order, single_elimination


def snake_groups(seeds: Sequence[PlayerId], n_groups: int) -> tuple[tuple[PlayerId, ...], ...]:
    if n_groups < 1 or n_groups > len(seeds):
        raise FormatError("bad number of groups", code="groups/bad_count")
    groups: list[list[PlayerId]] = [[] for _ in range(n_groups)]
    for k, p in enumerate(seeds):
        band, pos = divmod(k, n_groups)
        groups[pos if band % 2 == 0 else n_groups - 1 - pos].append(p)
    return tuple(tuple(g) for g in groups)


def _meeting_round(a: int, b: int) -> int:
    """Round in which bracket slots a and b can first meet (1 = first round)."""
    return (a ^ b).bit_length()


def playoff_seeds(group_standings: Sequence[Sequence[PlayerId]], top: int) -> tuple[PlayerId, ...]:
    """Bracket seed order for the top `top` of each group (each standing list best first)."""
    tiers = [
        [(g, standing[r]) for g, standing in enumerate(group_standings) if r < len(standing)]
        for r in range(top)
    ]
    total = sum(len(t) for t in tiers)
    if total < 2:
        raise FormatError("fewer than 2 players qualify", code="groups/too_few_qualifiers")
    size = 1
    while size < total:
        size *= 2
    slot_of_seed = {seed: slot for slot, seed in enumerate(seeding_order(size))}
    seeds: list[tuple[int, PlayerId]] = list(tiers[0])
    for tier in tiers[1:]:
        left = list(tier)
        while left:
            seed = len(seeds) + 1
            slot = slot_of_seed[seed]

            def score(entry, slot=slot, left=left):  # called at once, by max() below
                group = entry[0]
                same = [slot_of_seed[k + 1] for k, (g, _) in enumerate(seeds) if g == group]
                return (min((_meeting_round(slot, s) for s in same), default=99), -left.index(entry))

            best = max(left, key=score)
            left.remove(best)
            seeds.append(best)
    return tuple(p for _, p in seeds)


def groups_to_bracket(
    group_standings: Sequence[Sequence[PlayerId]], top: int, *, double: bool = False, **options
) -> Bracket:
    seeds = playoff_seeds(group_standings, top)
    return double_elimination(seeds, **options) if double else single_elimination(seeds, **options)
