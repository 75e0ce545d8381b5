"""Rating a ladder's finished matches, and a new entry's starting rating.

Exactly once: `ladder_ratings_apply` rates a ladder's finished matches in batches, in the order
they finished; each batch inserts the matches' `RatedMatch` rows (unique per match) in the same
transaction as the rating changes, under the ladder's row lock, and a second run, a duplicated task
or a retry reads only what is still unrated.

A match is rated in the season it started in: entries enter a season lazily, as their first match of
it is rated, and a match of an archived season rated late refreshes that season's final standings.
"""

from __future__ import annotations

from django.db import connection, transaction

from matches.models import MatchEvent
from ratings import selectors, skill
from ratings.changes import ladder_changed
from ratings.models import Ladder, LadderEntry, LadderMatch, LadderSeason, RatedMatch, RatingChange


def initial_skill(ladder: Ladder) -> skill.Skill:
    return skill.Skill.initial(ladder.rating_model)


def entry_skill_set(entry: LadderEntry, rating: skill.Skill) -> None:
    entry.mu, entry.sigma, entry.ordinal = rating.mu, rating.sigma, rating.ordinal


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
    while rated := ratings_batch_apply(ladder_id, batch):
        total += rated
    return total


def ratings_batch_apply(ladder_id: int, batch: int) -> int:
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
        initial = initial_skill(ladder)
        rated_rows, change_rows, late_seasons = [], [], set()
        for _, match_id, seated_ids, outcome, season, finished_at in due:
            seated = [entries[entry_id] for entry_id in seated_ids]
            for entry in seated:
                entry_season_enter(entry, season, ladder=ladder, initial=initial)
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
                entry_skill_set(entry, new)
                entry.games += 1
                entry.last_played_at = max(filter(None, (entry.last_played_at, finished_at)), default=None)
                if (match_id, seat) in present:
                    entry.no_shows = 0
        # In rating order: RatedMatch ids are the order `rebuild_ratings` replays.
        RatedMatch.objects.bulk_create(rated_rows)
        RatingChange.objects.bulk_create(change_rows)
        entries_ratings_save(entries.values())
        LadderMatch.objects.filter(pk__in=[ladder_match_id for ladder_match_id, *_ in due]).update(rated=True)
        for season in late_seasons:
            _season_standings_refresh(ladder, season)
        ladder_changed(ladder_id=ladder_id)
        return len(due)


def entry_season_enter(entry: LadderEntry, season: int, *, ladder: Ladder, initial: skill.Skill) -> None:
    """Bring an entry's rating into `season` before rating its match of that season: each season
    passed resets it (mu kept, sigma inflated, games from 0) unless the ladder carries ratings over.
    Seasons are entered lazily, so that a match of the last season still running at the close is
    rated in its own season, against its players' ratings of that season."""
    while entry.season < season:
        entry.season += 1
        if not ladder.carry_over:
            entry_skill_set(entry, skill.season_reset(skill.Skill(entry.mu, entry.sigma), initial=initial))
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


def entries_ratings_save(entries) -> None:
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
