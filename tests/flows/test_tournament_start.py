"""Starting a tournament seeded by rating: the seeding reads each person's ladder rating in the game
(played for, here: a ladder match one of them forfeits) and keeps the ratings it used in the log."""

from __future__ import annotations

import pytest

from core.errors import ApplicationError
from flows.tournament_start import tournament_start_with_ratings
from matches.services import match_forfeit
from ratings.models import LadderEntry
from ratings.rate import ladder_match_rate
from ratings.rounds import ladder_round_create
from ratings.services import ladder_create, ladder_join
from tournaments import services as tournaments
from tournaments.models import TournamentEvent

pytestmark = pytest.mark.django_db


def rated(winner, loser) -> dict[str, float]:
    """One ladder match of Rat-Snake, which `loser` forfeits; their ordinals afterwards, by username."""
    ladder = ladder_create(game_key="rat-snake", name="Duel", slug="duel", seats_per_match=2)
    for user in (winner, loser):
        ladder_join(ladder=ladder, user=user)
    (match,) = ladder_round_create(ladder_id=ladder.pk).matches
    match_forfeit(match_id=match.pk, seat=match.seats.get(user=loser).index, reason="resigned")
    ladder_match_rate(match_id=match.pk)
    return {entry.user.username: entry.ordinal for entry in LadderEntry.objects.select_related("user")}


def registered(organiser, people, *, seeding: str) -> str:
    tournament = tournaments.tournament_create(
        organiser=organiser, name="Rated", game_key="rat-snake", format="swiss", seeding=seeding
    )
    tournaments.tournament_open(slug=tournament.slug, user=organiser)
    for user in people:
        tournaments.tournament_register(slug=tournament.slug, user=user)
    tournaments.tournament_register(slug=tournament.slug, user=organiser, bot="random")
    return tournament.slug


def test_a_tournament_seeded_by_rating_starts_in_the_order_of_the_ladder_ratings(users, django_user_model):
    unrated = django_user_model.objects.create_user("unrated")
    ordinals = rated(users["bob"], users["alice"])
    assert ordinals["bob"] > ordinals["alice"]
    # Registered in the reverse of the rating order, so that the order cannot come from registration.
    slug = registered(users["alice"], [unrated, users["alice"], users["bob"]], seeding="rating")
    tournament_start_with_ratings(slug=slug, user=users["alice"])
    started = TournamentEvent.objects.get(tournament__slug=slug, kind="started").payload
    players = {f"u{user.pk}": user.username for user in (unrated, users["alice"], users["bob"])} | {
        "b1": "bot"
    }
    assert [players[p] for p in started["players"]] == ["bob", "alice", "unrated", "bot"]
    assert {players[p]: r for p, r in started["ratings"].items()} == {
        name: round(ordinals[name], 2) for name in ("bob", "alice")
    }


def test_a_tournament_seeded_otherwise_reads_no_ratings_and_a_refused_start_writes_nothing(users):
    rated(users["bob"], users["alice"])
    slug = registered(users["alice"], [users["alice"], users["bob"]], seeding="registration")
    with pytest.raises(ApplicationError) as refused:
        tournament_start_with_ratings(slug=slug, user=users["bob"])
    assert refused.value.code == "tournament/not_organiser"
    assert not TournamentEvent.objects.filter(tournament__slug=slug, kind="started").exists()
    tournament_start_with_ratings(slug=slug, user=users["alice"])
    started = TournamentEvent.objects.get(tournament__slug=slug, kind="started").payload
    assert "ratings" not in started and started["players"][:2] == [
        f"u{users['alice'].pk}",
        f"u{users['bob'].pk}",
    ]


def test_the_service_refuses_to_seed_by_rating_without_the_ratings(users):
    slug = registered(users["alice"], [users["alice"], users["bob"]], seeding="rating")
    with pytest.raises(ValueError, match="flows.tournament_start"):
        tournaments.tournament_start(slug=slug, user=users["alice"])
