"""Celery tasks: thin interfaces over the tournament services."""

from celery import shared_task

from tournaments import selectors, services
from tournaments.models import Tournament

# The webhook delivery task lives beside what it sends; imported here so that workers, which load
# each app's tasks module, know it.
from tournaments.webhooks import tournament_webhook_deliver

__all__ = [
    "tournament_record_match",
    "tournament_webhook_deliver",
    "tournaments_record_missing",
    "tournaments_start_due_rounds",
]


@shared_task(acks_late=True, autoretry_for=(Exception,), retry_backoff=5, max_retries=10)
def tournament_record_match(match_id: int) -> bool:
    """Record a finished tournament match in its tournament's log, once (a duplicate does nothing)."""
    return services.tournament_record_match(match_id=match_id) is not None


@shared_task(acks_late=True)
def tournaments_record_missing() -> int:
    """Beat runs this every minute: record finished tournament matches whose recording task was lost."""
    recorded = 0
    for tournament in Tournament.objects.filter(status=Tournament.Status.RUNNING):
        for match_id in selectors.tournament_unrecorded_matches(tournament):
            recorded += services.tournament_record_match(match_id=match_id) is not None
    return recorded


@shared_task(acks_late=True)
def tournaments_start_due_rounds() -> int:
    """Beat runs this every minute: start the held rounds whose scheduled start has come."""
    return services.tournament_rounds_start_due()
