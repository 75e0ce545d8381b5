"""Writes to the match store: creating a match, a seat's action, a forfeit. The API views, the Celery
tasks and the management commands all call these; none of them writes a match or an event another way.

Each checks the request against the match and its engine, then appends through `matches.store` inside
one transaction holding the match row's lock; anything refused writes nothing.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any, Iterable, Literal

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction

from core.errors import ApplicationError, Conflict, Forbidden, Rejected
from engines.chance import seed_commitment
from engines.errors import EngineError, IllegalAction
from engines.protocol import Event, Game
from engines.registry import get_game
from matches.models import Match, MatchEvent, MatchSeat
from matches.selectors import MatchSnapshot, match_get, match_seat_indices, match_snapshot
from matches.store import chance_and_bots_play, event_append, projection_update
from matches.tasks import match_play


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
    transaction; "worker" a Celery worker after commit; "caller" whoever then calls `store.match_advance`;
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
        transaction.on_commit(lambda: match_play.delay(match.pk))
    elif bots_play == "now":
        snapshot, _ = chance_and_bots_play(match, game, snapshot)
    projection_update(match, game, snapshot)
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
        game.apply(state := snapshot.state, Event.action(seat, action))
    except IllegalAction as error:
        raise _engine_error(error) from None
    event = event_append(match, snapshot.seq + 1, Event.action(seat, action), actor=user, idempotency_key=idempotency_key)
    snapshot, appended = chance_and_bots_play(match, game, MatchSnapshot(state, event.seq))
    projection_update(match, game, snapshot)
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
        game.apply(state := snapshot.state, forfeit)
    except IllegalAction as error:
        raise _engine_error(error) from None
    event = event_append(match, snapshot.seq + 1, forfeit, actor=user)
    snapshot, appended = chance_and_bots_play(match, game, MatchSnapshot(state, event.seq))
    projection_update(match, game, snapshot)
    return AppendResult(match=match, event=event, appended=appended, snapshot=snapshot)


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
