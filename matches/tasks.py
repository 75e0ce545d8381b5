"""Celery tasks: thin interfaces over the match store."""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from matches import store
from matches.selectors import matches_entropy_overdue, matches_stalled


@shared_task(acks_late=True, autoretry_for=(Exception,), retry_backoff=5, max_retries=5)
def match_play(match_id: int) -> int:
    """Play a match's chance and bot moves to the end (or to the next human decision).

    Safe to run twice or to retry after a crash: every chunk of events is appended under the match
    lock at the log's current head, so nothing is ever written twice.
    """
    return store.match_advance(match_id=match_id)


@shared_task(acks_late=True)
def matches_resume_stalled(*, stalled_after: timedelta | None = None, now=None) -> list[int]:
    """Beat runs this every minute: hand every running match whose chance or bot move is overdue to
    a worker again, and return their ids.

    The safety net under broker redelivery: a worker killed mid-match leaves a committed prefix of
    the log, and whether or not the broker redelivers its task (Redis does after its visibility
    timeout; the filesystem broker never does), this finds the match and queues it once more.
    A duplicate is harmless: `match_advance` appends only at the log's head, under the match lock.
    """
    if stalled_after is None:
        stalled_after = timedelta(seconds=settings.SNAKEPIT_STALLED_AFTER_SECONDS)
    now = now or timezone.now()
    # Seats whose entropy window closed without their commit or reveal lapse first, so chance plays on.
    for match_id in matches_entropy_overdue(now=now):
        store.match_entropy_lapse(match_id=match_id, now=now)
    stalled = matches_stalled(stalled_after=stalled_after, now=now)
    for match_id in stalled:
        match_play.delay(match_id)
    return stalled
