"""Writes for ladders and ratings. The API, the Celery tasks and the commands all call these.

Exactly once: `ladder_ratings_apply` rates a ladder's finished matches in batches, in the order
they finished; each batch inserts the matches' `RatedMatch` rows (unique per match) in the same
transaction as the rating changes, under the ladder's row lock, and a second run, a duplicated task
or a retry reads only what is still unrated.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.module_loading import import_string

from core.errors import Conflict, Forbidden, NotFound, Rejected
from core.quotas import quota_check, quota_exempt
from core.slugs import slug_for
from decks.models import DeckVersion
from decks.selectors import deck_version_brought, deck_version_for_entry, deck_version_judged_now
from decks.services import deck_version_freeze
from engines.registry import all_games, get_game
from matches.models import Match, MatchEvent
from matches.selectors import match_game, match_snapshot
from matches.services import SeatSpec, game_setup, match_create, match_forfeit
from ratings import matchmaking, selectors, skill
from ratings.models import (
    Ladder,
    LadderEntry,
    LadderMatch,
    LadderRound,
    LadderSeason,
    RatedMatch,
    RatingChange,
)


def _initial(ladder: Ladder) -> skill.Skill:
    return skill.Skill.initial(ladder.rating_model)


def _set_skill(entry: LadderEntry, rating: skill.Skill) -> None:
    entry.mu, entry.sigma, entry.ordinal = rating.mu, rating.sigma, rating.ordinal


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


def _ladder_managed(ladder_id: int, by) -> Ladder:
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


def _refuse_archived(ladder: Ladder) -> None:
    if ladder.archived_at is not None:
        raise Conflict("the ladder is archived", code="ladder/archived")


@transaction.atomic
def ladder_pause(*, ladder_id: int, by=None) -> Ladder:
    """Stop starting rounds (running matches play on and are rated); `by` is checked when given."""
    ladder = _ladder_managed(ladder_id, by)
    _refuse_archived(ladder)
    if ladder.is_active:
        ladder.is_active = False
        ladder.save(update_fields=["is_active"])
        ladder_schedule_sync(ladder)
    return ladder


@transaction.atomic
def ladder_resume(*, ladder_id: int, by=None) -> Ladder:
    """Start rounds again on the ladder's schedule; `by` is checked when given."""
    ladder = _ladder_managed(ladder_id, by)
    _refuse_archived(ladder)
    if not ladder.is_active:
        ladder.is_active = True
        ladder.save(update_fields=["is_active"])
        ladder_schedule_sync(ladder)
    return ladder


@transaction.atomic
def ladder_archive(*, ladder_id: int, by=None) -> Ladder:
    """Close the ladder for good: no rounds, no entries, no edits; matches, ratings and seasons stay
    readable. Running matches play on and are rated."""
    ladder = _ladder_managed(ladder_id, by)
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

    ladder = _ladder_managed(ladder_id, by)
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
    ladder = _ladder_managed(ladder_id, by)
    _refuse_archived(ladder)
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
            f"a ladder plays a round at most every {settings.SNAKEPIT_QUOTAS['min_round_interval_seconds']} seconds",
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
        _ladder_managed(entry.ladder_id, by)
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
    _refuse_archived(ladder)
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
        return entry
    entry = LadderEntry(ladder=ladder, user=user, bot=bot, deck_version=deck_version, season=ladder.season)
    _set_skill(entry, _initial(ladder))
    entry.save()
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
    _refuse_archived(ladder)
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
        return entry
    entry = LadderEntry(
        ladder=ladder,
        user=account,
        bot_version_id=bot_version_id,
        deck_version=deck_version,
        display_name=display_name[:120],
        season=ladder.season,
    )
    _set_skill(entry, _initial(ladder))
    entry.save()
    return entry


@transaction.atomic
def ladder_leave(*, ladder: Ladder, user) -> LadderEntry:
    own = ladder.entries.select_for_update().filter(user=user, bot_version_id=None, left_at__isnull=True)
    entry = own.first()
    if entry is None:
        raise Conflict("you are not on this ladder", code="entry/not_joined")
    entry.left_at = timezone.now()
    entry.save(update_fields=["left_at"])
    return entry


