"""Writes for ladders and their entries: creating a ladder, its settings, pausing, archiving and
deleting it, its beat schedule, and who is on it (joining, leaving, pausing an entry). The API, the
Celery tasks and the commands all call these.

What a ladder does over time lives beside this module, one concern each: `rounds` pairs entries and
starts matches, `rate` rates finished matches exactly once, `seasons` closes seasons, `deadlines`
forfeits the people who let a deadline pass.
"""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core.errors import Conflict, Forbidden, NotFound, Rejected
from core.quotas import quota_check, quota_exempt
from core.slugs import slug_for
from decks.models import DeckVersion
from decks.selectors import deck_version_for_entry, deck_version_judged_now
from decks.services import deck_version_freeze
from engines.registry import all_games, get_game
from matches.services import game_setup
from ratings import skill
from ratings.changes import ladder_changed
from ratings.models import Ladder, LadderEntry, LadderMatch
from ratings.rate import entry_skill_set, initial_skill


def ladder_get(*, slug: str, for_update: bool = False) -> Ladder:
    queryset = Ladder.objects.select_for_update() if for_update else Ladder.objects.all()
    try:
        return queryset.get(slug=slug)
    except Ladder.DoesNotExist:
        raise NotFound(f"no ladder {slug!r}", code="ladder/not_found") from None


@transaction.atomic
def ladder_create(
    *,
    game_key: str,
    name: str,
    slug: str | None = None,
    options: dict | None = None,
    seats_per_match: int | None = None,
    rating_model: str = "plackett_luce",
    entry_policy: str = Ladder.Entry.USERS_AND_BOTS,
    round_interval_seconds: int = 600,
    created_by=None,
    carry_over: bool = False,
    season_ends_at=None,
    season_length_days: int | None = None,
    provisional_sigma: float = skill.PROVISIONAL_MAX_SIGMA,
    inactive_after_days: int | None = 30,
    no_show_limit: int = 2,
    move_deadline_seconds: int = 300,
    match_deadline_seconds: int = 3600,
) -> Ladder:
    game, resolved, seats = game_setup(game_key=game_key, options=options, seats=seats_per_match)
    if rating_model not in skill.MODELS:
        raise Rejected(
            f"rating model is one of {', '.join(skill.MODELS)}", code="ladder/unknown_rating_model"
        )
    if entry_policy not in Ladder.Entry.values:
        raise Rejected(
            f"entry policy is one of {', '.join(Ladder.Entry.values)}", code="ladder/bad_entry_policy"
        )
    slug = slug or slug_for(
        name, taken=lambda candidate: Ladder.objects.filter(slug=candidate).exists(), prefix="ladder"
    )
    if not quota_exempt(created_by):
        shortest = settings.SNAKEPIT_QUOTAS["min_round_interval_seconds"]
        if round_interval_seconds < shortest:
            raise Rejected(
                f"a ladder plays a round at most every {shortest} seconds",
                code="ladder/round_interval_too_short",
            )
        quota_check(
            created_by,
            name="ladders",
            what="active ladders",
            current=Ladder.objects.filter(created_by=created_by, is_active=True).count(),
        )
    if Ladder.objects.filter(slug=slug).exists():
        raise Conflict(f"a ladder {slug!r} exists already", code="ladder/slug_taken")
    ladder = Ladder.objects.create(
        slug=slug,
        name=name,
        game=game.spec.key,
        options=resolved,
        seats_per_match=seats,
        rating_model=rating_model,
        entry_policy=entry_policy,
        round_interval_seconds=round_interval_seconds,
        created_by=created_by,
        carry_over=carry_over,
        season_ends_at=season_ends_at,
        season_length_days=season_length_days,
        provisional_sigma=provisional_sigma,
        inactive_after_days=inactive_after_days,
        no_show_limit=no_show_limit,
        move_deadline_seconds=move_deadline_seconds,
        match_deadline_seconds=match_deadline_seconds,
    )
    ladder_schedule_sync(ladder)
    return ladder


