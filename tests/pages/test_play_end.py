"""The end of a match on the play page: one line from the viewer's side ("You won", "You finished 2nd
of 4"), and where it leads (the tournament or ladder, the viewer's next match there, the replay)."""

from __future__ import annotations

import pytest

from matches.models import Match
from matches.services import SeatSpec, match_create, match_forfeit
from snakepit.pages.play import result_headline

FOUR = ["alice", "bob", "carol", "dave"]


@pytest.mark.parametrize(
    ("ranks", "seat", "headline"),
    [
        ([1, 2], 0, "You won"),
        ([1, 2], 1, "You lost"),
        ([1, 2], None, "alice won"),
        ([1, 1], 0, "Drawn"),
        ([1, 1, 1, 1], 2, "Drawn: everyone shares first place"),
        ([2, 1, 4, 3], 0, "You finished 2nd of 4"),
        ([2, 1, 4, 3], 1, "You won"),
        ([1, 3, 1, 4], 0, "You shared first place with carol"),
        ([1, 3, 1, 4], None, "alice and carol shared first place"),
        ([1, 2, 2, 4], 1, "You finished 2nd of 4, tied with carol"),
        ([1, 1, 1, 4], 3, "You finished 4th of 4"),
        ([], 0, "The match is over"),
    ],
)
def test_the_headline_says_the_result_from_the_viewers_side(ranks, seat, headline):
    labels = FOUR[: len(ranks)] or FOUR[:2]
    assert result_headline({"ranks": ranks}, labels, seat) == headline


def test_a_finished_match_says_who_won_to_each_and_leads_on(client, users):
    alice, bob = users["alice"], users["bob"]
    match = match_create(game_key="rat-snake", seats=[SeatSpec(user=alice), SeatSpec(user=bob)])
    match_forfeit(match_id=match.pk, seat=1, reason="resigned", user=bob)
    assert Match.objects.get(pk=match.pk).is_finished
    client.force_login(alice)
    page = client.get(f"/play/{match.pk}/").content.decode()
    assert '<h2 id="outcome-title">You won</h2>' in page
    assert f'href="/matches/{match.pk}/"' in page
    assert "/play/new/?game=rat-snake" in page
    assert 'id="next-match"' not in page  # a match of no tournament or ladder leads to no next one
    client.force_login(bob)
    assert '<h2 id="outcome-title">You lost</h2>' in client.get(f"/play/{match.pk}/").content.decode()
    client.logout()
    assert '<h2 id="outcome-title">alice won</h2>' in client.get(f"/play/{match.pk}/").content.decode()


def test_a_finished_tournament_game_leads_to_the_standings_and_the_players_next_match(
    django_user_model, client_for, client, eager_celery, django_capture_on_commit_callbacks
):
    from tests.api.test_tournament_results import first_table, post
    from tournaments.models import TournamentMatch

    organiser = client_for(django_user_model.objects.create_user("organiser"))
    slug = post(
        organiser,
        "/api/tournaments/",
        {"name": "Played", "game": "rat-snake", "format": "swiss", "options": {"passes": 1}},
    )["slug"]
    post(organiser, f"/api/tournaments/{slug}/open/")
    for name in ("ann", "ben", "cat", "dan"):
        post(client_for(django_user_model.objects.create_user(name)), f"/api/tournaments/{slug}/register/")
    with django_capture_on_commit_callbacks(execute=True):
        post(organiser, f"/api/tournaments/{slug}/start/")
    key, _ = first_table(organiser, slug)
    link = TournamentMatch.objects.get(tournament__slug=slug, match_key=key)
    first_seat = link.match.seats.get(index=0)
    player = first_seat.user
    with django_capture_on_commit_callbacks(execute=True):
        match_forfeit(match_id=link.match_id, seat=0, reason="resigned", user=player)
    client.force_login(player)
    page = client.get(f"/play/{link.match_id}/").content.decode()
    assert '<h2 id="outcome-title">You lost</h2>' in page
    assert f'href="/tournaments/{slug}/"' in page
    assert 'id="next-match"' not in page  # the next round is not paired yet
    # The next round's table, as seating it would link it (its projection row).
    following = match_create(game_key="rat-snake", seats=[SeatSpec(user=player), SeatSpec(bot="random")])
    TournamentMatch.objects.create(
        tournament=link.tournament, match_key="next", game_number=1, match=following
    )
    page = client.get(f"/play/{link.match_id}/").content.decode()
    assert f'id="next-match" href="/play/{following.pk}/"' in page
