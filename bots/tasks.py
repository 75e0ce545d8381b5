"""Celery tasks: thin interfaces over bots.services. Only workers run uploaded bots."""

from __future__ import annotations

from celery import shared_task

from bots import services


@shared_task(acks_late=True)
def bot_version_validate(version_id: int) -> str:
    return services.bot_version_validate(version_id=version_id).status


@shared_task(acks_late=True)
def bot_match_play(match_id: int) -> int:
    return services.bot_match_play(match_id=match_id).pk
