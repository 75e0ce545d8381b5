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
