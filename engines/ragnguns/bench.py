"""A micro-benchmark of the Rag'n'Guns deck validator, for `manage.py bench`.

Like every module under engines/, it reads no clock: the caller times the work (see
`bench_check_decks`, or give `deck_check_work` to snakepit/bench.py's rate loop). Decks are drawn
from a local, seeded `random.Random`, so every run times the same decks.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from engines.ragnguns.catalogue import Catalogue, load_catalogue, load_formats, load_prebuilt
from engines.ragnguns.decks import check_deck


def sample_decks(
    n: int, *, seed: int = 2026, catalogue: Catalogue | None = None
) -> list[tuple[str, str | None, list[str]]]:
    """n (format key, gunslinger, cards) triples: pre-built decks, by id or by name, some mangled
    (a typo, a swapped card, an extra EPIC card, a missing gunslinger) so every path is timed."""
    catalogue = catalogue if catalogue is not None else load_catalogue()
    rng = random.Random(seed)
    prebuilt = load_prebuilt(catalogue)
    formats = sorted(load_formats(catalogue))
    names = [card.name for card in catalogue]
    decks = []
    for i in range(n):
        deck = prebuilt[i % len(prebuilt)]
        gunslinger: str | None = deck.gunslinger
        cards = [catalogue.get(card_id).name if rng.random() < 0.5 else card_id for card_id in deck.cards]
        roll = rng.random()
        if roll < 0.15:
            position = rng.randrange(len(cards))
            cards[position] = cards[position][:-1] + "z"  # a typo: unknown card, did-you-mean
        elif roll < 0.30:
            cards[rng.randrange(len(cards))] = rng.choice(names)
        elif roll < 0.40:
            cards.append(rng.choice(names))
        elif roll < 0.45:
            gunslinger = None
        decks.append((formats[i % len(formats)], gunslinger, cards))
    return decks


def deck_check_work(n: int = 100, *, seed: int = 2026) -> Callable[[], int]:
    """A unit of benchmark work for a rate loop (snakepit/bench.py's `_rate`): each call checks the
    same n prepared decks and returns n, the number of checks done."""
    catalogue = load_catalogue()
    formats = load_formats(catalogue)
    decks = [
        (formats[key], gunslinger, cards)
        for key, gunslinger, cards in sample_decks(n, seed=seed, catalogue=catalogue)
    ]

    def work() -> int:
        for fmt, gunslinger, cards in decks:
            check_deck(catalogue, fmt, gunslinger, cards)
        return len(decks)

    return work


def bench_check_decks(n: int, timer: Callable[[], float]) -> float:
    """Validate n decks and return checks per second.

    The clock is the caller's (`time.perf_counter`): nothing under engines/ may read one
    (tests/engines/test_purity.py), so it is passed in.
    """
    work = deck_check_work(n)
    start = timer()
    done = work()
    elapsed = timer() - start
    return done / elapsed if elapsed > 0 else float("inf")