@dataclass(frozen=True)
class RoundResult:
    round: LadderRound | None
    matches: list[Match]


def ladder_round_create(
    *, ladder_id: int, rng: random.Random | None = None, bots_play: str = "auto"
) -> RoundResult:
    """Pair the ladder's free entries into matches of its seat count and start them.

    Entries still in an unfinished ladder match sit this round out. Matches of bots only are played
    by workers; people play theirs through the API, under the ladder's deadlines. `bots_play` is
    `match_create`'s ("caller": the caller plays the bots with `match_advance`, as the bench does).
    """
    rng = rng or random.Random()
    with transaction.atomic():
        ladder = Ladder.objects.select_for_update().get(pk=ladder_id)
        if not ladder.is_active or ladder.archived_at is not None:
            return RoundResult(None, [])
        if ladder.season_ends_at is not None and ladder.season_ends_at <= timezone.now():
            return RoundResult(None, [])  # the season is over: the next starts when the sweep closes it
        busy = set()
        for ids in LadderMatch.objects.filter(
            round__ladder=ladder, match__status=Match.Status.RUNNING
        ).values_list("entries", flat=True):
            busy.update(ids)
        free = ladder.entries.filter(left_at__isnull=True, paused_reason="").exclude(pk__in=busy)
        entries = {entry.pk: entry for entry in free.select_related("user", "deck_version")}
        if len(entries) < ladder.seats_per_match:
            return RoundResult(None, [])
        competitors = [
            matchmaking.Competitor(id=str(entry.pk), mu=entry.mu, sigma=entry.sigma, games=entry.games)
            for entry in entries.values()
        ]
        previous = ladder.rounds.order_by("-pk").first()
        played_last = set()
        if previous is not None:
            for seated in previous.matches.values_list("entries", flat=True):
                played_last.update(seated)
        plan = matchmaking.pair_round(
            competitors,
            ladder.seats_per_match,
            rng=rng,
            recent_opponents=_last_opponents(ladder, entries),
            sat_out_last_round=[
                str(entry_id) for entry_id in entries if previous and entry_id not in played_last
            ],
        )
        if not plan.pods:
            return RoundResult(None, [])
        number = (ladder.rounds.filter(season=ladder.season).aggregate(n=Max("number"))["n"] or 0) + 1
        explanation = {
            "summary": plan.summary,
            "pods": [pod.explanation for pod in plan.pods],
            "sat_out": [{"entry": int(sit_out.id), "reason": sit_out.reason} for sit_out in plan.sat_out],
        }
        round_ = LadderRound.objects.create(
            ladder=ladder, season=ladder.season, number=number, explanation=explanation
        )
        matches = []
        for pod in plan.pods:
            # Pods list members strongest first; seat order (who throws first) is drawn instead.
            seated = rng.sample(
                [entries[int(competitor_id)] for competitor_id in pod.members], len(pod.members)
            )
            match = match_create(
                game_key=ladder.game,
                options=ladder.options,
                seats=[_seat(entry) for entry in seated],
                bots_play=bots_play,
                # An uploaded bot holds its seat through an account, yet is no person: only a person's
                # own part of the chance protects anyone, so a table of bots draws from the seed alone.
                entropy="auto"
                if any(entry.user_id and not entry.bot_version_id for entry in seated)
                else "server",
            )
            LadderMatch.objects.create(round=round_, match=match, entries=[entry.pk for entry in seated])
            uploaded = {seat: entry.bot_version_id for seat, entry in enumerate(seated)}
            uploaded = {seat: version for seat, version in uploaded.items() if version}
            if uploaded:
                # The bots app (a sibling) binds the versions to their seats and has a worker play them.
                import_string(settings.SNAKEPIT_LADDER_UPLOADED_BOTS)(match=match, versions=uploaded)
            matches.append(match)
        return RoundResult(round_, matches)


def _seat(entry: LadderEntry) -> SeatSpec:
    """A match seat for an entry, bringing its frozen deck where it has one."""
    deck = deck_version_brought(entry.deck_version) if entry.deck_version_id else None
    return SeatSpec(user=entry.user, bot=entry.bot, deck=deck)


