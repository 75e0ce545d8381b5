"""Starting a tournament, with the ratings its seeding reads: tournaments and ratings, siblings that
do not import each other, meet here. The API's `POST /api/tournaments/{slug}/start/` comes here."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction

from ratings.selectors import best_ordinals_by_user
from tournaments.models import Tournament
from tournaments.selectors import tournament_entrant_user_ids, tournament_get
from tournaments.services import tournament_start


@transaction.atomic
def tournament_start_with_ratings(
    *, slug: str, user, ends_at: datetime | None = None, starts_at: datetime | None = None
) -> Tournament:
    """Seed the players and pair the first round (`tournaments.services.tournament_start`). A
    tournament seeded by rating first reads each registered person's rating in its game: their best
    ordinal over the game's ladders, read under the tournament's lock so that nobody registers
    between the read and the seeding."""
    tournament = tournament_get(slug=slug, for_update=True)
    ratings = None
    if tournament.seeding == Tournament.Seeding.RATING:
        ratings = best_ordinals_by_user(
            game_key=tournament.game, user_ids=tournament_entrant_user_ids(tournament=tournament)
        )
    return tournament_start(
        slug=slug, user=user, ends_at=ends_at, starts_at=starts_at, ratings_by_user=ratings
    )
