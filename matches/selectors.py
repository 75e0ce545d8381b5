"""Reads of the match store: the current state (from the live state, `matches.live`), per-seat
views, redacted event listings and provable-fairness verification. Nothing here writes to the
database."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Generic, TypeVar

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Count, Exists, Max, OuterRef, Prefetch, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce

from core.errors import Conflict, Forbidden, NotFound
from engines.entropy import Contributions
from engines.fairness import Verification, verify_log
from engines.protocol import Decision, Event, Game
from engines.registry import get_game
from engines.replay import replay_from
from matches.audience import audience_admits, audiences_replayed
from matches.live import live_checkin, live_checkout, live_peek
from matches.models import Match, MatchEvent, MatchSeat
from matches.sentences import Narrator, match_narrator

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
    """Matches, newest first, each with its seats and `seq` (its last event's, 0 for none). The seq is
    read per listed match from the (match, seq) index, not by grouping every match's events: a page
    of 10 costs 10 index reads however long the logs are."""
    last_seq = MatchEvent.objects.filter(match=OuterRef("pk")).order_by("-seq").values("seq")[:1]
    # The seats with their users in one query, ordered by index alone (MatchSeat's default order
    # would join each seat's match to sort by it).
    seats = Prefetch("seats", queryset=MatchSeat.objects.select_related("user").order_by("index"))
    queryset = Match.objects.prefetch_related(seats).annotate(seq=Coalesce(Subquery(last_seq), 0))
    return queryset.order_by("-created_at", "-id")


def matches_version() -> tuple[int, int]:
    """A value that differs once any match is created or ends, in one query: a new match raises the
    highest id (matches are never deleted), and an ending lowers the count running (a match only
    ever leaves running). What a listing shows of a match changes with nothing else."""
    version = Match.objects.aggregate(
        last=Max("pk"), running=Count("pk", filter=Q(status=Match.Status.RUNNING))
    )
    return version["last"] or 0, version["running"]


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


@dataclass(frozen=True)
class LoggedEvent:
    """One row of a match's log with its audience known: what every viewer's listing is cut from."""

    seq: int
    kind: str
    seat: int | None
    payload: Any
    audience: int | None  # matches/audience.py; None only for a row no replay could place
    actor: str | None
    created_at: datetime
    # The match's game and seat names, shared by every event of one read: what `describe` is told by.
    narrator: Narrator = field(compare=False, repr=False)

    def visible_to(self, viewer_seat: int | None, *, finished: bool) -> bool:
        """Whether the viewer may read the payload: everyone once the match is finished, else the
        event's audience."""
        return finished or (self.audience is not None and audience_admits(self.audience, viewer_seat))

    def as_seen(self, *, visible: bool, viewer_seat: int | None = None) -> dict[str, Any]:
        """The event as a viewer sees it; `describe` is its sentence from `viewer_seat`'s side (the
        default, None, tells it as a spectator would, naming every seat), made from the payload as
        shown here, so a withheld payload is withheld from the sentence too."""
        payload = self.payload if visible else None
        return {
            "seq": self.seq,
            "kind": self.kind,
            "seat": self.seat,
            "payload": payload,
            "redacted": not visible,
            "describe": self.describe(payload, viewer_seat=viewer_seat),
            "actor": self.actor,
            "created_at": self.created_at,
        }

    def describe(self, payload: Any, *, viewer_seat: int | None, state_before: Any = None) -> str:
        """The sentence for `payload` as shown to `viewer_seat` (None: withheld from them);
        `state_before`, where a replay has it, lets the engine name what only the board knows."""
        return self.narrator.sentence(
            self.kind, self.seat, payload, viewer=viewer_seat, state_before=state_before
        )


def match_events_after(match: Match, *, after: int = 0, limit: int | None = None) -> list[LoggedEvent]:
    """The log after seq `after` (at most `limit` events), each with its audience.

    One query on the (match, seq) index, reading only the rows listed: each row carries its audience,
    written when it was appended (matches/audience.py). Only a running match with a row whose
    audience is unknown (written by a process that predates the column, after migration 0006
    filled the rest) is replayed, to learn it as every listing once did."""
    username = f"actor__{get_user_model().USERNAME_FIELD}"
    rows = (
        match.events.filter(seq__gt=after)
        .order_by("seq")
        .values_list("seq", "kind", "seat", "payload", "audience", username, "created_at")
    )
    rows = list(rows if limit is None else rows[:limit])
    unknown = not match.is_finished and any(row[4] is None for row in rows)
    replayed = match_audiences_replayed(match) if unknown else {}
    if not rows:
        return []  # a stream's idle poll: no seats to read
    narrator = match_narrator(match)
    return [
        LoggedEvent(
            seq, kind, seat, payload, replayed.get(seq) if audience is None else audience, actor, at, narrator
        )
        for seq, kind, seat, payload, audience, actor, at in rows
    ]


def match_event_listing(match: Match, *, viewer_seat: int | None, after: int = 0) -> list[dict[str, Any]]:
    """The log after seq `after` as `viewer_seat` (None: a spectator) may read it: while the match
    runs, a payload whose audience excludes the viewer is withheld (a shuffle, a face-down commit);
    once it is finished, everything is public."""
    finished = match.is_finished
    return [
        event.as_seen(visible=event.visible_to(viewer_seat, finished=finished), viewer_seat=viewer_seat)
        for event in match_events_after(match, after=after)
    ]


def match_audiences_replayed(match: Match) -> dict[int, int]:
    """Every event's audience by seq, from a replay of the whole log (`audiences_replayed`)."""
    rows = match.events.order_by("seq").values_list("seq", "kind", "seat", "payload", "schema_version")
    return audiences_replayed(match.game, seats=match.seats.count(), options=match.options, rows=rows)


def event_as_logged(row: MatchEvent) -> Event:
    """A stored event as `engines.fairness.verify_log` reads it: the engine's own, or the store's."""
    return (
        row.to_engine() if row.is_engine_event else Event(kind=row.kind, payload=row.payload, seat=row.seat)
    )


def match_verify(match: Match) -> Verification:
    if not match.is_over:
        raise Conflict(
            "the seed is revealed, and the match verifiable, once it is finished", code="match/not_finished"
        )
    rows = match.events.order_by("seq")
    return verify_log(
        match_game(match),
        seats=match.seats.count(),
        options=match.options,
        seed=bytes(match.seed),
        commitment=match.seed_commitment,
        events=((row.seq, event_as_logged(row)) for row in rows),
        recorded_outcome=match.outcome,
        contributed=match.entropy == Match.Entropy.CONTRIBUTED,
    )


def entropy_window() -> timedelta:
    return timedelta(seconds=getattr(settings, "SNAKEPIT_ENTROPY_WINDOW_SECONDS", 300))


def match_entropy_deadline(match: Match, contributions: Contributions | None) -> datetime | None:
    """When the open entropy window closes: the commit window a set time after the match was created,
    the reveal window the same time after the event that closed the commit window. None when no
    window is open."""
    if contributions is None or contributions.phase == "done":
        return None
    if contributions.phase == "commit":
        return match.created_at + entropy_window()
    closed_at = (
        match.events.filter(kind=MatchEvent.Kind.ENTROPY)
        .exclude(payload__step="reveal")
        .order_by("-seq")
        .values_list("created_at", flat=True)
        .first()
    )
    return (closed_at or match.created_at) + entropy_window()


def match_entropy_status(match: Match) -> dict[str, Any] | None:
    """Where the seats' entropy stands, for anyone (commitments are public, values stay with their
    seats until revealed); None for a match that draws from its seed alone."""
    if match.entropy != Match.Entropy.CONTRIBUTED:
        return None
    live = live_checkout(match, at_head=True)
    contributions = live.contributions
    status = {**contributions.as_json(), "deadline": match_entropy_deadline(match, contributions)}
    live_checkin(live)
    return status


def matches_entropy_overdue(*, now: datetime) -> list[int]:
    """Running matches taking entropy whose commit window opened more than a window ago and which have
    drawn no chance yet: the candidates whose open window may be past its deadline."""
    candidates = Match.objects.filter(
        status=Match.Status.RUNNING, entropy=Match.Entropy.CONTRIBUTED, created_at__lte=now - entropy_window()
    ).exclude(Exists(MatchEvent.objects.filter(match=OuterRef("pk"), kind=MatchEvent.Kind.CHANCE)))
    return list(candidates.order_by("pk").values_list("pk", flat=True))


@dataclass(frozen=True)
class Reverification:
    """What a finished match gives when its log is replayed through the engine as it is now."""

    match_id: int
    game: str
    engine_version: str  # the version it was played with
    current_version: str  # the version it was replayed with
    verdict: str  # "same", "changed" (another outcome) or "broken" (no longer replays to an end)
    recorded_outcome: dict | None
    replayed_outcome: dict | None
    failure: str | None  # for "broken": the first illegal event, named

    def as_dict(self) -> dict[str, Any]:
        return {
            "match": self.match_id,
            "game": self.game,
            "engine_version": self.engine_version,
            "current_version": self.current_version,
            "verdict": self.verdict,
            "recorded_outcome": self.recorded_outcome,
            "replayed_outcome": self.replayed_outcome,
            "failure": self.failure,
        }


def match_reverify(match: Match) -> Reverification:
    """Replay a finished match's log through the current engine and compare the outcome with the
    recorded one (which a correction may have set already). Writes nothing."""
    game = match_game(match)
    state = game.new_state(seats=match.seats.count(), options=match.options)
    failure = None
    for row in match.events.order_by("seq"):
        if not row.is_engine_event:
            continue
        refused = replay_from(game, state, [row.to_engine()]).failure
        if refused is not None:
            failure = f"event {row.seq} ({row.kind}) is illegal now: {refused.code}: {refused.detail}"
            break
    outcome = game.outcome(state) if failure is None else None
    replayed = outcome.to_json() if outcome is not None else None
    if failure is None and replayed is None:
        failure = "the log ends before the match does"
    verdict = "broken" if failure else ("same" if replayed == match.outcome else "changed")
    return Reverification(
        match.pk,
        match.game,
        match.engine_version,
        game.spec.version,
        verdict,
        match.outcome,
        replayed,
        failure,
    )


EXPORT_FORMAT = "snakepit-match/1"


def match_export(match: Match) -> dict[str, Any]:
    """A finished (or voided) match as one JSON document that `docs/verify_match.py` checks with
    nothing but Python's standard library: the set-up, the revealed seed, the whole log, and next to
    each chance event what the engine asked to be drawn (so the draws can be re-derived without the
    rules)."""
    if not match.is_over:
        raise Conflict(
            "a match is exported once it is over: its seed is secret until then", code="match/not_finished"
        )
    game = match_game(match)
    seats = list(match.seats.order_by("index").select_related("user"))
    state = game.new_state(seats=len(seats), options=match.options)
    events = []
    for row in match.events.order_by("seq"):
        entry: dict[str, Any] = {"seq": row.seq, "kind": row.kind, "seat": row.seat, "payload": row.payload}
        if state is not None and row.is_engine_event:
            if row.kind == MatchEvent.Kind.CHANCE and game.decision(state).kind == "chance":
                request = game.chance_request(state)
                entry["request"] = {
                    "kind": request.kind,
                    "label": request.label,
                    "count": request.count,
                    "sides": request.sides,
                    "size": request.size,
                }
            if replay_from(game, state, [row.to_engine()]).failure is not None:
                state = None  # the rest is listed as written, without requests: verify names the failure
        events.append(entry)
    return {
        "format": EXPORT_FORMAT,
        "id": match.pk,
        "game": match.game,
        "engine_version": match.engine_version,
        "options": match.options,
        "seats": [
            {"index": seat.index, "user": seat.user.get_username() if seat.user_id else None, "bot": seat.bot}
            for seat in seats
        ],
        "entropy": match.entropy,
        "seed_commitment": match.seed_commitment,
        "seed": bytes(match.seed).hex(),
        "status": match.status,
        "outcome": match.outcome,
        "events": events,
    }


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
        if decision.kind == "chance" and match.entropy == Match.Entropy.CONTRIBUTED:
            entropy = match_entropy_status(match)
            if entropy["phase"] != "done":
                continue  # chance waits for people's entropy, and its deadline has its own sweep
        if decision.kind == "chance" or decision.seats & bot_seats:
            stalled.append(match.pk)
    return stalled
