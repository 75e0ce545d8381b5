"""The event store's write path: events appended at the head of a match's log, chance and bots played
forward, and the match row's projection (status, outcome) kept in step.

Callers hold the match row's lock (`select_for_update` on PostgreSQL; SQLite's IMMEDIATE transactions
serialise writers), and the unique (match, seq) index is the last word: two writers can never both
append the same sequence number. The use cases on top are in `matches.services`.
"""

from __future__ import annotations

import hashlib
import hmac
import random

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core.errors import ApplicationError
from engines.chance import draw
from engines.errors import IllegalAction
from engines.protocol import Event, Game, Turn
from engines.registry import get_game
from matches.models import Match, MatchEvent
from matches.selectors import MatchSnapshot, match_get, match_snapshot, match_snapshot_remember
from matches.signals import match_finished


def match_advance(*, match_id: int, chunk: int | None = None) -> int:
    """Let chance and bots play until a person must decide or the match ends; returns events added.

    Each chunk of events is its own transaction under the match lock, so a worker killed mid-match
    leaves a consistent, committed prefix of the log that the next run simply continues; a second
    copy of the same task waits for the lock and then finds nothing (or less) left to do.
    """
    chunk = chunk or settings.SNAKEPIT_ADVANCE_CHUNK
    total = 0
    while True:
        with transaction.atomic():
            match = match_get(match_id=match_id, for_update=True)
            if match.is_finished:
                return total
            game = get_game(match.game)
            snapshot, appended = chance_and_bots_play(match, game, match_snapshot(match), limit=chunk)
            projection_update(match, game, snapshot)
        total += len(appended)
        if len(appended) < chunk:
            return total



def event_append(match: Match, seq: int, event: Event, *, actor=None, idempotency_key: str | None = None) -> MatchEvent:
    row = _event_row(match, seq, event, actor=actor, idempotency_key=idempotency_key)
    row.save(force_insert=True)
    return row


def _event_row(match: Match, seq: int, event: Event, *, actor=None, idempotency_key: str | None = None) -> MatchEvent:
    return MatchEvent(
        match=match,
        seq=seq,
        kind=event.kind,
        seat=event.seat,
        payload=dict(event.payload),
        actor=actor,
        idempotency_key=idempotency_key or None,
    )


def _bot_rng(match: Match, seq: int) -> random.Random:
    # Bots are seeded from the match seed too, so a bot match is reproducible end to end; their choices
    # are logged as ordinary actions, so replay never needs this.
    digest = hmac.new(bytes(match.seed), f"snakepit/bot/{seq}".encode(), hashlib.sha256).digest()
    return random.Random(int.from_bytes(digest, "big"))


def chance_and_bots_play(
    match: Match, game: Game, snapshot: MatchSnapshot, *, limit: int | None = None
) -> tuple[MatchSnapshot, list[MatchEvent]]:
    """Append chance outcomes and bot actions until a person must decide or the match is over.

    Without a `limit`, running past SNAKEPIT_MAX_AUTO_EVENTS means an engine never hands the turn
    back, and is an error; with one, it is the caller's chunk size and the caller loops.
    """
    bot_seats = {seat.index: seat.bot for seat in match.seats.all() if seat.bot}
    bots = game.bots()
    pending: list[MatchEvent] = []
    state, seq = snapshot.state, snapshot.seq
    for _ in range(limit or settings.SNAKEPIT_MAX_AUTO_EVENTS):
        decision = game.decision(state)
        if decision.kind == "over":
            break
        if decision.kind == "chance":
            event = Event.chance_outcome(draw(bytes(match.seed), seq + 1, game.chance_request(state)))
            game.apply(state, event)
        else:
            acting = sorted(seat for seat in decision.seats if seat in bot_seats)
            if not acting:
                break
            event = _bot_move(match, game, state, acting[0], bots[bot_seats[acting[0]]], seq + 1)
        seq += 1
        pending.append(_event_row(match, seq, event))
    else:
        if not limit:
            raise ApplicationError(
                f"match {match.pk}: chance and bots made {settings.SNAKEPIT_MAX_AUTO_EVENTS} moves in a row",
                code="match/runaway",
                status=500,
            )
    # One INSERT for the whole run: chance and bot moves arrive by the hundred in bot matches.
    return MatchSnapshot(state, seq), MatchEvent.objects.bulk_create(pending)


def _bot_move(match: Match, game: Game, state, seat: int, bot, seq: int) -> Event:
    """Apply the bot's action to `state` and return it, or its forfeit when the bot crashes or acts
    illegally (a refused action leaves the state as it was, so the forfeit applies to that)."""
    try:
        event = Event.action(seat, bot.act(Turn(game, state, seat), _bot_rng(match, seq)))
        game.apply(state, event)
        return event
    except IllegalAction as error:
        reason = f"bot {bot.name} sent an illegal action ({error.code})"
    except Exception as error:  # a crashing bot loses the match; it does not take the service down
        reason = f"bot {bot.name} crashed: {type(error).__name__}"
    forfeit = Event.forfeit(seat, reason)
    game.apply(state, forfeit)
    return forfeit


def projection_update(match: Match, game: Game, snapshot: MatchSnapshot) -> None:
    """Keep the queryable projection (status, outcome) in step with the log, and cache the state."""
    match_snapshot_remember(match, snapshot)
    outcome = game.outcome(snapshot.state)
    if outcome is not None and not match.is_finished:
        match.status = Match.Status.FINISHED
        match.outcome = outcome.to_json()
        match.finished_at = timezone.now()
        match.save(update_fields=["status", "outcome", "finished_at"])
        match_id = match.pk
        transaction.on_commit(lambda: match_finished.send(sender=Match, match_id=match_id))
