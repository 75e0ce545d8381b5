"""Uploading a bot's version and queueing its validation match: the upload's transaction commits
first, so the worker finds the version. The API's `POST /api/bots/` and the bots page upload here."""

from __future__ import annotations

from django.db import transaction

from bots.models import BotVersion
from bots.services import bot_version_upload
from bots.tasks import bot_version_validate


@transaction.atomic
def bot_version_submit(
    *,
    owner,
    name: str,
    game_key: str,
    source: str = "",
    archive: bytes = b"",
    url: str = "",
    deck: str = "",
    deck_number: int | None = None,
) -> BotVersion:
    """The bot's next version (`bots.services.bot_version_upload` checks it), validated on a worker
    once this transaction commits; a refused upload queues nothing."""
    version = bot_version_upload(
        owner=owner,
        name=name,
        game_key=game_key,
        source=source,
        archive=archive,
        url=url,
        deck=deck,
        deck_number=deck_number,
    )
    transaction.on_commit(lambda: bot_version_validate.delay(version.pk))
    return version