def ladder_schedule_sync(ladder: Ladder) -> None:
    """Keep the ladder's beat entry (django-celery-beat) in step with its interval and activity."""
    from django_celery_beat.models import IntervalSchedule, PeriodicTask

    every, _ = IntervalSchedule.objects.get_or_create(
        every=ladder.round_interval_seconds, period=IntervalSchedule.SECONDS
    )
    PeriodicTask.objects.update_or_create(
        name=f"ladder round: {ladder.slug}",
        defaults={
            "task": "ratings.tasks.ladder_play_round",
            "interval": every,
            "kwargs": f'{{"ladder_id": {ladder.pk}}}',
            "enabled": ladder.is_active and ladder.archived_at is None,
        },
    )


def ladder_managed(ladder_id: int, by) -> Ladder:
    """The ladder, locked, if `by` may run it: its owner or staff (None: the system itself)."""
    try:
        ladder = Ladder.objects.select_for_update().get(pk=ladder_id)
    except Ladder.DoesNotExist:
        raise NotFound(f"no ladder {ladder_id}", code="ladder/not_found") from None
    if by is not None and not (
        by.is_staff or (ladder.created_by_id is not None and ladder.created_by_id == by.pk)
    ):
        raise Forbidden("only the ladder's organiser or staff may do this", code="ladder/not_organiser")
    return ladder


def ladder_refuse_archived(ladder: Ladder) -> None:
    if ladder.archived_at is not None:
        raise Conflict("the ladder is archived", code="ladder/archived")


@transaction.atomic
def ladder_pause(*, ladder_id: int, by=None) -> Ladder:
    """Stop starting rounds (running matches play on and are rated); `by` is checked when given."""
    ladder = ladder_managed(ladder_id, by)
    ladder_refuse_archived(ladder)
    if ladder.is_active:
        ladder.is_active = False
        ladder.save(update_fields=["is_active"])
        ladder_schedule_sync(ladder)
    return ladder


@transaction.atomic
def ladder_resume(*, ladder_id: int, by=None) -> Ladder:
    """Start rounds again on the ladder's schedule; `by` is checked when given."""
    ladder = ladder_managed(ladder_id, by)
    ladder_refuse_archived(ladder)
    if not ladder.is_active:
        ladder.is_active = True
        ladder.save(update_fields=["is_active"])
        ladder_schedule_sync(ladder)
    return ladder


@transaction.atomic
def ladder_archive(*, ladder_id: int, by=None) -> Ladder:
    """Close the ladder for good: no rounds, no entries, no edits; matches, ratings and seasons stay
    readable. Running matches play on and are rated."""
    ladder = ladder_managed(ladder_id, by)
    if ladder.archived_at is None:
        ladder.archived_at = timezone.now()
        ladder.is_active = False
        ladder.save(update_fields=["archived_at", "is_active"])
        ladder_schedule_sync(ladder)
    return ladder


@transaction.atomic
def ladder_delete(*, ladder_id: int, by=None) -> None:
    """Delete a ladder that never played; one with matches is refused (archive it instead)."""
    from django_celery_beat.models import PeriodicTask

    ladder = ladder_managed(ladder_id, by)
    if LadderMatch.objects.filter(round__ladder=ladder).exists():
        raise Conflict("the ladder has matches: archive it instead", code="ladder/has_matches")
    PeriodicTask.objects.filter(name=f"ladder round: {ladder.slug}").delete()
    ladder.delete()


# What an organiser may change after creation (docs/api.md); everything else is fixed at creation.
LADDER_EDITABLE = (
    "name",
    "round_interval_seconds",
    "seats_per_match",
    "deck_format",
    "move_deadline_seconds",
    "match_deadline_seconds",
    "season_ends_at",
    "season_length_days",
    "provisional_sigma",
    "inactive_after_days",
    "no_show_limit",
    "carry_over",
)


