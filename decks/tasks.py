"""Celery tasks of the decks app: thin, they call the services."""

from celery import shared_task

from decks.services import ban_lists_take_effect


@shared_task
def ban_lists_apply() -> list[str]:
    """Apply every ban list whose moment has come (beat runs it each minute; publishing one that is
    already in effect queues it at once)."""
    return [f"{row.format} {row.version}" for row in ban_lists_take_effect()]
