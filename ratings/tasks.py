"""Celery tasks for ladders: thin interfaces over the ratings services. All are safe to run twice."""

from celery import shared_task

from ratings import deadlines, rate, rounds, seasons, selectors


@shared_task(acks_late=True)
def ladder_play_round(ladder_id: int) -> int:
    """Beat calls this for each active ladder: pair free entries and start their matches."""
    return len(rounds.ladder_round_create(ladder_id=ladder_id).matches)


@shared_task(acks_late=True, autoretry_for=(Exception,), retry_backoff=5, max_retries=10)
def ladder_ratings_apply(ladder_id: int) -> int:
    """Rate the ladder's finished matches in batches, in finish order (queued by the match_finished
    receiver, once per burst of finishes, and by the sweep). A duplicate or a retry rates only what
    is still unrated."""
    return rate.ladder_ratings_apply(ladder_id=ladder_id)


@shared_task(acks_late=True, autoretry_for=(Exception,), retry_backoff=5, max_retries=10)
def match_rate(match_id: int) -> bool:
    """Rate a finished ladder match (with its ladder's other matches still to rate). The receiver
    queued this once per match before ratings were batched; it stays for messages still queued."""
    return rate.ladder_match_rate(match_id=match_id) is not None


@shared_task(acks_late=True)
def ladders_rate_missing() -> list[int]:
    """Queue a rating run for every ladder with a finished match still unrated, in case its run was
    lost: a worker killed mid-run on a broker that cannot redeliver (or before Redis does), a crash
    between a match's commit and its receiver, retries run out. Returns those ladders' ids."""
    ladder_ids = selectors.ladders_with_matches_to_rate()
    for ladder_id in ladder_ids:
        ladder_ratings_apply.delay(ladder_id)
    return ladder_ids


@shared_task(acks_late=True)
def ladders_enforce_deadlines() -> int:
    """Beat runs this every minute: forfeit the people past a deadline, sweep for ratings a lost run
    left undone, and close the seasons whose end has passed (one sweep for the ladders' liveness)."""
    forfeited = len(deadlines.ladder_deadlines_enforce())
    ladders_rate_missing()
    seasons.ladders_seasons_close_due()
    return forfeited