@transaction.atomic
def ladder_update(*, ladder_id: int, by=None, changes: dict) -> Ladder:
    """Change a ladder's settings (LADDER_EDITABLE). Pod size and deck format are checked by the game
    as at creation, and apply from the next round on."""
    ladder = ladder_managed(ladder_id, by)
    ladder_refuse_archived(ladder)
    unknown = sorted(set(changes) - set(LADDER_EDITABLE))
    if unknown:
        raise Rejected(f"these cannot be changed: {', '.join(unknown)}", code="ladder/not_editable")
    changes = dict(changes)
    if "seats_per_match" in changes or "deck_format" in changes:
        options = dict(ladder.options)
        if "deck_format" in changes:
            if not get_game(ladder.game).spec.needs_deck:
                raise Rejected(f"{ladder.game} is played without decks", code="ladder/no_deck_format")
            options["format"] = changes.pop("deck_format")
        _, resolved, seats = game_setup(
            game_key=ladder.game,
            options=options,
            seats=changes.pop("seats_per_match", ladder.seats_per_match),
        )
        ladder.options, ladder.seats_per_match = resolved, seats
    interval = changes.get("round_interval_seconds")
    if (
        interval is not None
        and not quota_exempt(by)
        and interval < settings.SNAKEPIT_QUOTAS["min_round_interval_seconds"]
    ):
        raise Rejected(
            f"a ladder plays a round at most every {settings.SNAKEPIT_QUOTAS['min_round_interval_seconds']} "
            f"seconds",
            code="ladder/round_interval_too_short",
        )
    for name, value in changes.items():
        setattr(ladder, name, value)
    ladder.save()
    ladder_schedule_sync(ladder)
    return ladder


@transaction.atomic
def entry_pause(*, entry_id: int, reason: str) -> LadderEntry:
    """Leave an entry out of matchmaking until it is resumed, saying why (LadderEntry.Pause): missed
    matches, a deck no longer legal, an organiser's decision. Its rating and history stay."""
    if reason not in LadderEntry.Pause.values:
        raise Rejected(
            f"a pause reason is one of {', '.join(LadderEntry.Pause.values)}", code="entry/bad_pause_reason"
        )
    entry = LadderEntry.objects.select_for_update().get(pk=entry_id)
    if entry.paused_reason != reason:
        entry.paused_reason, entry.paused_at = reason, timezone.now()
        entry.save(update_fields=["paused_reason", "paused_at"])
        ladder_changed(ladder_id=entry.ladder_id)
    return entry


def entries_pause_for_illegal_decks(*, format_key: str, deck_version_ids: list[int]) -> list[int]:
    """Pause the entries playing one of these deck versions on a ladder of this format (a ban list
    made them illegal: decks' `deck_legality_changed`); returns the entries paused. Their matches
    already begun keep the deck; the owner comes back by joining again with a legal deck."""
    paused = []
    entries = (
        LadderEntry.objects.filter(deck_version_id__in=deck_version_ids, left_at__isnull=True)
        .exclude(paused_reason=LadderEntry.Pause.DECK_ILLEGAL)
        .select_related("ladder")
    )
    for entry in entries:
        if entry.ladder.options.get("format") == format_key:
            entry_pause(entry_id=entry.pk, reason=LadderEntry.Pause.DECK_ILLEGAL)
            paused.append(entry.pk)
    return paused


@transaction.atomic
def entry_resume(*, entry_id: int, by=None) -> LadderEntry:
    """Back into matchmaking. `by`, when given, is the entry's owner (or the ladder's organiser, or
    staff); a person who missed matches returns this way, or by joining again."""
    entry = LadderEntry.objects.select_for_update().select_related("ladder").get(pk=entry_id)
    if by is not None and entry.user_id != by.pk:
        ladder_managed(entry.ladder_id, by)
    if entry.paused_reason == LadderEntry.Pause.DECK_ILLEGAL and entry.deck_version is not None:
        judged = deck_version_judged_now(entry.deck_version, format_key=entry.ladder.options.get("format"))
        if not judged.legal:
            raise Conflict(
                "the entry's deck is not legal under the ban list in effect: join again with a legal one",
                code="entry/deck_illegal",
                violations=judged.violations,
            )
    entry.paused_reason, entry.paused_at, entry.no_shows = "", None, 0
    entry.save(update_fields=["paused_reason", "paused_at", "no_shows"])
    ladder_changed(ladder_id=entry.ladder_id)
    return entry