def _last_opponents(ladder: Ladder, entries: dict[int, LadderEntry]) -> dict[str, frozenset[str]]:
    """Each entry's opponents in its most recent ladder match (to avoid immediate rematches)."""
    last: dict[str, frozenset[str]] = {}
    for seated in (
        LadderMatch.objects.filter(round__ladder=ladder)
        .order_by("-pk")
        .values_list("entries", flat=True)[:2000]
    ):
        for entry_id in seated:
            if entry_id in entries and str(entry_id) not in last:
                last[str(entry_id)] = frozenset(str(other) for other in seated if other != entry_id)
        if len(last) == len(entries):
            break
    return last


RATING_BATCH = 200


def ladder_ratings_apply(*, ladder_id: int, batch: int = RATING_BATCH) -> int:
    """Rate the ladder's finished, unrated matches in the order they finished, `batch` at a time;
    returns how many this run rated.

    Each batch is one transaction under the ladder's row lock: it reads up to `batch` matches still
    to rate, rates them one after another in memory, and writes their RatedMatch rows (unique per
    match), their RatingChange rows and the entries' new ratings in a few statements. The lock is
    held for one batch, so a round or a season close waits at most that long, never for a backlog.
    Exactly once: a second run at the same time waits for the lock, then reads only what is still
    unrated; a run that dies mid-batch committed nothing of it, and the next run rates those matches.
    The run goes on until a batch finds nothing, so a match that finished while it ran is rated by
    it too (the receiver's deduplication, `selectors.ladder_to_rate_after`, counts on that).
    """
    total = 0
    while rated := _ratings_batch_apply(ladder_id, batch):
        total += rated
    return total


def _ratings_batch_apply(ladder_id: int, batch: int) -> int:
    with transaction.atomic():
        ladder = Ladder.objects.select_for_update().get(pk=ladder_id)
        due = list(
            selectors.ladder_matches_to_rate(ladder_id=ladder_id).values_list(
                "pk", "match_id", "entries", "match__outcome", "round__season", "match__finished_at"
            )[:batch]
        )
        if not due:
            return 0
        entries = LadderEntry.objects.select_for_update().in_bulk(
            {entry_id for _, _, seated_ids, _, _, _ in due for entry_id in seated_ids}
        )
        present = _people_who_acted([match_id for _, match_id, *_ in due], entries)
        initial = _initial(ladder)
        rated_rows, change_rows, late_seasons = [], [], set()
        for _, match_id, seated_ids, outcome, season, finished_at in due:
            seated = [entries[entry_id] for entry_id in seated_ids]
            for entry in seated:
                _entry_season_enter(entry, season, ladder=ladder, initial=initial)
            ranks = outcome["ranks"]
            before = [skill.Skill(entry.mu, entry.sigma) for entry in seated]
            after = skill.rate(ladder.rating_model, before, ranks)
            # Rated in the season the match started in (its round's), whichever season runs now.
            rated = RatedMatch(match_id=match_id, ladder=ladder, season=season)
            rated_rows.append(rated)
            if season < ladder.season:
                late_seasons.add(season)
            for seat, (entry, rank, old, new) in enumerate(zip(seated, ranks, before, after)):
                change_rows.append(
                    RatingChange(
                        rated_match=rated,
                        entry=entry,
                        rank=rank,
                        mu_before=old.mu,
                        sigma_before=old.sigma,
                        ordinal_before=old.ordinal,
                        mu_after=new.mu,
                        sigma_after=new.sigma,
                        ordinal_after=new.ordinal,
                    )
                )
                _set_skill(entry, new)
                entry.games += 1
                entry.last_played_at = max(filter(None, (entry.last_played_at, finished_at)), default=None)
                if (match_id, seat) in present:
                    entry.no_shows = 0
        # In rating order: RatedMatch ids are the order `rebuild_ratings` replays.
        RatedMatch.objects.bulk_create(rated_rows)
        RatingChange.objects.bulk_create(change_rows)
        _entries_ratings_save(entries.values())
        LadderMatch.objects.filter(pk__in=[ladder_match_id for ladder_match_id, *_ in due]).update(rated=True)
        for season in late_seasons:
            _season_standings_refresh(ladder, season)
        return len(due)


