"""Recompute a ladder's ratings after match outcomes were corrected (`manage.py reverify --apply`).

The ratings are rated again from the same matches, in the same order (RatedMatch ids) and seasons as
`ratings.selectors.ratings_rebuild` replays them (one `LadderReplay`), with each match's outcome as
it now stands; every rating change and entry is brought in line, and what moved is returned.
Nothing else is touched: no match is rated or unrated here.
"""

from __future__ import annotations

from django.db import transaction

from ratings.changes import ladder_changed
from ratings.models import Ladder, LadderEntry, RatingChange
from ratings.selectors import LadderReplay

MOVED = 1e-9


def ladder_ratings_recompute(*, ladder_id: int) -> list[dict]:
    """Every entry of the ladder whose rating moved: ladder, entry, label, and mu, sigma, ordinal and
    games before and after."""
    with transaction.atomic():
        ladder = Ladder.objects.select_for_update().get(pk=ladder_id)
        replay = LadderReplay(ladder)
        changes = {
            (change.rated_match_id, change.entry_id): change
            for change in RatingChange.objects.filter(rated_match__ladder=ladder)
        }
        for rated, seated, ranks, before, after in replay.matches():
            for entry_id, old, new, rank in zip(seated, before, after, ranks):
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
            rating, count = replay.entry_result(entry)
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
        ladder_changed(ladder_id=ladder.pk)
    return moved