def ladders_ensure_for_games() -> list[Ladder]:
    """One open ladder per registered game with its built-in bots entered, as many times over as a
    table needs (The Greatest Snake sits three): a new engine gets a ladder by being registered,
    with no ladder code to change."""
    ladders = []
    for game in all_games():
        slug = f"{game.spec.key}-open"
        ladder = Ladder.objects.filter(slug=slug).first() or ladder_create(
            game_key=game.spec.key, name=f"{game.spec.name} open ladder", slug=slug, round_interval_seconds=60
        )
        bots = sorted(game.bots())
        wanted = [bots[number % len(bots)] for number in range(max(len(bots), ladder.seats_per_match))]
        for bot in set(wanted):
            for _ in range(wanted.count(bot) - ladder.entries.filter(bot=bot).count()):
                ladder_join(ladder=ladder, bot=bot)
        ladders.append(ladder)
    return ladders


@transaction.atomic
def ladder_join(*, ladder: Ladder, user=None, bot: str = "", deck_share_id: str | None = None) -> LadderEntry:
    """Enter a user (with a legal saved deck, where the game needs one) or a built-in bot. The deck's
    version is frozen for the ladder in the same transaction, so a refused entry freezes nothing."""
    ladder = Ladder.objects.select_for_update().get(pk=ladder.pk)
    ladder_refuse_archived(ladder)
    if (user is None) == (not bot):
        raise Rejected("an entry is a user or a bot", code="entry/invalid")
    if user is not None and ladder.entry_policy == Ladder.Entry.BOTS:
        raise Forbidden("this ladder is for bots only", code="ladder/bots_only")
    if bot and ladder.entry_policy == Ladder.Entry.USERS:
        raise Forbidden("this ladder is for people only", code="ladder/users_only")
    game = get_game(ladder.game)
    if bot and bot not in game.bots():
        raise Rejected(f"{ladder.game} has no bot {bot!r}", code="seat/unknown_bot")
    if user is not None and game.spec.needs_deck and not deck_share_id:
        raise Rejected(f"{game.spec.name} entries bring a legal saved deck", code="entry/deck_required")
    if deck_share_id and not game.spec.needs_deck:
        raise Rejected(f"{game.spec.name} is played without decks", code="entry/deck_not_needed")
    entry = ladder.entries.filter(user=user).first() if user is not None else None
    comes_back = entry is not None and (
        entry.paused_reason == LadderEntry.Pause.NO_SHOWS
        or (entry.paused_reason == LadderEntry.Pause.DECK_ILLEGAL and deck_share_id)
    )
    if entry is not None and entry.is_active and not comes_back:
        raise Conflict("already on this ladder", code="entry/already_joined")
    deck_version = None
    if deck_share_id:
        # Legal in the ladder's own deck format, under the ban list in effect now.
        legal = deck_version_for_entry(
            share_id=deck_share_id, user=user, format_key=ladder.options.get("format")
        )
        deck_version = deck_version_freeze(deck_version=legal, purpose=f"ladder {ladder.slug}")
    if entry is not None:
        entry.left_at = None  # a returning competitor keeps its rating and history
        entry.deck_version = deck_version or entry.deck_version
        if entry.paused_reason in (
            LadderEntry.Pause.NO_SHOWS,
            LadderEntry.Pause.DECK_ILLEGAL if deck_version else None,
        ):
            entry.paused_reason, entry.paused_at, entry.no_shows = "", None, 0  # its owner is back
        entry.save(update_fields=["left_at", "deck_version", "paused_reason", "paused_at", "no_shows"])
        ladder_changed(ladder_id=entry.ladder_id)
        return entry
    entry = LadderEntry(ladder=ladder, user=user, bot=bot, deck_version=deck_version, season=ladder.season)
    entry_skill_set(entry, initial_skill(ladder))
    entry.save()
    ladder_changed(ladder_id=entry.ladder_id)
    return entry


