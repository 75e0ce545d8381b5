"""Writes to the match store. The API views, the Celery tasks and the management commands all call
these; none of them writes a match or an event another way.

Every append happens inside one transaction holding the match row's lock (`select_for_update` on
PostgreSQL; SQLite's IMMEDIATE transactions serialise writers), and the unique (match, seq) index is
the last word: two writers can never both append the same sequence number.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Iterable, Literal

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Max, Q
from django.utils import timezone

from engines.chance import draw, seed_commitment
from engines.errors import EngineError, IllegalAction
from engines.protocol import Event, Game
from engines.registry import get_game
from snakepit.errors import ApplicationError, Conflict, Forbidden, Rejected
from tournaments.models import Match, MatchEvent, MatchSeat
from tournaments.selectors import (
    MatchSnapshot,
    match_get,
    match_seat_indices,
    match_snapshot,
    match_snapshot_remember,
)
from tournaments.signals import match_finished


@dataclass(frozen=True)
class SeatSpec:
    """Who takes a seat: exactly one of a user or a built-in bot's name."""

    user: Any = None
    bot: str = ""


@dataclass
class AppendResult:
    """What one submission wrote: the submitted event, then whatever chance and bots added after it."""

    match: Match
    event: MatchEvent
    appended: list[MatchEvent] = field(default_factory=list)
    snapshot: MatchSnapshot | None = None
    replayed: bool = False


def _engine_error(error: EngineError) -> ApplicationError:
    return Rejected(error.detail, code=error.code)


def game_setup(*, game_key: str, options: dict[str, Any] | None, seats: int | None) -> tuple[Game, dict[str, Any], int]:
    """The game, its resolved options and a checked seat count (default: the game's minimum), for
    anything that will create matches of it: a match, a ladder, a tournament."""
    try:
        game = get_game(game_key)
        seats = seats or game.spec.min_players
        game.spec.check_seat_count(seats)
        return game, game.spec.resolve_options(options), seats
    except EngineError as error:
        raise _engine_error(error) from None


@transaction.atomic
def match_create(
    *,
    game_key: str,
    seats: list[SeatSpec],
    options: dict[str, Any] | None = None,
    created_by=None,
    bots_play: Literal["auto", "now", "worker", "caller"] = "auto",
    seed: bytes | None = None,
) -> Match:
    """A new match with a fresh secret seed.

    `bots_play` says who plays chance and bots up to the first human decision: "now" in this
    transaction; "worker" a Celery worker after commit; "caller" whoever then calls `match_advance`;
    "auto" is "worker" for a match of bots only and "now" otherwise. `seed` is for tests and replays
    of known matches; a match normally gets 32 fresh bytes from the operating system.
    The resolved options (defaults filled in) are stored, so a later change of a default never
    changes how an existing match replays.
    """
    game, resolved, _ = game_setup(game_key=game_key, options=options, seats=len(seats))
    bots = game.bots()
    for index, spec in enumerate(seats):
        if (spec.user is None) == (not spec.bot):
            raise Rejected(f"seat {index} needs exactly one of a user or a bot", code="seat/invalid")
        if spec.bot and spec.bot not in bots:
            raise Rejected(
                f"{game.spec.name} has no bot {spec.bot!r}; bots: {', '.join(sorted(bots))}", code="seat/unknown_bot"
            )
    seed = seed if seed is not None else secrets.token_bytes(32)
    match = Match.objects.create(
        game=game.spec.key,
        engine_version=game.spec.version,
        options=resolved,
        seed=seed,
        seed_commitment=seed_commitment(seed),
        created_by=created_by,
    )
    MatchSeat.objects.bulk_create(
        MatchSeat(match=match, index=index, user=spec.user, bot=spec.bot) for index, spec in enumerate(seats)
    )
    snapshot = MatchSnapshot(game.new_state(seats=len(seats), options=resolved), 0)
    if bots_play == "auto":
        bots_play = "worker" if all(spec.bot for spec in seats) else "now"
    if bots_play == "worker":
        from tournaments.tasks import match_play

        transaction.on_commit(lambda: match_play.delay(match.pk))
    elif bots_play == "now":
        snapshot, _ = _advance(match, game, snapshot)
    _project(match, game, snapshot)
    return match


