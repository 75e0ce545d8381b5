"""`engines.playout.play_forward`, the service's engine loop: whom it stops for, what it does with a
failing bot, and `playout`, a whole match played with it."""

from __future__ import annotations

import random

import pytest

from engines.bots import RandomBot
from engines.playout import play_forward, playout, service_bot_rngs
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
        rng_for=service_bot_rngs(b"seed", 1),
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
        game,
        state,
        bots=[RandomBot(), RandomBot()],
        after=0,
        chance_key=None,
        rng_for=service_bot_rngs(b"seed", 1),
        limit=100,
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


def test_the_service_hands_each_seat_its_own_generator_for_the_run() -> None:
    """One generator per seat, asked for at each of its moves and made at its first, so each seat's
    choices depend only on its own draws."""
    rng_for = service_bot_rngs(b"seed", 8)
    asked = []

    def recording(seat: int) -> random.Random:
        asked.append(seat)
        return rng_for(seat)

    state = GAME.new_state(seats=2, options=None)
    events = play_forward(
        GAME,
        state,
        bots=[RandomBot(), RandomBot()],
        after=7,
        chance_key=b"seed",
        rng_for=recording,
        limit=10_000,
    )
    assert asked == [event.seat for event in events if event.kind == "action"] and set(asked) == {0, 1}
    assert rng_for(0) is rng_for(0) and rng_for(0) is not rng_for(1)


def test_the_service_generators_come_from_the_seed_the_run_and_the_seat() -> None:
    def first_draw(seed: bytes, first_seq: int, seat: int) -> float:
        return service_bot_rngs(seed, first_seq)(seat).random()

    assert first_draw(b"seed", 8, 0) == first_draw(b"seed", 8, 0)
    others = {first_draw(b"seed", 9, 0), first_draw(b"seed", 8, 1), first_draw(b"other", 8, 0)}
    assert first_draw(b"seed", 8, 0) not in others and len(others) == 3


def test_a_run_of_bots_is_reproducible() -> None:
    """Two copies of one task, each starting a run at the same event, write the same events."""
    logs = []
    for _ in range(2):
        state = GAME.new_state(seats=2, options=None)
        logs.append(_forward(state, [RandomBot(), RandomBot()]))
    assert logs[0] == logs[1] and logs[0]


def test_playout_plays_to_the_end_or_says_it_did_not() -> None:
    state, log = playout(GAME, seats=2, seed=b"whole")
    assert GAME.outcome(state) is not None
    assert replay(GAME, seats=2, options=None, events=log).state == state
    with pytest.raises(RuntimeError, match="no end after 3 events"):
        playout(GAME, seats=2, seed=b"whole", max_events=3)