@transaction.atomic
def ladder_join_uploaded_bot(
    *,
    ladder: Ladder,
    account,
    bot_version_id: int,
    game_key: str,
    deck_version: DeckVersion | None = None,
    display_name: str = "",
    replace: bool = False,
) -> LadderEntry:
    """Enter an uploaded bot's version, which plays through the bot's `account`. The caller (who may
    import bots) has checked that the version passed its validation and is its owner's to enter.
    `deck_version`, where the game needs one, is the version's own deck: it must be legal in the
    ladder's format under the ban list in effect, and is frozen for the ladder, as a person's is.
    `replace`: the account's other entries on this ladder leave it (their history and ratings stay on
    record); otherwise the version enters beside them, rated on its own. `display_name` is how
    leaderboards name the entry (the bot's account is a generated name)."""
    ladder = Ladder.objects.select_for_update().get(pk=ladder.pk)
    ladder_refuse_archived(ladder)
    if ladder.entry_policy == Ladder.Entry.USERS:
        raise Forbidden("this ladder is for people only", code="ladder/users_only")
    if game_key != ladder.game:
        raise Rejected(f"this ladder plays {ladder.game}, not {game_key}", code="entry/wrong_game")
    game = get_game(ladder.game)
    if game.spec.needs_deck and deck_version is None:
        raise Rejected(f"{game.spec.name} entries bring a legal saved deck", code="entry/deck_required")
    if deck_version is not None and not game.spec.needs_deck:
        raise Rejected(f"{game.spec.name} is played without decks", code="entry/deck_not_needed")
    # A version paused because a ban list made its deck illegal comes back by joining again once the
    # deck is legal (judged below), as a person's entry does with a legal deck.
    on_ladder = ladder.entries.filter(bot_version_id=bot_version_id, left_at__isnull=True).first()
    if on_ladder is not None and not (
        on_ladder.paused_reason == LadderEntry.Pause.DECK_ILLEGAL and deck_version
    ):
        raise Conflict("this version is already on this ladder", code="entry/already_joined")
    if deck_version is not None:
        judged = deck_version_judged_now(deck_version, format_key=ladder.options.get("format"))
        if not judged.legal:
            raise Rejected(
                "the bot's deck is not legal in this ladder's format: "
                + "; ".join(violation["detail"] for violation in judged.violations),
                code="deck/illegal",
                violations=judged.violations,
            )
        deck_version_freeze(deck_version=deck_version, purpose=f"ladder {ladder.slug}")
    if replace:
        ladder.entries.filter(user=account, left_at__isnull=True).exclude(bot_version_id=None).update(
            left_at=timezone.now()
        )
    entry = ladder.entries.filter(bot_version_id=bot_version_id).first()
    if entry is not None:  # entered before, then replaced: it comes back with its rating
        entry.left_at = None
        if entry.paused_reason == LadderEntry.Pause.DECK_ILLEGAL and deck_version is not None:
            entry.paused_reason, entry.paused_at = "", None  # its deck, judged above, is legal again
        entry.display_name = display_name[:120] or entry.display_name
        entry.save(update_fields=["left_at", "paused_reason", "paused_at", "display_name"])
        ladder_changed(ladder_id=entry.ladder_id)
        return entry
    entry = LadderEntry(
        ladder=ladder,
        user=account,
        bot_version_id=bot_version_id,
        deck_version=deck_version,
        display_name=display_name[:120],
        season=ladder.season,
    )
    entry_skill_set(entry, initial_skill(ladder))
    entry.save()
    ladder_changed(ladder_id=entry.ladder_id)
    return entry


@transaction.atomic
def ladder_leave(*, ladder: Ladder, user) -> LadderEntry:
    own = ladder.entries.select_for_update().filter(user=user, bot_version_id=None, left_at__isnull=True)
    entry = own.first()
    if entry is None:
        raise Conflict("you are not on this ladder", code="entry/not_joined")
    entry.left_at = timezone.now()
    entry.save(update_fields=["left_at"])
    ladder_changed(ladder_id=entry.ladder_id)
    return entry
