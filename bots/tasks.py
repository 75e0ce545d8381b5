"""Celery tasks: thin interfaces over bots.services. Only workers run uploaded bots."""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from bots import selectors, services


@shared_task(acks_late=True)
def bot_version_validate(version_id: int) -> str:
    return services.bot_version_validate(version_id=version_id).status


@shared_task(acks_late=True)
def bot_match_play(match_id: int) -> int:
    return services.bot_match_play(match_id=match_id).pk


def ladder_match_bots_start(*, match, versions: dict[int, int]) -> None:
    """SNAKEPIT_LADDER_UPLOADED_BOTS: a ladder round seated uploaded bots in `match` (inside its
    transaction); bind the versions to their seats and, once committed, have a worker play them."""
    services.ladder_seats_bind(match=match, versions=versions)
    match_id = match.pk
    transaction.on_commit(lambda: bot_match_play.delay(match_id))


@shared_task(acks_late=True)
def bots_resume_stalled(*, now=None) -> dict[str, list[int]]:
    """Beat runs this every minute: queue again the bot matches and validations whose worker died or
    whose task was lost (a duplicate finds the match's lock taken, or the version judged, and stops),
    and the bot matches where a person has moved since the bots' worker last looked."""
    now = now or timezone.now()
    stalled_after = timedelta(seconds=getattr(settings, "SNAKEPIT_BOTS_STALLED_AFTER_SECONDS", 600))
    versions = selectors.bot_versions_unvalidated(stalled_after=stalled_after, now=now)
    for version_id in versions:
        bot_version_validate.delay(version_id)
    matches = selectors.bot_matches_stalled(stalled_after=stalled_after, now=now)
    matches = sorted({*matches, *selectors.bot_matches_awaiting_bots()})
    for match_id in matches:
        bot_match_play.delay(match_id)
    return {"versions": versions, "matches": matches}
