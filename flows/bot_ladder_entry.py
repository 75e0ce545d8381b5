"""Entering an uploaded bot's version on a ladder: the bots and ratings apps, siblings that do not
import each other, meet here. The API's `POST /api/bots/{id}/ladders/` and the bot's page both come
here."""

from __future__ import annotations

from django.db import transaction

from bots.models import Bot
from bots.selectors import bot_version_for_ladder, bot_version_label
from ratings.models import LadderEntry
from ratings.services import ladder_get, ladder_join_uploaded_bot


@transaction.atomic
def bot_version_enter_ladder(*, bot: Bot, number: int, user, ladder_slug: str, replace: bool) -> LadderEntry:
    """Enter version `number` of `bot` on a ladder of its game, for its owner or staff (`user`). Only
    a passed version enters, bringing its own deck; `replace` sends the bot's other versions on that
    ladder away (their history stays). A refusal writes nothing."""
    version = bot_version_for_ladder(bot=bot, number=number, user=user)
    ladder = ladder_get(slug=ladder_slug)
    return ladder_join_uploaded_bot(
        ladder=ladder,
        account=bot.account,
        bot_version_id=version.pk,
        game_key=bot.game,
        deck_version=version.deck_version,
        display_name=bot_version_label(version=version),
        replace=replace,
    )
