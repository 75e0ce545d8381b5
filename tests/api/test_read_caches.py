"""The public reads kept per version of their data (core/read_cache.py, api/read_caches.py): a
repeated GET costs the version's query and no rebuild, and every write that changes what one shows
is in the very next GET, equal to what the read builds afresh."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from api.tournaments import tournament_standing_rows
from core import read_cache as read_cache_module
from core.read_cache import read_caches_clear
from ratings import services
from ratings.models import Ladder, LadderEntry
from ratings.recompute import ladder_ratings_recompute
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


def post(client, path, body=None):
    response = client.post(path, body or {}, format="json")
    assert response.status_code in (200, 201, 204), (path, response.status_code, response.content)
    return response.json() if response.content else None


def queries_of(client, path) -> tuple[bytes, int]:
    """The answer's bytes (kept ones must be the very bytes a fresh build sends) and its queries."""
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path)
    assert response.status_code == 200, response.content
    return response.content, len(queries)


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
        assert json.loads(first) == tournament_standing_rows(tournament)
        again, kept = queries_of(anonymous, path)
        assert again == first and kept == 2 < built  # the tournament, its head seq
        read_caches_clear()
        assert anonymous.get(path).content == first  # what a fresh build sends
        return json.loads(first)

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


LADDER_READS = ("leaderboard/", "leaderboard/?include_left=true", "leaderboard/?limit=2&offset=1")


def test_ladder_reads_are_built_once_per_revision_and_every_write_shows_at_once(
    users, client_for, eager_celery, django_capture_on_commit_callbacks
):
    """Each write below changes the leaderboard, its pages or the listing: the first GET after it
    equals what the read builds with nothing kept, and a repeated GET builds nothing."""
    staff = users["carol"]
    staff.is_staff = True
    staff.save()
    api, anyone = client_for(staff), client_for()
    slug = post(
        api,
        "/api/ladders/",
        {"game": "rat-snake", "name": "Kept", "options": {"passes": 1}, "round_interval_seconds": 3600},
    )["slug"]
    base = f"/api/ladders/{slug}/"
    paths = ["/api/ladders/", "/api/ladders/?game=rat-snake", *(base + read for read in LADDER_READS)]
    shown: dict[str, object] = {}

    def shows_the_write():
        answers = {}
        for path in paths:
            answers[path], built = queries_of(anyone, path)
            again, kept = queries_of(anyone, path)
            assert again == answers[path] and kept == 1, path  # the version alone
        read_caches_clear()
        for path in paths:
            assert answers[path] == anyone.get(path).content, path  # what a fresh build sends
        assert answers != shown, "the write changed nothing these reads show"
        shown.clear()
        shown.update(answers)

    shows_the_write()
    for bot in ("random", "heuristic", "random"):
        post(api, base + "join/", {"bot": bot})
        shows_the_write()
    alice = client_for(users["alice"])
    post(alice, base + "join/")
    shows_the_write()
    with django_capture_on_commit_callbacks(execute=True):
        post(api, base + "rounds/")  # bot matches play out and are rated on commit
    shows_the_write()
    entry = LadderEntry.objects.get(ladder__slug=slug, user=users["alice"])
    services.entry_pause(entry_id=entry.pk, reason="operator")
    shows_the_write()
    services.entry_resume(entry_id=entry.pk)
    shows_the_write()
    post(alice, base + "leave/")
    shows_the_write()
    api.patch(base, {"provisional_sigma": 0.5, "name": "Kept on"}, format="json")
    shows_the_write()
    post(api, base + "seasons/close/")
    shows_the_write()
    post(api, base + "pause/")
    shows_the_write()
    post(api, "/api/ladders/", {"game": "rat-snake", "name": "Another", "options": {"passes": 1}})
    shows_the_write()
    assert api.delete("/api/ladders/another/").status_code == 204
    shows_the_write()
    post(api, base + "archive/")
    shows_the_write()


def test_a_recompute_moves_the_ladders_revision(users):
    ladder = services.ladder_create(game_key="rat-snake", name="Again", slug="again", options={"passes": 1})
    services.ladder_join(ladder=ladder, bot="random")
    before = Ladder.objects.get(pk=ladder.pk).revision
    ladder_ratings_recompute(ladder_id=ladder.pk)
    assert Ladder.objects.get(pk=ladder.pk).revision > before


def test_an_entry_that_goes_inactive_leaves_the_kept_leaderboard_when_it_does(client_for, monkeypatch):
    """No write marks an entry inactive: the day passing does, so the kept page expires then."""
    ladder = services.ladder_create(
        game_key="rat-snake", name="Idle", slug="idle", options={"passes": 1}, inactive_after_days=1
    )
    services.ladder_join(ladder=ladder, bot="random")
    anyone = client_for()
    assert anyone.get("/api/ladders/idle/leaderboard/").json()["count"] == 1
    later = timezone.now() + timedelta(days=1, seconds=1)
    monkeypatch.setattr(timezone, "now", lambda: later)
    monkeypatch.setattr(read_cache_module.time, "time", lambda: later.timestamp())
    assert anyone.get("/api/ladders/idle/leaderboard/").json()["count"] == 0


def test_a_save_from_a_stale_copy_still_moves_the_revision_on():
    ladder = services.ladder_create(game_key="rat-snake", name="Twice", slug="twice", options={"passes": 1})
    first, second = Ladder.objects.get(pk=ladder.pk), Ladder.objects.get(pk=ladder.pk)
    start = first.revision
    first.save()
    assert first.revision == start + 1  # read again once asked for
    second.name = "Twice over"
    second.save(update_fields=["name"])
    assert Ladder.objects.get(pk=ladder.pk).revision == start + 2
