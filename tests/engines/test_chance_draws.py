"""`engines.chance.Draws`, what the service's engine loop draws with: exactly `engines.chance.draw`'s
outcomes (the published algorithm), for every kind of request, short and long seeds, and the rare
rejected word."""

from __future__ import annotations

import hashlib

import pytest

from engines import chance
from engines.chance import ChanceRequest, Draws, draw

REQUESTS = [
    ChanceRequest.dice("dice", count=1),
    ChanceRequest.dice("dice", count=2),
    ChanceRequest.dice("dice", count=3),
    ChanceRequest.dice("dice", count=4),
    ChanceRequest.dice("dice", count=5),
    ChanceRequest.dice("gamble", count=1, sides=6),
    ChanceRequest.dice("d20", count=2, sides=20),
    ChanceRequest.choice("pick", size=7),
    ChanceRequest.shuffle("deck", size=12),
]
SEEDS = [b"", bytes(8), (12345).to_bytes(8, "big"), hashlib.sha256(b"seed").digest(), b"k" * 64, b"long" * 40]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("request_", REQUESTS, ids=lambda r: f"{r.kind}-{r.count or r.size}-{r.sides}")
def test_playout_draws_equal_the_published_draw(seed: bytes, request_: ChanceRequest) -> None:
    draws = Draws(seed)
    for seq in range(1, 200):
        assert draws(seq, request_) == draw(seed, seq, request_)


def test_a_rejected_word_is_left_to_the_published_draw() -> None:
    """With n = 2**63 + 1 about half the words are rejected: the fast path must step aside."""
    request = ChanceRequest.choice("huge", size=2**63 + 1)
    dice = ChanceRequest.dice("huge", count=3, sides=2**63 + 1)
    draws = Draws(b"seed")
    for seq in range(1, 100):
        assert draws(seq, request) == draw(b"seed", seq, request)
        assert draws(seq, dice) == draw(b"seed", seq, dice)


@pytest.mark.parametrize("size", [1, 2, 3, 5, 9, 17, 33, 129, 130, 300])
def test_shuffles_of_every_length_equal_the_published_draw(size: int) -> None:
    """Shuffles take (size - 1) / 4 blocks; past `_SHUFFLE_MAX` they are left to `draw`."""
    request = ChanceRequest.shuffle("deck", size=size)
    for seed in SEEDS[:3]:
        draws = Draws(seed)
        for seq in range(1, 40):
            assert draws(seq, request) == draw(seed, seq, request)


def test_a_rejected_shuffle_word_is_left_to_the_published_draw(monkeypatch: pytest.MonkeyPatch) -> None:
    """Words of a shuffle are never rejected in practice (the limits are within n of 2**64), so the
    plan is given limits of 2**63: most shuffles then meet a word at or over it and must step aside
    to `draw`; the others are drawn here, and both must be the published outcome."""
    request = ChanceRequest.shuffle("deck", size=6)
    plan = list(chance._plan(request))
    plan[4] = (2**63,) * 5
    monkeypatch.setitem(chance._PLANS, id(request), tuple(plan))
    stepped_aside = []

    def published(seed: bytes, seq: int, request_: ChanceRequest) -> dict:
        stepped_aside.append(seq)
        return draw(seed, seq, request_)

    monkeypatch.setattr(chance, "draw", published)
    draws = Draws(b"seed")
    for seq in range(1, 200):
        assert draws(seq, request) == draw(b"seed", seq, request)
    assert 0 < len(stepped_aside) < 199
