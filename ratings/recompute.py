"""Recompute a ladder's ratings after match outcomes were corrected (`manage.py reverify --apply`).

The ratings are rated again from the same matches, in the same order (RatedMatch ids) and seasons as
`ratings.selectors.ratings_rebuild` replays them, with each match's outcome as it now stands; every
rating change and entry is brought in line, and what moved is returned. Nothing else is touched: no
match is rated or unrated here.
"""

from __future__ import annotations

from django.db import transaction

from ratings import skill
from ratings.models import Ladder, LadderEntry, RatedMatch, RatingChange

MOVED = 1e-9


def ladder_ratings_recompute(*, ladder_id: int) -> list[dict]:
    """Every entry of the ladder whose rating moved: ladder, entry, label, and mu, sigma, ordinal and
    games before and after."""
    with transaction.atomic():
        ladder = Ladder.objects.select_for_update().get(pk=ladder_id)
        initial = skill.Skill.initial(ladder.rating_model)
        ratings: dict[int, skill.Skill] = {}
        games: dict[int, int] = {}
        seasons: dict[int, int] = {}

        def enter(entry_id: int, season: int) -> None:
            while seasons.get(entry_id, 1) < season:
                seasons[entry_id] = seasons.get(entry_id, 1) + 1
                if not ladder.carry_over:
                    ratings[entry_id] = skill.season_reset(ratings.get(entry_id, initial), initial=initial)
                    games[entry_id] = 0

        changes = {
            (change.rated_match_id, change.entry_id): change
            for change in RatingChange.objects.filter(rated_match__ladder=ladder)
        }
        rated_matches = RatedMatch.objects.filter(ladder=ladder).select_related(
            "match", "match__ladder_match"
        )
        for rated in rated_matches.order_by("pk"):
            seated = rated.match.ladder_match.entries
            ranks = rated.match.outcome["ranks"]
            for entry_id in seated:
                enter(entry_id, rated.season)
            before = [ratings.get(entry_id, initial) for entry_id in seated]
            after = skill.rate(ladder.rating_model, before, ranks)
            for entry_id, old, new, rank in zip(seated, before, after, ranks):
                ratings[entry_id] = new
                games[entry_id] = games.get(entry_id, 0) + 1
                change = changes.get((rated.pk, entry_id))
                if change is not None:
                    change.rank = rank
                    change.mu_before, change.sigma_before, change.ordinal_before = (
                        old.mu,
                        old.sigma,
                        old.ordinal,
                    )
                    change.mu_after, change.sigma_after, change.ordinal_after = new.mu, new.sigma, new.ordinal
        RatingChange.objects.bulk_update(
            list(changes.values()),
            [
                "rank",
                "mu_before",
                "sigma_before",
                "ordinal_before",
                "mu_after",
                "sigma_after",
                "ordinal_after",
            ],
        )
        moved = []
        entries = list(LadderEntry.objects.filter(ladder=ladder).order_by("pk"))
        for entry in entries:
            enter(entry.pk, entry.season)
            rating = ratings.get(entry.pk, initial)
            count = games.get(entry.pk, 0)
            if (
                abs(entry.mu - rating.mu) > MOVED
                or abs(entry.sigma - rating.sigma) > MOVED
                or entry.games != count
            ):
                moved.append(
                    {
                        "ladder": ladder.slug,
                        "entry": entry.pk,
                        "label": entry.label,
                        "mu": [entry.mu, rating.mu],
                        "sigma": [entry.sigma, rating.sigma],
                        "ordinal": [entry.ordinal, rating.ordinal],
                        "games": [entry.games, count],
                    }
                )
                entry.mu, entry.sigma, entry.ordinal, entry.games = (
                    rating.mu,
                    rating.sigma,
                    rating.ordinal,
                    count,
                )
        LadderEntry.objects.bulk_update(entries, ["mu", "sigma", "ordinal", "games"])
    return moved
