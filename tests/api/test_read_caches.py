"""The public reads kept per version of their data (core/read_cache.py, api/read_caches.py): a
repeated GET costs the version's query and no rebuild, and every write that changes what one shows
is in the very next GET, equal to what the read builds afresh."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from api.tournaments import tournament_standing_rows
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


def post(client, path, body=None):
    response = client.post(path, body or {}, format="json")
    assert response.status_code in (200, 201, 204), (path, response.status_code, response.content)
    return response.json() if response.content else None


def queries_of(client, path) -> tuple[list, int]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path)
    assert response.status_code == 200, response.content
    return response.json(), len(queries)


@pytest.fixture
def organiser(django_user_model, client_for):
    return client_for(django_user_model.objects.create_user("organiser"))


def test_standings_are_built_once_per_head_seq_and_every_event_shows_at_once(
    organiser, django_user_model, client_for
):
    slug = post(
        organiser,
        "/api/tournaments/",
        {"name": "Kept", "game": "rat-snake", "format": "swiss", "result_mode": "table"},
    )["slug"]
    path = f"/api/tournaments/{slug}/standings/"
    post(organiser, f"/api/tournaments/{slug}/open/")
    anonymous = client_for()

    def shows_the_write() -> list[dict]:
        tournament = Tournament.objects.get(slug=slug)
        first, built = queries_of(anonymous, path)
        assert first == tournament_standing_rows(tournament)
        again, kept = queries_of(anonymous, path)
        assert again == first and kept == 2 < built  # the tournament, its head seq
        return first

    clients = {}
    for number in range(1, 5):
        client = client_for(django_user_model.objects.create_user(f"player{number}"))
        clients[post(client, f"/api/tournaments/{slug}/register/")["player"]] = client
        shows_the_write()
    post(organiser, f"/api/tournaments/{slug}/start/")
    before = shows_the_write()
    table = organiser.get(f"/api/tournaments/{slug}/tables/", {"round": 1}).json()[0]
    first, second = table["players"]
    post(clients[first], f"/api/tournaments/{slug}/tables/{table['match_key']}/report/", {"ranks": [2, 1]})
    post(clients[second], f"/api/tournaments/{slug}/tables/{table['match_key']}/confirm/")
    after = shows_the_write()
    assert after != before and after[0]["player"] == second
    post(clients[first], f"/api/tournaments/{slug}/drop/")
    shows_the_write()
