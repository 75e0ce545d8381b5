"""A ladder's deadlines: forfeit the people who let a match's move or match deadline pass, and
pause the entries of those who keep missing their matches."""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from core.errors import Conflict
from matches.models import Match, MatchEvent
from matches.selectors import match_game, match_snapshot
from matches.services import match_forfeit
from ratings.models import Ladder, LadderEntry, LadderMatch
from ratings.services import entry_pause


def ladder_deadlines_enforce(*, now=None) -> list[int]:
    """Forfeit the people who let a ladder match's move or match deadline pass; returns match ids.

    Only a person is ever forfeited: when chance or a bot is due, the match is late because no worker
    played it, and the stalled-match sweep requeues it instead (a bot-only match is never forfeited).
    Each candidate is judged again under the match's row lock, at the log's head, and the forfeit is
    kept only if it lands right after that head: a move made meanwhile wins over the sweep. The
    forfeit is an event of the log naming the deadline, so the reason is on record. A person forfeited
    without having made a move in the match missed it: `no_show_limit` of those in a row pause the
    entry (LadderEntry.Pause.NO_SHOWS) until its owner comes back.
    """
    now = now or timezone.now()
    forfeited = []
    with_people = LadderMatch.objects.filter(
        match__status=Match.Status.RUNNING, match__seats__user__isnull=False
    )
    running = with_people.distinct().select_related("round__ladder", "match").order_by("match_id")
    for ladder_match in running:
        ladder = ladder_match.round.ladder
        try:
            if _late_people_forfeit(ladder_match, ladder, now):
                forfeited.append(ladder_match.match_id)
        except _HeadMoved:
            continue  # someone moved while the sweep judged: not late after all
    return forfeited


class _HeadMoved(Exception):
    pass


def _missed_deadline(ladder: Ladder, *, started_at, last_event_at, now) -> str | None:
    if now - started_at > timedelta(seconds=ladder.match_deadline_seconds):
        return f"missed the match deadline of {ladder.match_deadline_seconds} s"
    if now - last_event_at > timedelta(seconds=ladder.move_deadline_seconds):
        return f"missed the move deadline of {ladder.move_deadline_seconds} s"
    return None


@transaction.atomic
def _late_people_forfeit(ladder_match: LadderMatch, ladder: Ladder, now) -> bool:
    match = Match.objects.select_for_update().get(pk=ladder_match.match_id)
    if match.is_finished:
        return False
    head_seq, last_event_at = MatchEvent.objects.filter(match=match).order_by("-seq").values_list(
        "seq", "created_at"
    ).first() or (0, match.created_at)
    reason = _missed_deadline(ladder, started_at=match.created_at, last_event_at=last_event_at, now=now)
    if reason is None:
        return False
    people = dict(match.seats.filter(user__isnull=False).values_list("index", "user_id"))
    # An uploaded bot's account is a user, but its moves have their own deadlines on the worker: a
    # late one is a lost worker, which the bots' stalled sweep queues again, never a forfeit here.
    seated = LadderEntry.objects.filter(pk__in=ladder_match.entries)
    uploaded = set(seated.exclude(bot_version_id=None).values_list("pk", flat=True))
    people = {seat: user for seat, user in people.items() if ladder_match.entries[seat] not in uploaded}
    snapshot = match_snapshot(match)
    if snapshot.seq != head_seq:
        raise _HeadMoved
    late = sorted(seat for seat in match_game(match).decision(snapshot.state).seats if seat in people)
    if not late:
        return False  # chance or a bot is due: a worker plays it, and no bot is forfeited for a late worker
    expected = head_seq + 1
    for seat in late:
        try:
            result = match_forfeit(match_id=match.pk, seat=seat, reason=reason)
        except Conflict:
            raise _HeadMoved from None
        if result.event.seq != expected:
            raise _HeadMoved  # rolls the forfeit back with the rest of this transaction
        expected = (result.appended[-1].seq if result.appended else result.event.seq) + 1
        _no_show_count(ladder, match, seat, entry_id=ladder_match.entries[seat])
        # Several people may have been due at once (simultaneous choices): each late one forfeits,
        # while the match goes on and still waits for them.
        if result.snapshot is None:
            break
        still_due = match_game(match).decision(result.snapshot.state).seats
        if not any(other in still_due for other in late if other > seat):
            break
    return True


def _no_show_count(ladder: Ladder, match: Match, seat: int, *, entry_id: int) -> None:
    if MatchEvent.objects.filter(match=match, seat=seat, kind=MatchEvent.Kind.ACTION).exists():
        return  # it played, then stopped: a forfeit, not a no-show
    entry = LadderEntry.objects.select_for_update().get(pk=entry_id)
    entry.no_shows += 1
    entry.save(update_fields=["no_shows"])
    if entry.no_shows >= ladder.no_show_limit and not entry.is_paused:
        entry_pause(entry_id=entry.pk, reason=LadderEntry.Pause.NO_SHOWS)
