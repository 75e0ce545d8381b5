"""Celery tasks for ladders: thin interfaces over ratings.services. All are safe to run twice."""

from celery import shared_task

from ratings import services


@shared_task(acks_late=True)
def ladder_play_round(ladder_id: int) -> int:
    """Beat calls this for each active ladder: pair free entries and start their matches."""
    return len(services.ladder_round_create(ladder_id=ladder_id).matches)


@shared_task(acks_late=True, autoretry_for=(Exception,), retry_backoff=5, max_retries=10)
def match_rate(match_id: int) -> bool:
    """Rate a finished ladder match; a duplicate or a retry finds it rated and changes nothing."""
    return services.ladder_match_rate(match_id=match_id) is not None


@shared_task(acks_late=True)
def ladders_enforce_deadlines() -> int:
    return len(services.ladder_deadlines_enforce())
