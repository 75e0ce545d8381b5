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
from engines.chance import Draws
from engines.errors import IllegalAction
from engines.protocol import Bot, Decision, EngineState, Event, Game, Turn


def service_bot_rngs(seed: bytes, first_seq: int) -> Callable[[int], random.Random]:
    """The generators the service hands its built-in bots for one `play_forward` run of the match
    with this seed that starts at event `first_seq` (the `rng_for` argument): one per seat, seeded
    with HMAC-SHA256(seed, "snakepit/bot/<first_seq>/<seat>") when the seat first moves and advanced
    by each of its moves. From the match seed and where the run starts, so a bot match is reproducible
    end to end (two copies of one task start their runs at the same events, and write the same ones);
    the bots' choices are logged as ordinary actions, so replay and verification never need this.

    One generator per seat and run rather than a fresh one per move: seeding a `random.Random` costs
    several of the random bot's whole moves (issue #28; docs/bench.md)."""
    generators: dict[int, random.Random] = {}

    def rng_for(seat: int) -> random.Random:
        generator = generators.get(seat)
        if generator is None:
            digest = hmac.digest(seed, b"snakepit/bot/%d/%d" % (first_seq, seat), hashlib.sha256)
            generator = generators[seat] = random.Random(int.from_bytes(digest, "big"))
        return generator

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
    audiences: list[frozenset[int] | None] | None = None,
) -> list[Event]:
    """Advance `state` in place by chance outcomes and bot actions and return the events, numbered
    from `after + 1` on. `bots[seat]` plays that seat (None: a person, whom the loop stops for); when
    several seats decide at once, the lowest seat with a bot acts first. Chance is drawn with
    `chance_key` (None: chance must wait, for the seats' entropy); a bot is handed `rng_for(seat)`
    for each of its moves. Stops before a person's or a
    withheld chance's event, at the end of the match, or after `limit` events.

    A bot that crashes or acts illegally forfeits its seat (a refused action leaves the state as it
    was, so the forfeit applies to that); with `forfeit_failing_bots=False` its error is raised, for
    tests that must see a bot's bug.

    With an `audiences` list, each event's audience (`Game.event_audience`, read off the state just
    before the event) is appended to it in step with the events: the store keeps it on the row."""
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
            if audiences is not None:
                audiences.append(game.event_audience(state, event))
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
            event = _bot_move(
                game, state, decision, seat, bots[seat], rng_for(seat), forfeit_failing_bots, audiences
            )
        append(event)
    return events


def _bot_move(
    game: Game,
    state: EngineState,
    decision: Decision,
    seat: int,
    bot: Bot,
    rng: random.Random,
    forfeit_failing_bots: bool,
    audiences: list[frozenset[int] | None] | None,
) -> Event:
    try:
        event = Event.action(seat, bot.act(Turn(game, state, seat, decision), rng))
        audience = game.event_audience(state, event) if audiences is not None else None
        game.apply(state, event)
        if audiences is not None:
            audiences.append(audience)
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
    audience = game.event_audience(state, forfeit) if audiences is not None else None
    game.apply(state, forfeit)
    if audiences is not None:
        audiences.append(audience)
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
    than the service's generator per seat, so that logs recorded before the two paths were one
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
        rng_for=lambda seat: rng,
        limit=max_events,
        forfeit_failing_bots=False,
    )
    if game.decision(state).kind != "over":
        raise RuntimeError(f"{game.spec.key}: no end after {max_events} events")
    return state, log
