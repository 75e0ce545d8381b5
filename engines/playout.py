"""Chance and bots playing a match forward: the service's engine loop, and whole matches played with it.

`play_forward` is the loop the event store runs on a live match (`matches.store.chance_and_bots_play`):
chance drawn from the match's key, bots answering for their seats, every event through `Game.apply`
with all its checks, until a person must decide, the match ends or the limit is reached. `playout`
plays a whole match with it, every seat a bot (the conformance tests, the bots' tests and the
benchmark), so what those measure and check is what the workers run.
"""

from __future__ import annotations

import hashlib
import hmac
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engines.bots import RandomBot
from engines.chance import Draws, hmac_sha256_states
from engines.errors import IllegalAction
from engines.protocol import Bot, EngineState, Event, Game, Turn


def bot_rng(seed: bytes, seq: int) -> random.Random:
    """The generator a built-in bot is handed for event `seq` of the match with this seed: from the
    match seed, so a bot match is reproducible end to end (and two copies of one task write the same
    events); the bots' choices are logged as ordinary actions, so replay never needs this."""
    digest = hmac.digest(seed, f"snakepit/bot/{seq}".encode(), hashlib.sha256)
    return random.Random(int.from_bytes(digest, "big"))


def service_bot_rngs(seed: bytes) -> Callable[[int], random.Random]:
    """`bot_rng` for one match (the `rng_for` the service hands `play_forward`), with the HMAC key
    schedule done once a match rather than once a move (`tests/engines/test_playout.py` compares)."""
    inner, outer = hmac_sha256_states(seed)
    copy_inner, copy_outer, from_bytes, new = inner.copy, outer.copy, int.from_bytes, random.Random

    def rng_for(seq: int) -> random.Random:
        hashed = copy_inner()
        hashed.update(b"snakepit/bot/%d" % seq)
        digest = copy_outer()
        digest.update(hashed.digest())
        return new(from_bytes(digest.digest(), "big"))

    return rng_for


def play_forward(
    game: Game,
    state: EngineState,
    *,
    bots: Sequence[Bot | None],
    after: int,
    chance_key: bytes | None,
    rng_for: Callable[[int], random.Random],
    limit: int,
    forfeit_failing_bots: bool = True,
) -> list[Event]:
    """Advance `state` in place by chance outcomes and bot actions and return the events, numbered
    from `after + 1` on. `bots[seat]` plays that seat (None: a person, whom the loop stops for); when
    several seats decide at once, the lowest seat with a bot acts first. Chance is drawn with
    `chance_key` (None: chance must wait, for the seats' entropy). Stops before a person's or a
    withheld chance's event, at the end of the match, or after `limit` events.

    A bot that crashes or acts illegally forfeits its seat (a refused action leaves the state as it
    was, so the forfeit applies to that); with `forfeit_failing_bots=False` its error is raised, for
    tests that must see a bot's bug."""
    events: list[Event] = []
    draws = None
    decision_of, apply, append = game.decision, game.apply, events.append
    for seq in range(after + 1, after + 1 + limit):
        decision = decision_of(state)
        kind = decision.kind
        if kind == "over":
            break
        if kind == "chance":
            if chance_key is None:
                break
            if draws is None:
                draws = Draws(chance_key)
            event = Event.chance_outcome(draws(seq, game.chance_request(state)))
            apply(state, event)
        else:
            seats = decision.seats
            if len(seats) == 1:  # a turn: the usual case, without the walk below
                (seat,) = seats
                if bots[seat] is None:
                    break
            else:
                seat = min((seat for seat in seats if bots[seat] is not None), default=None)
                if seat is None:
                    break
            event = _bot_move(game, state, seat, bots[seat], rng_for, seq, forfeit_failing_bots)
        append(event)
    return events


def _bot_move(
    game: Game,
    state: EngineState,
    seat: int,
    bot: Bot,
    rng_for: Callable[[int], random.Random],
    seq: int,
    forfeit_failing_bots: bool,
) -> Event:
    try:
        event = Event.action(seat, bot.act(Turn(game, state, seat), rng_for(seq)))
        game.apply(state, event)
        return event
    except IllegalAction as error:
        if not forfeit_failing_bots:
            raise
        reason = f"bot {bot.name} sent an illegal action ({error.code})"
    except Exception as error:  # a crashing bot loses the match; it does not take the service down
        if not forfeit_failing_bots:
            raise
        reason = f"bot {bot.name} crashed: {type(error).__name__}"
    forfeit = Event.forfeit(seat, reason)
    game.apply(state, forfeit)
    return forfeit


def playout(
    game: Game,
    *,
    seats: int,
    seed: bytes,
    options: Mapping[str, Any] | None = None,
    bots: list[Bot] | None = None,
    rng: random.Random | None = None,
    max_events: int = 100_000,
) -> tuple[Any, list[Event]]:
    """Play a whole match with `play_forward`, chance drawn from `seed`, every seat a bot (random ones
    by default), all of them handed the one generator `rng` (default: seeded with `seed`) rather
    than the service's generator per event, so that logs recorded before the two paths were one
    still replay (`tests/engines/rattlebones/test_playout.py`). A bot's error is raised, not
    forfeited. Returns the final state and the log."""
    bots = bots or [RandomBot()] * seats
    rng = rng or random.Random(seed)
    state = game.new_state(seats=seats, options=options)
    log = play_forward(
        game,
        state,
        bots=bots,
        after=0,
        chance_key=seed,
        rng_for=lambda seq: rng,
        limit=max_events,
        forfeit_failing_bots=False,
    )
    if game.decision(state).kind != "over":
        raise RuntimeError(f"{game.spec.key}: no end after {max_events} events")
    return state, log