def _entry_season_enter(entry: LadderEntry, season: int, *, ladder: Ladder, initial: skill.Skill) -> None:
    """Bring an entry's rating into `season` before rating its match of that season: each season
    passed resets it (mu kept, sigma inflated, games from 0) unless the ladder carries ratings over.
    Seasons are entered lazily, so that a match of the last season still running at the close is
    rated in its own season, against its players' ratings of that season."""
    while entry.season < season:
        entry.season += 1
        if not ladder.carry_over:
            _set_skill(entry, skill.season_reset(skill.Skill(entry.mu, entry.sigma), initial=initial))
            entry.games = 0


def _people_who_acted(match_ids: list[int], entries: dict[int, LadderEntry]) -> set[tuple[int, int]]:
    """(match, seat) pairs where a person made a move: they showed up, so their no-shows start again."""
    if not any(entry.user_id for entry in entries.values()):
        return set()
    return set(
        MatchEvent.objects.filter(match_id__in=match_ids, kind=MatchEvent.Kind.ACTION, actor__isnull=False)
        .values_list("match_id", "seat")
        .distinct()
    )


def _entries_ratings_save(entries) -> None:
    """One UPDATE per entry, sent with executemany (psycopg pipelines them). Django's bulk_update
    builds a CASE per field over every row: about 150 ms of Python for a batch's 200 entries, more
    than everything else in the batch together."""
    table, quote = LadderEntry._meta.db_table, connection.ops.quote_name
    moment = connection.ops.adapt_datetimefield_value
    with connection.cursor() as cursor:
        cursor.executemany(
            f"UPDATE {quote(table)} SET mu = %s, sigma = %s, ordinal = %s, games = %s, season = %s, "
            "last_played_at = %s, no_shows = %s WHERE id = %s",
            [
                (
                    entry.mu,
                    entry.sigma,
                    entry.ordinal,
                    entry.games,
                    entry.season,
                    moment(entry.last_played_at),
                    entry.no_shows,
                    entry.pk,
                )
                for entry in entries
            ],
        )


def ladder_match_rate(*, match_id: int) -> RatedMatch | None:
    """Rate a finished ladder match, once, together with every other match of its ladder still to
    rate (ratings are applied in finish order, so the earlier ones come first). None if it is not a
    ladder match or not finished; its RatedMatch, new or existing, otherwise."""
    ladder_match = LadderMatch.objects.select_related("round", "match").filter(match_id=match_id).first()
    if ladder_match is None or not ladder_match.match.is_finished:
        return None
    ladder_ratings_apply(ladder_id=ladder_match.round.ladder_id)
    return RatedMatch.objects.get(match_id=match_id)


def ladder_deadlines_enforce(*, now=None) -> list[int]:
    """Forfeit the people who let a ladder match's move or match deadline pass; returns match ids.

    Only a person is ever forfeited: when chance or a bot is due, the match is late because no worker
    played it, and the stalled-match sweep requeues it instead (a bot-only match is never forfeited).
    Each candidate is judged again under the match's row lock, at the log's head, and the forfeit is
    kept only if it lands right after that head: a move made meanwhile wins over the sweep. The
    forfeit is an event of the log naming the deadline, so the reason is on record. A person forfeited
    without having made a move in the match missed it: `no_show_limit` of those in a row pause the
    entry (LadderEntry.Pause.NO_SHOWS) until its owner comes back.
    """
    now = now or timezone.now()
    forfeited = []
    with_people = LadderMatch.objects.filter(
        match__status=Match.Status.RUNNING, match__seats__user__isnull=False
    )
    running = with_people.distinct().select_related("round__ladder", "match").order_by("match_id")
    for ladder_match in running:
        ladder = ladder_match.round.ladder
        try:
            if _late_people_forfeit(ladder_match, ladder, now):
                forfeited.append(ladder_match.match_id)
        except _HeadMoved:
            continue  # someone moved while the sweep judged: not late after all
    return forfeited


