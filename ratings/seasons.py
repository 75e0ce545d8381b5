"""Closing a ladder's seasons: archive the final leaderboard and start the next season, by hand or
when `season_ends_at` has passed."""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from ratings import selectors, skill
from ratings.changes import ladder_changed
from ratings.models import Ladder, LadderSeason
from ratings.rate import (
    RATING_BATCH,
    entries_ratings_save,
    entry_season_enter,
    initial_skill,
    ladder_ratings_apply,
    ratings_batch_apply,
)
from ratings.services import ladder_managed, ladder_refuse_archived


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
            ladder_refuse_archived(ladder_managed(ladder_id, by))  # refused before any work is done
    ladder_ratings_apply(ladder_id=ladder_id)
    with transaction.atomic():
        ladder = ladder_managed(ladder_id, by)
        ladder_refuse_archived(ladder)
        if due_by is not None and (ladder.season_ends_at is None or ladder.season_ends_at > due_by):
            return None  # closed meanwhile, or its end moved
        ratings_batch_apply(ladder_id, RATING_BATCH * 50)  # anything that finished since, in this lock
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
        busy = selectors.entries_in_running_matches(ladder=ladder)
        initial = initial_skill(ladder)
        moved = [entry for entry in entries if entry.pk not in busy]
        for entry in moved:
            entry_season_enter(entry, ladder.season, ladder=ladder, initial=initial)
        entries_ratings_save(moved)
        ladder_changed(ladder_id=ladder.pk)  # the new season's ratings start afresh
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
