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

from core.errors import Conflict, Forbidden, NotFound, Rejected
from core.quotas import quota_check, quota_exempt
from core.slugs import slug_for
from decks.selectors import deck_version_brought, deck_version_for_entry
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
) -> Ladder:
    game, resolved, seats = game_setup(game_key=game_key, options=options, seats=seats_per_match)
    if rating_model not in skill.MODELS:
        raise Rejected(f"rating model is one of {', '.join(skill.MODELS)}", code="ladder/unknown_rating_model")
    if entry_policy not in Ladder.Entry.values:
        raise Rejected(f"entry policy is one of {', '.join(Ladder.Entry.values)}", code="ladder/bad_entry_policy")
    slug = slug or slug_for(name, taken=lambda candidate: Ladder.objects.filter(slug=candidate).exists(), prefix="ladder")
    if not quota_exempt(created_by):
        shortest = settings.SNAKEPIT_QUOTAS["min_round_interval_seconds"]
        if round_interval_seconds < shortest:
            raise Rejected(
                f"a ladder plays a round at most every {shortest} seconds", code="ladder/round_interval_too_short"
            )
        quota_check(
            created_by, name="ladders", what="active ladders",
            current=Ladder.objects.filter(created_by=created_by, is_active=True).count(),
        )
    if Ladder.objects.filter(slug=slug).exists():
        raise Conflict(f"a ladder {slug!r} exists already", code="ladder/slug_taken")
    ladder = Ladder.objects.create(
        slug=slug, name=name, game=game.spec.key, options=resolved, seats_per_match=seats,
        rating_model=rating_model, entry_policy=entry_policy, round_interval_seconds=round_interval_seconds,
        created_by=created_by,
    )
    ladder_schedule_sync(ladder)
    return ladder


def ladder_schedule_sync(ladder: Ladder) -> None:
    """Keep the ladder's beat entry (django-celery-beat) in step with its interval and activity."""
    from django_celery_beat.models import IntervalSchedule, PeriodicTask

    every, _ = IntervalSchedule.objects.get_or_create(every=ladder.round_interval_seconds, period=IntervalSchedule.SECONDS)
    PeriodicTask.objects.update_or_create(
        name=f"ladder round: {ladder.slug}",
        defaults={
            "task": "ratings.tasks.ladder_play_round",
            "interval": every,
            "kwargs": f'{{"ladder_id": {ladder.pk}}}',
            "enabled": ladder.is_active,
        },
    )


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
    if entry is not None and entry.is_active:
        raise Conflict("already on this ladder", code="entry/already_joined")
    deck_version = None
    if deck_share_id:
        deck_version = deck_version_freeze(
            deck_version=deck_version_for_entry(share_id=deck_share_id, user=user), purpose=f"ladder {ladder.slug}"
        )
    if entry is not None:
        entry.left_at = None  # a returning competitor keeps its rating and history
        entry.deck_version = deck_version or entry.deck_version
        entry.save(update_fields=["left_at", "deck_version"])
        return entry
    entry = LadderEntry(ladder=ladder, user=user, bot=bot, deck_version=deck_version)
    _set_skill(entry, _initial(ladder))
    entry.save()
    return entry


@transaction.atomic
def ladder_leave(*, ladder: Ladder, user) -> LadderEntry:
    entry = ladder.entries.select_for_update().filter(user=user, left_at__isnull=True).first()
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
        if not ladder.is_active:
            return RoundResult(None, [])
        busy = set()
        for ids in LadderMatch.objects.filter(round__ladder=ladder, match__status=Match.Status.RUNNING).values_list(
            "entries", flat=True
        ):
            busy.update(ids)
        entries = {entry.pk: entry for entry in ladder.entries.filter(left_at__isnull=True).exclude(pk__in=busy).select_related("user", "deck_version")}
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
            sat_out_last_round=[str(entry_id) for entry_id in entries if previous and entry_id not in played_last],
        )
        if not plan.pods:
            return RoundResult(None, [])
        number = (ladder.rounds.filter(season=ladder.season).aggregate(n=Max("number"))["n"] or 0) + 1
        explanation = {
            "summary": plan.summary,
            "pods": [pod.explanation for pod in plan.pods],
            "sat_out": [{"entry": int(sit_out.id), "reason": sit_out.reason} for sit_out in plan.sat_out],
        }
        round_ = LadderRound.objects.create(ladder=ladder, season=ladder.season, number=number, explanation=explanation)
        matches = []
        for pod in plan.pods:
            # Pods list members strongest first; seat order (who throws first) is drawn instead.
            seated = rng.sample([entries[int(competitor_id)] for competitor_id in pod.members], len(pod.members))
            match = match_create(
                game_key=ladder.game,
                options=ladder.options,
                seats=[_seat(entry) for entry in seated],
                bots_play=bots_play,
            )
            LadderMatch.objects.create(round=round_, match=match, entries=[entry.pk for entry in seated])
            matches.append(match)
        return RoundResult(round_, matches)


def _seat(entry: LadderEntry) -> SeatSpec:
    """A match seat for an entry, bringing its frozen deck where it has one."""
    deck = deck_version_brought(entry.deck_version) if entry.deck_version_id else None
    return SeatSpec(user=entry.user, bot=entry.bot, deck=deck)