class _HeadMoved(Exception):
    pass


def _missed_deadline(ladder: Ladder, *, started_at, last_event_at, now) -> str | None:
    if now - started_at > timedelta(seconds=ladder.match_deadline_seconds):
        return f"missed the match deadline of {ladder.match_deadline_seconds} s"
    if now - last_event_at > timedelta(seconds=ladder.move_deadline_seconds):
        return f"missed the move deadline of {ladder.move_deadline_seconds} s"
    return None


@transaction.atomic
def _late_people_forfeit(ladder_match: LadderMatch, ladder: Ladder, now) -> bool:
    match = Match.objects.select_for_update().get(pk=ladder_match.match_id)
    if match.is_finished:
        return False
    head_seq, last_event_at = MatchEvent.objects.filter(match=match).order_by("-seq").values_list(
        "seq", "created_at"
    ).first() or (0, match.created_at)
    reason = _missed_deadline(ladder, started_at=match.created_at, last_event_at=last_event_at, now=now)
    if reason is None:
        return False
    people = dict(match.seats.filter(user__isnull=False).values_list("index", "user_id"))
    # An uploaded bot's account is a user, but its moves have their own deadlines on the worker: a
    # late one is a lost worker, which the bots' stalled sweep queues again, never a forfeit here.
    seated = LadderEntry.objects.filter(pk__in=ladder_match.entries)
    uploaded = set(seated.exclude(bot_version_id=None).values_list("pk", flat=True))
    people = {seat: user for seat, user in people.items() if ladder_match.entries[seat] not in uploaded}
    snapshot = match_snapshot(match)
    if snapshot.seq != head_seq:
        raise _HeadMoved
    late = sorted(seat for seat in match_game(match).decision(snapshot.state).seats if seat in people)
    if not late:
        return False  # chance or a bot is due: a worker plays it, and no bot is forfeited for a late worker
    expected = head_seq + 1
    for seat in late:
        try:
            result = match_forfeit(match_id=match.pk, seat=seat, reason=reason)
        except Conflict:
            raise _HeadMoved from None
        if result.event.seq != expected:
            raise _HeadMoved  # rolls the forfeit back with the rest of this transaction
        expected = (result.appended[-1].seq if result.appended else result.event.seq) + 1
        _no_show_count(ladder, match, seat, entry_id=ladder_match.entries[seat])
        # Several people may have been due at once (simultaneous choices): each late one forfeits,
        # while the match goes on and still waits for them.
        if result.snapshot is None:
            break
        still_due = match_game(match).decision(result.snapshot.state).seats
        if not any(other in still_due for other in late if other > seat):
            break
    return True


def _no_show_count(ladder: Ladder, match: Match, seat: int, *, entry_id: int) -> None:
    if MatchEvent.objects.filter(match=match, seat=seat, kind=MatchEvent.Kind.ACTION).exists():
        return  # it played, then stopped: a forfeit, not a no-show
    entry = LadderEntry.objects.select_for_update().get(pk=entry_id)
    entry.no_shows += 1
    entry.save(update_fields=["no_shows"])
    if entry.no_shows >= ladder.no_show_limit and not entry.is_paused:
        entry_pause(entry_id=entry.pk, reason=LadderEntry.Pause.NO_SHOWS)


def _standings(ladder: Ladder, entries) -> list[dict]:
    rows = sorted(
        (entry for entry in entries if entry.games > 0), key=lambda entry: (-entry.ordinal, entry.pk)
    )
    return [
        {
            "position": position,
            "entry": entry.pk,
            "competitor": entry.label,
            "mu": entry.mu,
            "sigma": entry.sigma,
            "ordinal": entry.ordinal,
            "games": entry.games,
            "provisional": skill.is_provisional(
                skill.Skill(entry.mu, entry.sigma),
                entry.games,
                seats=ladder.seats_per_match,
                max_sigma=ladder.provisional_sigma,
            ),
        }
        for position, entry in enumerate(rows, start=1)
    ]


