"""Celery tasks: thin interfaces over the match services."""

from celery import shared_task

from tournaments import services


@shared_task(acks_late=True, autoretry_for=(Exception,), retry_backoff=5, max_retries=5)
def match_play(match_id: int) -> int:
    """Play a match's chance and bot moves to the end (or to the next human decision).

    Safe to run twice or to retry after a crash: every chunk of events is appended under the match
    lock at the log's current head, so nothing is ever written twice.
    """
    return services.match_advance(match_id=match_id)


@shared_task(acks_late=True)
def matches_resume_stalled() -> int:
    """Beat runs this every minute: requeue matches whose worker died (see the service)."""
    return len(services.matches_resume_stalled())


@shared_task(acks_late=True, autoretry_for=(Exception,), retry_backoff=5, max_retries=10)
def tournament_record_match(match_id: int) -> bool:
    """Record a finished tournament match in its tournament's log, once (a duplicate does nothing)."""
    from tournaments.tournament_services import tournament_record_match as record

    return record(match_id=match_id) is not None


@shared_task(acks_late=True)
def tournaments_record_missing() -> int:
    """Beat runs this every minute: record finished tournament matches whose recording task was lost."""
    from tournaments.models import Tournament
    from tournaments.tournament_services import tournament_record_match as record, tournament_unrecorded_matches

    recorded = 0
    for tournament in Tournament.objects.filter(status=Tournament.Status.RUNNING):
        for match_id in tournament_unrecorded_matches(tournament):
            recorded += record(match_id=match_id) is not None
    return recorded
