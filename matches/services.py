"""Writes to the match store: creating a match, a seat's action, a forfeit. The API views, the Celery
tasks and the management commands all call these; none of them writes a match or an event another way.

Each checks the request against the match's live state and its engine, then appends through
`matches.store` in one transaction of a few statements; anything refused writes nothing.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.module_loading import import_string

from core.errors import ApplicationError, Conflict, Forbidden, Rejected
from core.quotas import quota_check, quota_exempt
from engines.chance import seed_commitment
from engines.entropy import part_commitment
from engines.errors import EngineError, IllegalAction
from engines.protocol import Event, Game
from engines.registry import get_game
from matches.live import (
    LiveMatch,
    live_catch_up,
    live_checkin,
    live_checkout,
    live_forget,
    live_new,
    live_return_unchanged,
)
from matches.models import Match, MatchEvent, MatchSeat
from matches.selectors import MatchSnapshot, match_get
from matches.signals import match_voided
from matches.store import (
    NewEvent,
    bot_entropy_value,
    chance_and_bots_play,
    event_row,
    events_insert,
    moved_announce,
    projection_update,
)
from matches.tasks import match_play


@dataclass(frozen=True)
class SeatSpec:
    """Who takes a seat: exactly one of a user or a built-in bot's name, and for a game that needs a
    deck, the deck the seat brings: the fields of its `bring_deck` action (a frozen, checked deck
    version's cards). A bot without one brings its own."""

    user: Any = None
    bot: str = ""
    deck: dict[str, Any] | None = None


@dataclass
class AppendResult:
    """What one submission wrote: the submitted event, then whatever chance and bots added after it."""

    match: Match
    event: MatchEvent | NewEvent  # the stored event when an idempotency key replays it
    appended: list[NewEvent] = field(default_factory=list)
    snapshot: MatchSnapshot | None = None
    replayed: bool = False


def _engine_error(error: EngineError) -> ApplicationError:
    return Rejected(error.detail, code=error.code)


def game_setup(
    *, game_key: str, options: dict[str, Any] | None, seats: int | None
) -> tuple[Game, dict[str, Any], int]:
    """The game, its resolved options and a checked seat count (default: the game's minimum), for
    anything that will create matches of it: a match, a ladder, a tournament."""
    try:
        game = get_game(game_key)
        seats = game.spec.min_players if seats is None else seats
        game.spec.check_seat_count(seats)
        return game, game.spec.resolve_options(options), seats
    except EngineError as error:
        raise _engine_error(error) from None


def _options_at_creation(game_key: str, options: dict[str, Any] | None) -> dict[str, Any] | None:
    """Options an app above sets for every new match of a game from what holds at this moment (the
    decks app writes in the Rag'n'Guns ban list in effect): named in SNAKEPIT_MATCH_OPTIONS_AT_CREATION
    by dotted path, since this app may not import them."""
    path = settings.SNAKEPIT_MATCH_OPTIONS_AT_CREATION.get(game_key)
    if path is None:
        return options
    return import_string(path)(dict(options or {}))


@transaction.atomic
def match_create(
    *,
    game_key: str,
    seats: list[SeatSpec],
    options: dict[str, Any] | None = None,
    created_by=None,
    bots_play: Literal["auto", "now", "worker", "caller"] = "auto",
    seed: bytes | None = None,
    entropy: Literal["auto", "server", "contributed"] = "auto",
) -> Match:
    """A new match with a fresh secret seed.

    `entropy` says what chance is drawn from: "server", the committed seed alone; "contributed", the
    seed mixed with a part each seat commits to and reveals before the first chance event
    (`engines.entropy`; bots add theirs at once); "auto" is "contributed" when a person holds a seat
    and SNAKEPIT_CONTRIBUTED_ENTROPY is on (it is unless switched off), else "server".

    `bots_play` says who plays chance and bots up to the first human decision: "now" in this
    transaction; "worker" a Celery worker after commit; "caller" whoever then calls `store.match_advance`;
    "auto" is "worker" for a match of bots only and "now" otherwise. `seed` is for tests and replays
    of known matches; a match normally gets 32 fresh bytes from the operating system.
    The resolved options (defaults filled in) are stored, so a later change of a default never
    changes how an existing match replays.
    """
    game, resolved, _ = game_setup(
        game_key=game_key, options=_options_at_creation(game_key, options), seats=len(seats)
    )
    bots = game.bots()
    for index, spec in enumerate(seats):
        if (spec.user is None) == (not spec.bot):
            raise Rejected(f"seat {index} needs exactly one of a user or a bot", code="seat/invalid")
        if spec.bot and spec.bot not in bots:
            raise Rejected(
                f"{game.spec.name} has no bot {spec.bot!r}; bots: {', '.join(sorted(bots))}",
                code="seat/unknown_bot",
            )
        if game.spec.needs_deck and spec.user is not None and spec.deck is None:
            raise Rejected(
                f"seat {index}: {game.spec.name} is played with a saved deck", code="seat/deck_required"
            )
        if spec.deck is not None and not game.spec.needs_deck:
            raise Rejected(f"{game.spec.name} is played without decks", code="seat/deck_not_needed")
    if all(spec.bot for spec in seats) and not quota_exempt(created_by):
        running = Match.objects.filter(created_by=created_by, status=Match.Status.RUNNING)
        quota_check(
            created_by,
            name="bot_matches",
            what="running matches of bots only",
            current=running.exclude(seats__user__isnull=False).count(),
        )
    if entropy == "auto":
        people = any(spec.user is not None for spec in seats)
        entropy = "contributed" if people and entropy_taken_from_people() else "server"
    if entropy not in Match.Entropy.values:
        raise Rejected('entropy is "auto", "server" or "contributed"', code="match/unknown_entropy")
    seed = seed if seed is not None else secrets.token_bytes(32)
    match = Match.objects.create(
        entropy=entropy,
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
    live = live_new(
        match=match,
        game=game,
        seat_users=[spec.user.pk if spec.user else None for spec in seats],
        seat_bots=[spec.bot for spec in seats],
        state=game.new_state(seats=len(seats), options=resolved),
    )
    opening = _decks_bring(live, match, seats)
    if bots_play == "auto":
        bots_play = "worker" if all(spec.bot for spec in seats) else "now"
    if bots_play == "worker":
        transaction.on_commit(lambda: match_play.delay(match.pk))
    elif bots_play == "now":
        opening += chance_and_bots_play(live)
    events_insert(opening)
    projection_update(live)
    live_checkin(live)
    return match


def _decks_bring(live: LiveMatch, match: Match, seats: list[SeatSpec]) -> list[NewEvent]:
    """The opening `bring_deck` actions of the seats that bring a saved deck, judged by the engine
    (which knows the format's legality rules) before anything is written. The deck list is private
    to its seat until the match ends: the engine's `event_audience` says so."""
    rows = []
    for index, spec in enumerate(seats):
        if spec.deck is None:
            continue
        event = Event.action(index, {**spec.deck, "type": "bring_deck"})
        try:
            live.game.apply(live.state, event)
        except IllegalAction as error:
            raise Rejected(f"seat {index}: {error}", code="deck/illegal") from None
        live.seq += 1
        rows.append(event_row(match, live.seq, event, actor=spec.user))
    return rows


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
    then the engine judges the action. Anything refused writes nothing. When another writer takes
    the next sequence number first, the unique index refuses this one and the request is judged
    once more against the log as it then is (a conflict, or the first result of a retried key).
    """
    for _attempt in range(2):
        try:
            with transaction.atomic():
                return _submit(match_id, user, action, expected_seq, seat, idempotency_key)
        except IntegrityError:
            live_forget(match_id)
    raise Conflict("another append won the race; read the log and retry", code="match/stale_seq")


def _submit(match_id, user, action, expected_seq, seat, idempotency_key) -> AppendResult:
    match = match_get(match_id=match_id)
    if idempotency_key:
        # Keys are each user's own: stored behind the user's id, so one user's key never collides with,
        # nor tells anything about, another's.
        idempotency_key = f"{user.pk}:{idempotency_key}"
        earlier = match.events.filter(idempotency_key=idempotency_key).first()
        if earlier is not None:
            if earlier.payload != action or (seat is not None and earlier.seat != seat):
                raise Rejected(
                    "this idempotency key was already used for a different action",
                    code="idempotency/key_reused",
                )
            return AppendResult(match=match, event=earlier, replayed=True)
    _refuse_over(match)
    live = live_checkout(match)
    if expected_seq != live.seq:
        live_catch_up(live)  # this process's copy may be behind another's appends
    with _returned_unchanged_if_refused(live):
        if expected_seq != live.seq:
            raise Conflict(
                f"expected_seq {expected_seq} is stale: the log is at {live.seq}",
                code="match/stale_seq",
                current_seq=live.seq,
            )
        seat = _acting_seat(live, user, seat)
        event = Event.action(seat, action)
        try:
            live.game.apply(live.state, event)
        except IllegalAction as error:
            raise _engine_error(error) from None
    live.seq += 1
    first = event_row(match, live.seq, event, actor=user, idempotency_key=idempotency_key)
    rows = events_insert([first, *chance_and_bots_play(live)])
    projection_update(live)
    moved_announce(live, actor_seat=seat)
    live_checkin(live)
    return AppendResult(
        match=match, event=rows[0], appended=rows[1:], snapshot=MatchSnapshot(live.state.clone(), live.seq)
    )


def entropy_taken_from_people() -> bool:
    return getattr(settings, "SNAKEPIT_CONTRIBUTED_ENTROPY", True)


def _refuse_over(match: Match) -> None:
    if match.status == Match.Status.VOIDED:
        raise Conflict("the match was voided and accepts no more events", code="match/voided")
    if match.is_finished:
        raise Conflict("the match is finished and accepts no more events", code="match/finished")


@contextmanager
def _returned_unchanged_if_refused(live: LiveMatch) -> Iterator[None]:
    """A refusal changes nothing (the engine checks before it changes), so the live state is still the
    log's and goes straight back to the cache; it does not wait for a commit that will not come."""
    try:
        yield
    except ApplicationError:
        live_return_unchanged(live)
        raise


def _acting_seat(live: LiveMatch, user, requested: int | None) -> int:
    held = live.seats_of(user)
    if requested is not None:
        if requested not in held:
            raise Forbidden(f"seat {requested} is not yours to act for", code="seat/not_yours")
        return requested
    if not held:
        raise Forbidden("you hold no seat in this match", code="seat/not_yours")
    if len(held) > 1:
        deciding = live.game.decision(live.state).seats
        held = [index for index in held if index in deciding] or held
        if len(held) > 1:
            raise Rejected("you hold several seats here: say which one acts", code="seat/ambiguous")
    return held[0]


def match_forfeit(*, match_id: int, seat: int, reason: str, user=None) -> AppendResult:
    """Record that `seat` gives up (a resignation, or a bot that broke the rules or a deadline), at
    whatever the head of the log is when it is written."""
    for _attempt in range(3):
        try:
            with transaction.atomic():
                return _forfeit(match_id, seat, reason, user)
        except IntegrityError:
            live_forget(match_id)
    raise Conflict("the match kept moving; try again", code="match/stale_seq")


def _forfeit(match_id: int, seat: int, reason: str, user) -> AppendResult:
    match = match_get(match_id=match_id)
    _refuse_over(match)
    live = live_checkout(match, at_head=True)
    forfeit = Event.forfeit(seat, reason)
    with _returned_unchanged_if_refused(live):
        if user is not None and seat not in live.seats_of(user):
            raise Forbidden(f"seat {seat} is not yours", code="seat/not_yours")
        try:
            live.game.apply(live.state, forfeit)
        except IllegalAction as error:
            raise _engine_error(error) from None
    live.seq += 1
    rows = events_insert([event_row(match, live.seq, forfeit, actor=user), *chance_and_bots_play(live)])
    projection_update(live)
    moved_announce(live, actor_seat=seat)
    live_checkin(live)
    return AppendResult(
        match=match, event=rows[0], appended=rows[1:], snapshot=MatchSnapshot(live.state.clone(), live.seq)
    )


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


def match_void(*, match_id: int, by, reason: str) -> MatchEvent:
    """Call a running match off: a `void` event appended at the head of its log (nothing is deleted),
    the match marked voided with no outcome, and `match_voided` sent once it commits. Nothing rates
    or records a voided match. Voiding one already voided or finished is refused (`match/voided`,
    `match/finished`) and writes nothing, so a repeated request changes nothing."""
    reason = (reason or "").strip()
    if not reason:
        raise Rejected("say why the match is voided", code="match/void_reason_required")
    if len(reason) > 200:
        raise Rejected("a reason is at most 200 characters", code="match/void_reason_too_long")
    for _attempt in range(3):
        try:
            with transaction.atomic():
                match = match_get(match_id=match_id)
                _refuse_over(match)
                seq = match.events.order_by("-seq").values_list("seq", flat=True).first() or 0
                actor_id = by.pk if by is not None else None
                row = MatchEvent.objects.create(
                    match=match,
                    seq=seq + 1,
                    kind=MatchEvent.Kind.VOID,
                    payload={"reason": reason},
                    actor_id=actor_id,
                )
                match.status = Match.Status.VOIDED
                match.finished_at = timezone.now()
                match.save(update_fields=["status", "finished_at"])
                transaction.on_commit(lambda: match_voided.send(sender=Match, match_id=match_id))
            live_forget(match_id)
            return row
        except IntegrityError:
            live_forget(match_id)
    raise Conflict("the match kept moving; try again", code="match/stale_seq")


def match_entropy_submit(
    *, match_id: int, user, commitment: str | None = None, value: str | None = None, seat: int | None = None
) -> AppendResult:
    """A seat's entropy step: its `commitment` while the commit window is open, then its `value`.
    The step closing a window lets the bots reveal and chance play on, in the same transaction."""
    if (commitment is None) == (value is None):
        raise Rejected('send exactly one of "commitment" or "value"', code="entropy/malformed")
    payload = (
        {"step": "commit", "commitment": commitment}
        if commitment is not None
        else {"step": "reveal", "value": value}
    )
    for _attempt in range(2):
        try:
            with transaction.atomic():
                return _entropy_submit(match_id, user, payload, seat)
        except IntegrityError:
            live_forget(match_id)
    raise Conflict("another append won the race; try again", code="match/stale_seq")


def match_entropy_step_by_server(*, match_id: int, user, seat: int) -> AppendResult | None:
    """The entropy step that `seat`, held by `user` on behalf of a program (an uploaded bot's
    account), owes now: its commitment while the commit window is open, its value once the reveal
    window is; None when it owes nothing. The part is drawn from the match seed, as a built-in bot's
    (`bot_entropy_value`): a program's part protects nobody, a person's own part is what does."""
    match = match_get(match_id=match_id)
    if match.is_over or match.entropy != Match.Entropy.CONTRIBUTED:
        return None
    live = live_checkout(match, at_head=True)
    contributions = live.contributions
    phase, awaited = contributions.phase, contributions.awaited()
    live_return_unchanged(live)
    if phase == "done" or seat not in awaited:
        return None
    value = bot_entropy_value(match, seat)
    if phase == "commit":
        return match_entropy_submit(
            match_id=match_id, user=user, commitment=part_commitment(value), seat=seat
        )
    return match_entropy_submit(match_id=match_id, user=user, value=value, seat=seat)


def _entropy_submit(match_id: int, user, payload: dict[str, Any], requested: int | None) -> AppendResult:
    match = match_get(match_id=match_id)
    _refuse_over(match)
    live = live_checkout(match, at_head=True)
    with _returned_unchanged_if_refused(live):
        contributions = live.contributions
        if contributions is None:
            raise Rejected("this match draws chance from its seed alone", code="entropy/not_taken")
        held = live.seats_of(user)
        if requested is not None and requested not in held:
            raise Forbidden(f"seat {requested} is not yours", code="seat/not_yours")
        if not held:
            raise Forbidden("you hold no seat in this match", code="seat/not_yours")
        seat = requested
        if seat is None:
            waiting = [index for index in held if index in contributions.awaited()] or held
            if len(waiting) > 1:
                raise Rejected(
                    "you hold several seats here: say which one this is for", code="seat/ambiguous"
                )
            seat = waiting[0]
        try:
            contributions.apply(seat, payload)
        except IllegalAction as error:
            raise _engine_error(error) from None
    live.seq += 1
    first = NewEvent(match.pk, live.seq, MatchEvent.Kind.ENTROPY, seat, payload, actor_id=user.pk)
    rows = events_insert([first, *chance_and_bots_play(live)])
    projection_update(live)
    moved_announce(live, actor_seat=seat)
    live_checkin(live)
    return AppendResult(
        match=match, event=rows[0], appended=rows[1:], snapshot=MatchSnapshot(live.state.clone(), live.seq)
    )


def match_correct(
    *, match_id: int, previous_outcome: dict | None, outcome: dict, engine_version: str, reason: str
) -> MatchEvent | None:
    """Record that a finished match's outcome is now `outcome` (what its log gives through engine
    `engine_version`): a `correction` event appended (the log is never edited) and the projection
    follows. Idempotent: a match whose outcome is `outcome` already is left alone (None). Refused
    when the recorded outcome is no longer `previous_outcome` (the report is stale)."""
    with transaction.atomic():
        match = match_get(match_id=match_id, for_update=True)
        if not match.is_finished:
            raise Conflict(f"match {match_id} is not finished", code="match/not_finished")
        if match.outcome == outcome:
            return None
        if match.outcome != previous_outcome:
            raise Conflict(
                f"match {match_id}'s outcome is no longer the one the report read; run the report again",
                code="match/report_stale",
            )
        seq = match.events.order_by("-seq").values_list("seq", flat=True).first() or 0
        row = MatchEvent.objects.create(
            match=match,
            seq=seq + 1,
            kind=MatchEvent.Kind.CORRECTION,
            payload={
                "previous_outcome": previous_outcome,
                "outcome": outcome,
                "engine_version": engine_version,
                "reason": reason[:200],
            },
        )
        match.outcome = outcome
        match.save(update_fields=["outcome"])
    live_forget(match_id)
    return row
