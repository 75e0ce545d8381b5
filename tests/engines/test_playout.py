"""`engines.playout.play_forward`, the service's engine loop: whom it stops for, what it does with a
failing bot, and `playout`, a whole match played with it."""

from __future__ import annotations

import random

import pytest

from engines.bots import RandomBot
from engines.playout import bot_rng, play_forward, playout, service_bot_rngs
from engines.protocol import Bot, Turn
from engines.registry import get_game
from engines.replay import replay

GAME = get_game("rat-snake")


def _forward(state, bots, *, chance_key=b"seed", limit=10_000, **options):
    return play_forward(
        GAME,
        state,
        bots=bots,
        after=0,
        chance_key=chance_key,
        rng_for=service_bot_rngs(b"seed"),
        limit=limit,
        **options,
    )


def test_it_stops_where_a_person_must_decide_and_the_log_replays() -> None:
    state = GAME.new_state(seats=2, options=None)
    events = _forward(state, [RandomBot(), None])
    decision = GAME.decision(state)
    assert decision.kind != "over" and 1 in decision.seats
    assert all(event.seat != 1 for event in events if event.kind == "action")
    assert replay(GAME, seats=2, options=None, events=events).state == state


def test_without_a_chance_key_it_stops_before_chance() -> None:
    game = get_game("rattlebones")  # which opens with a shuffle of the tiles
    state = game.new_state(seats=2, options=None)
    assert game.decision(state).kind == "chance"
    events = play_forward(
        game, state, bots=[RandomBot(), RandomBot()], after=0, chance_key=None, rng_for=bot_rng, limit=100
    )
    assert events == [] and game.decision(state).kind == "chance"


def test_it_stops_after_the_limit() -> None:
    state = GAME.new_state(seats=2, options=None)
    assert len(_forward(state, [RandomBot(), RandomBot()], limit=5)) == 5


class _Crashing(Bot):
    name = "crashing"

    def act(self, turn: Turn, rng: random.Random):
        raise ZeroDivisionError


class _Illegal(Bot):
    name = "illegal"

    def act(self, turn: Turn, rng: random.Random):
        return {"type": "no-such-action"}


@pytest.mark.parametrize(
    ("bot", "reason"), [(_Crashing(), "crashed: ZeroDivisionError"), (_Illegal(), "illegal")]
)
def test_a_failing_bot_forfeits_its_seat(bot: Bot, reason: str) -> None:
    state = GAME.new_state(seats=2, options=None)
    events = _forward(state, [bot, bot])
    assert events[-1].kind == "forfeit" and reason in events[-1].payload["reason"]
    assert GAME.outcome(state).ranks[events[-1].seat] == 2


def test_a_failing_bot_raises_where_its_error_is_wanted() -> None:
    state = GAME.new_state(seats=2, options=None)
    with pytest.raises(ZeroDivisionError):
        _forward(state, [_Crashing(), _Crashing()], forfeit_failing_bots=False)


def test_the_service_hands_each_bot_move_its_own_generator() -> None:
    seen = []

    def rng_for(seq: int) -> random.Random:
        seen.append(seq)
        return bot_rng(b"seed", seq)

    state = GAME.new_state(seats=2, options=None)
    events = play_forward(
        GAME,
        state,
        bots=[RandomBot(), RandomBot()],
        after=7,
        chance_key=b"seed",
        rng_for=rng_for,
        limit=10_000,
    )
    actions = [seq for seq, event in enumerate(events, 8) if event.kind == "action"]
    assert seen == actions and actions
    assert bot_rng(b"seed", 8).random() == bot_rng(b"seed", 8).random() != bot_rng(b"seed", 9).random()


@pytest.mark.parametrize("seed", [b"", bytes(8), b"k" * 64, b"long" * 40])
def test_the_service_generators_are_bot_rng(seed: bytes) -> None:
    """`service_bot_rngs` does the HMAC key schedule once a match: the generators are `bot_rng`'s."""
    rng_for = service_bot_rngs(seed)
    for seq in (1, 2, 17, 12345):
        assert rng_for(seq).getstate() == bot_rng(seed, seq).getstate()


def test_playout_plays_to_the_end_or_says_it_did_not() -> None:
    state, log = playout(GAME, seats=2, seed=b"whole")
    assert GAME.outcome(state) is not None
    assert replay(GAME, seats=2, options=None, events=log).state == state
    with pytest.raises(RuntimeError, match="no end after 3 events"):
        playout(GAME, seats=2, seed=b"whole", max_events=3)