def match_submit_action(
    *,
    match_id: int,
    user,
    action: dict[str, Any],
    expected_seq: int,
    seat: int | None = None,
    idempotency_key: str | None = None,
) -> AppendResult:
    """Append `user`'s action for their seat, if `expected_seq` is still the head of the log.

    Order of checks: a known idempotency key returns the first result (even after the match ended);
    then a finished match refuses; then a stale `expected_seq` is a conflict carrying the current seq;
    then the engine judges the action. Anything refused writes nothing.
    """
    try:
        with transaction.atomic():
            return _submit(match_id, user, action, expected_seq, seat, idempotency_key)
    except IntegrityError:
        # Only reachable if a writer slipped past the row lock (it cannot on PostgreSQL or SQLite):
        # the unique indexes still guarantee nothing was written twice.
        raise Conflict("another append won the race; read the log and retry", code="match/stale_seq") from None


def _submit(match_id, user, action, expected_seq, seat, idempotency_key) -> AppendResult:
    match = match_get(match_id=match_id, for_update=True)
    if idempotency_key:
        earlier = match.events.filter(idempotency_key=idempotency_key).first()
        if earlier is not None:
            if earlier.payload != action or earlier.actor_id != user.pk or (seat is not None and earlier.seat != seat):
                raise Rejected(
                    "this idempotency key was already used for a different action", code="idempotency/key_reused"
                )
            return AppendResult(match=match, event=earlier, replayed=True)
    if match.is_finished:
        raise Conflict("the match is finished and accepts no more events", code="match/finished")
    seat = _acting_seat(match, user, seat)
    snapshot = match_snapshot(match)
    if expected_seq != snapshot.seq:
        raise Conflict(
            f"expected_seq {expected_seq} is stale: the log is at {snapshot.seq}",
            code="match/stale_seq",
            current_seq=snapshot.seq,
        )
    game = get_game(match.game)
    try:
        state = game.apply(snapshot.state, Event.action(seat, action))
    except IllegalAction as error:
        raise _engine_error(error) from None
    event = _append(match, snapshot.seq + 1, Event.action(seat, action), actor=user, idempotency_key=idempotency_key)
    snapshot, appended = _advance(match, game, MatchSnapshot(state, event.seq))
    _project(match, game, snapshot)
    return AppendResult(match=match, event=event, appended=appended, snapshot=snapshot)


def _acting_seat(match: Match, user, requested: int | None) -> int:
    held = match_seat_indices(match, user)
    if requested is not None:
        if requested not in held:
            raise Forbidden(f"seat {requested} is not yours to act for", code="seat/not_yours")
        return requested
    if not held:
        raise Forbidden("you hold no seat in this match", code="seat/not_yours")
    if len(held) > 1:
        deciding = get_game(match.game).decision(match_snapshot(match).state).seats
        held = [index for index in held if index in deciding] or held
        if len(held) > 1:
            raise Rejected("you hold several seats here: say which one acts", code="seat/ambiguous")
    return held[0]


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
            snapshot, appended = _advance(match, game, match_snapshot(match), limit=chunk)
            _project(match, game, snapshot)
        total += len(appended)
        if len(appended) < chunk:
            return total