def _season_standings_refresh(ladder: Ladder, season: int) -> None:
    """An archived season's final leaderboard again, after a match it started was rated late: the
    entries still in that season give their rating now, the others the one they closed it with."""
    archived = LadderSeason.objects.filter(ladder=ladder, number=season).first()
    if archived is None:
        return
    closed_with = {row["entry"]: row for row in archived.standings}
    still = {entry.pk: entry for entry in ladder.entries.select_related("user").filter(season=season)}
    rows = [
        {key: row[key] for key in ("entry", "competitor", "mu", "sigma", "ordinal", "games")}
        for entry_id, row in closed_with.items()
        if entry_id not in still
    ]
    rows += [
        {
            "entry": entry.pk,
            "competitor": entry.label,
            "mu": entry.mu,
            "sigma": entry.sigma,
            "ordinal": entry.ordinal,
            "games": entry.games,
        }
        for entry in still.values()
        if entry.games > 0
    ]
    rows.sort(key=lambda row: (-row["ordinal"], row["entry"]))
    for position, row in enumerate(rows, start=1):
        row["position"] = position
        row["provisional"] = skill.is_provisional(
            skill.Skill(row["mu"], row["sigma"]),
            row["games"],
            seats=ladder.seats_per_match,
            max_sigma=ladder.provisional_sigma,
        )
    archived.standings = rows
    archived.save(update_fields=["standings"])


def ladder_season_close(*, ladder_id: int, by=None, now=None, due_by=None) -> LadderSeason | None:
    """Close the ladder's season now: rate what has finished, archive the final leaderboard, and start
    the next season (ending `season_length_days` later, if the ladder has a length).

    The reset (unless `carry_over`): each entry keeps its mu and its sigma grows
    (`skill.season_reset`), and its game count starts again. An entry still playing a match of the
    closing season keeps that season's rating until the match is rated, in the season it started;
    then it enters the new season the same way, and the archive's standings take the late result.
    """
    if by is not None:
        with transaction.atomic():
            _refuse_archived(_ladder_managed(ladder_id, by))  # refused before any work is done
    ladder_ratings_apply(ladder_id=ladder_id)
    with transaction.atomic():
        ladder = _ladder_managed(ladder_id, by)
        _refuse_archived(ladder)
        if due_by is not None and (ladder.season_ends_at is None or ladder.season_ends_at > due_by):
            return None  # closed meanwhile, or its end moved
        _ratings_batch_apply(ladder_id, RATING_BATCH * 50)  # anything that finished since, in this lock
        ladder.refresh_from_db()
        now = now or timezone.now()
        entries = list(ladder.entries.select_related("user").filter(season=ladder.season))
        archived = LadderSeason.objects.create(
            ladder=ladder,
            number=ladder.season,
            started_at=ladder.season_started_at,
            ended_at=now,
            standings=_standings(ladder, entries),
        )
        ladder.season += 1
        ladder.season_started_at = now
        ladder.season_ends_at = (
            now + timedelta(days=ladder.season_length_days) if ladder.season_length_days else None
        )
        ladder.save(update_fields=["season", "season_started_at", "season_ends_at"])
        busy = set()
        for ids in LadderMatch.objects.filter(
            round__ladder=ladder, match__status=Match.Status.RUNNING
        ).values_list("entries", flat=True):
            busy.update(ids)
        initial = _initial(ladder)
        moved = [entry for entry in entries if entry.pk not in busy]
        for entry in moved:
            _entry_season_enter(entry, ladder.season, ladder=ladder, initial=initial)
        _entries_ratings_save(moved)
        return archived


def ladders_seasons_close_due(*, now=None) -> list[int]:
    """Close every season whose `season_ends_at` has passed (beat, every minute); returns ladder ids."""
    now = now or timezone.now()
    closed = []
    for ladder_id in Ladder.objects.filter(season_ends_at__lte=now, archived_at__isnull=True).values_list(
        "pk", flat=True
    ):
        if ladder_season_close(ladder_id=ladder_id, now=now, due_by=now) is not None:
            closed.append(ladder_id)
    return closed
