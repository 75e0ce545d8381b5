"""`engines.playout`: its draws are exactly `engines.chance.draw`'s (the published algorithm), for
every kind of request, short and long seeds, and the rare rejected word."""

from __future__ import annotations

import hashlib
import random

import pytest

from engines.bots import RandomBot
from engines.chance import ChanceRequest, draw
from engines.playout import _Draws, playout
from engines.registry import game_keys, get_game

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
    draws = _Draws(seed)
    for seq in range(1, 200):
        assert draws(seq, request_) == draw(seed, seq, request_)


def test_a_rejected_word_is_left_to_the_published_draw() -> None:
    """With n = 2**63 + 1 about half the words are rejected: the fast path must step aside."""
    request = ChanceRequest.choice("huge", size=2**63 + 1)
    dice = ChanceRequest.dice("huge", count=3, sides=2**63 + 1)
    draws = _Draws(b"seed")
    for seq in range(1, 100):
        assert draws(seq, request) == draw(b"seed", seq, request)
        assert draws(seq, dice) == draw(b"seed", seq, dice)


@pytest.mark.parametrize("size", [1, 2, 3, 5, 9, 17, 33, 129, 130, 300])
def test_shuffles_of_every_length_equal_the_published_draw(size: int) -> None:
    """Shuffles take (size - 1) / 4 blocks; past `_SHUFFLE_MAX` they are left to `draw`."""
    request = ChanceRequest.shuffle("deck", size=size)
    for seed in SEEDS[:3]:
        draws = _Draws(seed)
        for seq in range(1, 40):
            assert draws(seq, request) == draw(seed, seq, request)


def test_a_rejected_shuffle_word_is_left_to_the_published_draw(monkeypatch: pytest.MonkeyPatch) -> None:
    """Words of a shuffle are never rejected in practice (the limits are within n of 2**64), so the
    plan is given limits of 2**63: most shuffles then meet a word at or over it and must step aside
    to `draw`; the others are drawn here, and both must be the published outcome."""
    from engines import playout as harness

    request = ChanceRequest.shuffle("deck", size=6)
    plan = list(harness._plan(request))
    plan[4] = (2**63,) * 5
    monkeypatch.setitem(harness._PLANS, id(request), tuple(plan))
    stepped_aside = []

    def published(seed: bytes, seq: int, request_: ChanceRequest) -> dict:
        stepped_aside.append(seq)
        return draw(seed, seq, request_)

    monkeypatch.setattr(harness, "draw", published)
    draws = _Draws(b"seed")
    for seq in range(1, 200):
        assert draws(seq, request) == draw(b"seed", seq, request)
    assert 0 < len(stepped_aside) < 199


def test_playout_events_equal_the_protocol_events() -> None:
    from engines.playout import _event
    from engines.protocol import Event

    assert _event("action", 1, {"type": "x"}) == Event.action(1, {"type": "x"})
    assert _event("chance", None, {"dice": [3]}) == Event.chance_outcome({"dice": [3]})
    assert repr(_event("chance", None, {"dice": [3]})) == repr(Event.chance_outcome({"dice": [3]}))


class _RandomThroughTurn(RandomBot):
    """The random bot reached through `Turn` and `act`, as any other bot is."""


@pytest.mark.parametrize("key", game_keys())
def test_the_inlined_random_bot_plays_exactly_like_the_random_bot(key: str) -> None:
    game = get_game(key)
    seats = max(game.spec.min_players, 2)
    for seed in (b"a", b"b", b"c"):
        fast_state, fast = playout(game, seats=seats, seed=seed)
        slow_state, slow = playout(game, seats=seats, seed=seed, bots=[_RandomThroughTurn()] * seats)
        assert fast == slow
        assert game.view(fast_state, None) == game.view(slow_state, None)


class _OwnRandom(random.Random):
    """Not a plain `random.Random`: the harness leaves the choice to its own `choice`."""


@pytest.mark.parametrize("key", game_keys())
def test_the_inlined_choice_draws_what_random_choice_draws(key: str) -> None:
    game = get_game(key)
    seats = max(game.spec.min_players, 2)
    for seed in (b"d", b"e"):
        _, fast = playout(game, seats=seats, seed=seed, rng=random.Random(seed))
        _, slow = playout(game, seats=seats, seed=seed, rng=_OwnRandom(seed))
        assert fast == slow
