"""Reads of the match store: the current state (from the live state, `matches.live`), per-seat
views, redacted event listings and provable-fairness verification. Nothing here writes to the
database."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Generic, TypeVar

from django.db.models import Max, Q, QuerySet
from django.db.models.functions import Coalesce

from core.errors import Conflict, Forbidden, NotFound
from engines.fairness import Verification, verify_log
from engines.protocol import Decision, Game
from engines.registry import get_game
from matches.live import live_checkin, live_checkout, live_peek
from matches.models import Match

S = TypeVar("S")


@dataclass(frozen=True)
class MatchSnapshot(Generic[S]):
    """The state a log rebuilds to, and the sequence number of its last event (0 for none)."""

    state: S
    seq: int


def match_get(*, match_id: int, for_update: bool = False) -> Match:
    queryset = Match.objects.all()
    if for_update:
        queryset = queryset.select_for_update()
    try:
        return queryset.get(pk=match_id)
    except Match.DoesNotExist:
        raise NotFound(f"no match {match_id}", code="match/not_found") from None


def match_list() -> QuerySet[Match]:
    queryset = Match.objects.prefetch_related("seats__user").annotate(seq=Coalesce(Max("events__seq"), 0))
    return queryset.order_by("-created_at", "-id")


def match_game(match: Match) -> Game:
    return get_game(match.game)


def match_head_seq(match: Match) -> int:
    last = match.events.order_by("-seq").values_list("seq", flat=True).first()
    return last or 0


def match_snapshot(match: Match) -> MatchSnapshot:
    """The match's current state (a copy the caller may keep) and its seq: the live state when it is
    at the log's head, else the live state caught up with the log (or rebuilt from it)."""
    seq = match_head_seq(match)
    state = live_peek(match, seq)
    if state is not None:
        return MatchSnapshot(state, seq)
    live = live_checkout(match, at_head=True)
    snapshot = MatchSnapshot(live.state.clone(), live.seq)
    live_checkin(live)
    return snapshot


def match_seat_indices(match: Match, user) -> list[int]:
    if user is None or not user.is_authenticated:
        return []
    return [seat.index for seat in match.seats.all() if seat.user_id == user.pk]


def match_viewer_seat(match: Match, user, requested: int | None) -> int | None:
    """The seat whose eyes `user` sees through: a seat they hold, or None for a spectator."""
    held = match_seat_indices(match, user)
    if requested is not None:
        if requested not in held:
            raise Forbidden(f"seat {requested} is not yours", code="seat/not_yours")
        return requested
    return held[0] if held else None


def match_decision(match: Match, snapshot: MatchSnapshot | None = None) -> Decision:
    snapshot = snapshot or match_snapshot(match)
    return match_game(match).decision(snapshot.state)


def match_event_listing(match: Match, *, viewer_seat: int | None, after: int = 0) -> list[dict[str, Any]]:
    """The log as `viewer_seat` may read it: while the match runs, a payload whose audience excludes
    the viewer is withheld (a shuffle, a face-down commit); once it is over, everything is public."""
    rows = list(match.events.order_by("seq").select_related("actor"))
    game = match_game(match)
    finished = match.is_finished
    state = game.new_state(seats=match.seats.count(), options=match.options)
    listing = []
    for row in rows:
        event = row.to_engine()
        audience = None if finished else game.event_audience(state, event)
        visible = audience is None or (viewer_seat is not None and viewer_seat in audience)
        if row.seq > after:
            listing.append(
                {
                    "seq": row.seq,
                    "kind": row.kind,
                    "seat": row.seat,
                    "payload": row.payload if visible else None,
                    "redacted": not visible,
                    "actor": row.actor.get_username() if row.actor_id else None,
                    "created_at": row.created_at,
                }
            )
        if not finished:
            game.apply(state, event)
    return listing


def match_verify(match: Match) -> Verification:
    if not match.is_finished:
        raise Conflict("the seed is revealed, and the match verifiable, once it is finished", code="match/not_finished")
    rows = match.events.order_by("seq")
    return verify_log(
        match_game(match),
        seats=match.seats.count(),
        options=match.options,
        seed=bytes(match.seed),
        commitment=match.seed_commitment,
        events=((row.seq, row.to_engine()) for row in rows),
        recorded_outcome=match.outcome,
    )


def matches_stalled(*, stalled_after: timedelta, now: datetime) -> list[int]:
    """Running matches whose next move is chance's or a bot's and whose log has not moved for
    `stalled_after`: a worker died on them, or their task was lost."""
    cutoff = now - stalled_after
    candidates = (
        Match.objects.filter(status=Match.Status.RUNNING)
        .annotate(last_event_at=Max("events__created_at"))
        .filter(Q(last_event_at__lte=cutoff) | Q(last_event_at__isnull=True, created_at__lte=cutoff))
        .prefetch_related("seats")
        .order_by("pk")
    )
    stalled = []
    for match in candidates:
        bot_seats = {seat.index for seat in match.seats.all() if seat.bot}
        decision = match_decision(match)
        if decision.kind == "chance" or decision.seats & bot_seats:
            stalled.append(match.pk)
    return stalled