def _last_opponents(ladder: Ladder, entries: dict[int, LadderEntry]) -> dict[str, frozenset[str]]:
    """Each entry's opponents in its most recent ladder match (to avoid immediate rematches)."""
    last: dict[str, frozenset[str]] = {}
    for seated in LadderMatch.objects.filter(round__ladder=ladder).order_by("-pk").values_list("entries", flat=True)[:2000]:
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
                "pk", "match_id", "entries", "match__outcome"
            )[:batch]
        )
        if not due:
            return 0
        entries = LadderEntry.objects.select_for_update().in_bulk(
            {entry_id for _, _, seated_ids, _ in due for entry_id in seated_ids}
        )
        rated_rows, change_rows = [], []
        for _, match_id, seated_ids, outcome in due:
            seated = [entries[entry_id] for entry_id in seated_ids]
            ranks = outcome["ranks"]
            before = [skill.Skill(entry.mu, entry.sigma) for entry in seated]
            after = skill.rate(ladder.rating_model, before, ranks)
            rated = RatedMatch(match_id=match_id, ladder=ladder, season=ladder.season)
            rated_rows.append(rated)
            for entry, rank, old, new in zip(seated, ranks, before, after):
                change_rows.append(RatingChange(
                    rated_match=rated, entry=entry, rank=rank,
                    mu_before=old.mu, sigma_before=old.sigma, ordinal_before=old.ordinal,
                    mu_after=new.mu, sigma_after=new.sigma, ordinal_after=new.ordinal,
                ))
                _set_skill(entry, new)
                entry.games += 1
        # In rating order: RatedMatch ids are the order `rebuild_ratings` replays.
        RatedMatch.objects.bulk_create(rated_rows)
        RatingChange.objects.bulk_create(change_rows)
        _entries_ratings_save(entries.values())
        LadderMatch.objects.filter(pk__in=[ladder_match_id for ladder_match_id, _, _, _ in due]).update(rated=True)
        return len(due)


def _entries_ratings_save(entries) -> None:
    """One UPDATE per entry, sent with executemany (psycopg pipelines them). Django's bulk_update
    builds a CASE per field over every row: about 150 ms of Python for a batch's 200 entries, more
    than everything else in the batch together."""
    table, quote = LadderEntry._meta.db_table, connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.executemany(
            f"UPDATE {quote(table)} SET mu = %s, sigma = %s, ordinal = %s, games = %s WHERE id = %s",
            [(entry.mu, entry.sigma, entry.ordinal, entry.games, entry.pk) for entry in entries],
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
    """Forfeit the seats that let a ladder match's move or match deadline pass; returns match ids.

    The forfeit is an event of the match's log naming the deadline, so the reason is on record.
    """
    now = now or timezone.now()
    forfeited = []
    running = LadderMatch.objects.select_related("round__ladder", "match").filter(match__status=Match.Status.RUNNING)
    for ladder_match in running:
        match, ladder = ladder_match.match, ladder_match.round.ladder
        last_event_at = (
            MatchEvent.objects.filter(match=match).order_by("-seq").values_list("created_at", flat=True).first()
            or match.created_at
        )
        match_late = now - match.created_at > timedelta(seconds=ladder.match_deadline_seconds)
        move_late = now - last_event_at > timedelta(seconds=ladder.move_deadline_seconds)
        if not (match_late or move_late):
            continue
        deciding = sorted(match_game(match).decision(match_snapshot(match).state).seats)
        if not deciding:
            continue  # chance or a bot is due: the worker will play it
        reason = (
            f"missed the match deadline of {ladder.match_deadline_seconds} s"
            if match_late
            else f"missed the move deadline of {ladder.move_deadline_seconds} s"
        )
        try:
            match_forfeit(match_id=match.pk, seat=deciding[0], reason=reason)
        except Conflict:
            continue  # finished meanwhile
        forfeited.append(match.pk)
    return forfeited


@transaction.atomic
def ladder_season_close(*, ladder_id: int, ends_at=None) -> LadderSeason:
    """Archive the season's leaderboard and start the next one (resetting ratings unless carry_over)."""
    ladder = Ladder.objects.select_for_update().get(pk=ladder_id)
    now = timezone.now()
    standings = [
        {"entry": entry.pk, "competitor": entry.label, "mu": entry.mu, "sigma": entry.sigma,
         "ordinal": entry.ordinal, "games": entry.games}
        for entry in ladder.entries.select_related("user").filter(games__gt=0).order_by("-ordinal", "pk")
    ]
    archived = LadderSeason.objects.create(
        ladder=ladder, number=ladder.season, started_at=ladder.season_started_at, ended_at=now, standings=standings
    )
    ladder.season += 1
    ladder.season_started_at = now
    ladder.season_ends_at = ends_at
    ladder.save(update_fields=["season", "season_started_at", "season_ends_at"])
    if not ladder.carry_over:
        initial = _initial(ladder)
        for entry in ladder.entries.all():
            _set_skill(entry, initial)
            entry.games = 0
            entry.save(update_fields=["mu", "sigma", "ordinal", "games"])
    return archived
