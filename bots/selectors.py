"""Reads for uploaded bots: who may see what, and each bot's figures."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db.models import Count, F, Max, Q, QuerySet, Sum

from bots.archives import ArchiveLimits, archive_files
from bots.models import Bot, BotSeat, BotVersion
from core.errors import Conflict, Forbidden, NotFound
from matches.models import Match


def bot_list(*, owner) -> QuerySet[Bot]:
    return Bot.objects.filter(owner=owner).prefetch_related("versions")


def bot_get(*, bot_id: int) -> Bot:
    try:
        return Bot.objects.select_related("owner").get(pk=bot_id)
    except Bot.DoesNotExist:
        raise NotFound(f"no bot {bot_id}", code="bot/not_found") from None


def bot_source_readable(*, bot: Bot, user) -> bool:
    """A bot's source and logs are its owner's and staff's only."""
    return user is not None and user.is_authenticated and (user.pk == bot.owner_id or user.is_staff)


def bot_version_get(*, bot: Bot, number: int) -> BotVersion:
    try:
        return bot.versions.select_related("deck_version__deck").get(number=number)
    except BotVersion.DoesNotExist:
        raise NotFound(f"bot {bot.pk} has no version {number}", code="bot/version_not_found") from None


def bot_version_private(*, bot: Bot, number: int, user) -> BotVersion:
    if not bot_source_readable(bot=bot, user=user):
        raise Forbidden("only the bot's owner and staff may read its source and logs", code="bot/not_owner")
    return bot_version_get(bot=bot, number=number)


def bot_version_deck(*, version: BotVersion) -> dict[str, Any] | None:
    """The deck a version brings, for its owner and staff: which saved deck and version, by name. The
    public see no more of it than of a person's ladder entry's deck, which is nothing."""
    if version.deck_version_id is None:
        return None
    deck_version = version.deck_version
    return {
        "share_id": deck_version.deck.share_id,
        "version": deck_version.number,
        "name": deck_version.deck.name,
    }


def bot_version_files(*, version: BotVersion) -> list[dict[str, Any]] | None:
    """An archive version's files (path and size), or None for a one-file or HTTP version."""
    if not version.archive:
        return None
    files = archive_files(bytes(version.archive), limits=ArchiveLimits.from_settings())
    return [{"path": path, "bytes": len(content)} for path, content in sorted(files.items())]


def bot_version_label(*, version: BotVersion) -> str:
    """How leaderboards and match lists name a version: the bot's name, the version, its owner."""
    return f"{version.bot.name} v{version.number} ({version.bot.owner.get_username()})"


def bot_version_for_ladder(*, bot: Bot, number: int, user) -> BotVersion:
    """The version its owner (or staff) enters on a ladder: only one that passed its validation."""
    if not bot_source_readable(bot=bot, user=user):
        raise Forbidden("only the bot's owner and staff may enter it on a ladder", code="bot/not_owner")
    version = bot_version_get(bot=bot, number=number)
    if version.status != BotVersion.Status.PASSED:
        raise Conflict(
            f"version {number} has not passed its validation ({version.status})", code="bot/not_validated"
        )
    return version


def bot_match_log(*, bot: Bot, match_id: int, user) -> str:
    """The bot's seats' logs of one match as text (why it forfeited, its stderr): owner and staff only."""
    if not bot_source_readable(bot=bot, user=user):
        raise Forbidden("only the bot's owner and staff may read its logs", code="bot/not_owner")
    rows = list(
        BotSeat.objects.filter(version__bot=bot, match_id=match_id).select_related("version").order_by("seat")
    )
    if not rows:
        raise NotFound(f"bot {bot.pk} did not play match {match_id}", code="bot/match_not_found")
    return (
        "\n\n".join(
            f"match {match_id}, seat {row.seat}, version {row.version.number}"
            f"{', forfeit: ' + row.forfeit_reason if row.forfeit_reason else ''}\n{row.log or '(no log)'}"
            for row in rows
        )
        + "\n"
    )


def bot_stats(*, bot: Bot) -> dict[str, Any]:
    """Games played, forfeits by reason and average move time, over every version's matches."""
    played = BotSeat.objects.filter(version__bot=bot, played_at__isnull=False)
    totals = played.aggregate(moves=Sum("moves"), time=Sum("move_ms_total"))
    forfeits = {
        row["forfeit_reason"]: row["count"]
        for row in played.exclude(forfeit_reason="").values("forfeit_reason").annotate(count=Count("id"))
    }
    moves = totals["moves"] or 0
    return {
        "games": played.values("match").distinct().count(),
        "forfeits": dict(sorted(forfeits.items())),
        "moves": moves,
        "average_move_ms": round((totals["time"] or 0) / moves, 1) if moves else None,
    }


def bot_matches_stalled(*, stalled_after: timedelta, now: datetime) -> list[int]:
    """Running matches with uploaded bots whose log has not moved for `stalled_after`: the worker
    playing them died, or their task was lost (a bot waiting on a person is asked again, harmlessly)."""
    cutoff = now - stalled_after
    return list(
        Match.objects.filter(status=Match.Status.RUNNING, bot_seats__isnull=False)
        .annotate(last_event_at=Max("events__created_at"))
        .filter(Q(last_event_at__lte=cutoff) | Q(last_event_at__isnull=True, created_at__lte=cutoff))
        .values_list("pk", flat=True)
        .distinct()
        .order_by("pk")
    )


def bot_matches_awaiting_bots() -> list[int]:
    """Running matches with uploaded bots where someone (a person) moved after the bots' worker last
    looked: a bot may be due again. Beat's sweep queues them each minute."""
    return list(
        Match.objects.filter(status=Match.Status.RUNNING, bot_seats__played_at__isnull=False)
        .annotate(last_event_at=Max("events__created_at"), bots_looked_at=Max("bot_seats__played_at"))
        .filter(last_event_at__gt=F("bots_looked_at"))
        .values_list("pk", flat=True)
        .distinct()
        .order_by("pk")
    )


def bot_versions_unvalidated(*, stalled_after: timedelta, now: datetime) -> list[int]:
    """Versions still validating `stalled_after` after their upload: their task was lost."""
    return list(
        BotVersion.objects.filter(status=BotVersion.Status.VALIDATING, created_at__lte=now - stalled_after)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