@transaction.atomic
def match_forfeit(*, match_id: int, seat: int, reason: str, user=None) -> AppendResult:
    """Record that `seat` gives up (a resignation, or a bot that broke the rules or a deadline)."""
    match = match_get(match_id=match_id, for_update=True)
    if match.is_finished:
        raise Conflict("the match is finished and accepts no more events", code="match/finished")
    if user is not None and seat not in match_seat_indices(match, user):
        raise Forbidden(f"seat {seat} is not yours", code="seat/not_yours")
    game = get_game(match.game)
    snapshot = match_snapshot(match)
    forfeit = Event.forfeit(seat, reason)
    try:
        state = game.apply(snapshot.state, forfeit)
    except IllegalAction as error:
        raise _engine_error(error) from None
    event = _append(match, snapshot.seq + 1, forfeit, actor=user)
    snapshot, appended = _advance(match, game, MatchSnapshot(state, event.seq))
    _project(match, game, snapshot)
    return AppendResult(match=match, event=event, appended=appended, snapshot=snapshot)


def _append(match: Match, seq: int, event: Event, *, actor=None, idempotency_key: str | None = None) -> MatchEvent:
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


def _advance(
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
            state = game.apply(state, event)
        else:
            acting = sorted(seat for seat in decision.seats if seat in bot_seats)
            if not acting:
                break
            event, state = _bot_move(match, game, state, acting[0], bots[bot_seats[acting[0]]], seq + 1)
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


def _bot_move(match: Match, game: Game, state, seat: int, bot, seq: int):
    """The bot's action and the state after it, or its forfeit when it crashes or acts illegally."""
    try:
        action = bot.act(
            view=game.view(state, seat),
            legal_actions=game.legal_actions(state, seat),
            seat=seat,
            rng=_bot_rng(match, seq),
        )
        event = Event.action(seat, action)
        return event, game.apply(state, event)
    except IllegalAction as error:
        reason = f"bot {bot.name} sent an illegal action ({error.code})"
    except Exception as error:  # a crashing bot loses the match; it does not take the service down
        reason = f"bot {bot.name} crashed: {type(error).__name__}"
    forfeit = Event.forfeit(seat, reason)
    return forfeit, game.apply(state, forfeit)


def _project(match: Match, game: Game, snapshot: MatchSnapshot) -> None:
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


def seat_specs_from_request(entries: Iterable[dict[str, Any]]) -> list[SeatSpec]:
    """Seats as the API names them: `{"user": "<username>"}` or `{"bot": "<bot name>"}`."""
    users = get_user_model()
    specs = []
    for index, entry in enumerate(entries):
        if set(entry) == {"user"}:
            try:
                specs.append(SeatSpec(user=users.objects.get(username=entry["user"])))
            except users.DoesNotExist:
                raise Rejected(f"seat {index}: no user {entry['user']!r}", code="seat/unknown_user") from None
        elif set(entry) == {"bot"}:
            specs.append(SeatSpec(bot=str(entry["bot"])))
        else:
            raise Rejected(f'seat {index}: give exactly one of "user" or "bot"', code="seat/invalid")
    return specs


def matches_resume_stalled(*, stalled_after: timedelta | None = None, now=None) -> list[int]:
    """Hand every running match whose chance or bot move is overdue to a worker again.

    The safety net under broker redelivery: a worker killed mid-match leaves a committed prefix of
    the log, and whether or not the broker redelivers its task (Redis does after its visibility
    timeout; the filesystem broker never does), this finds the match and queues it once more.
    A duplicate is harmless: `match_advance` appends only at the log's head, under the match lock.
    """
    from tournaments.tasks import match_play

    now = now or timezone.now()
    if stalled_after is None:
        stalled_after = timedelta(seconds=settings.SNAKEPIT_STALLED_AFTER_SECONDS)
    cutoff = now - stalled_after
    candidates = (
        Match.objects.filter(status=Match.Status.RUNNING)
        .annotate(last_event_at=Max("events__created_at"))
        .filter(Q(last_event_at__lte=cutoff) | Q(last_event_at__isnull=True, created_at__lte=cutoff))
        .prefetch_related("seats")
    )
    resumed = []
    for match in candidates:
        bot_seats = {seat.index for seat in match.seats.all() if seat.bot}
        decision = get_game(match.game).decision(match_snapshot(match).state)
        if decision.kind == "chance" or decision.seats & bot_seats:
            match_play.delay(match.pk)
            resumed.append(match.pk)
    return resumed
