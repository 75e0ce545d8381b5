"""The ladder API as a client uses it."""

from __future__ import annotations

import pytest

from ratings import services

pytestmark = pytest.mark.django_db


def test_an_organiser_runs_a_bot_ladder_and_anyone_reads_the_results(
    users, client_for, eager_celery, django_capture_on_commit_callbacks
):
    alice, anyone = client_for(users["alice"]), client_for()
    created = alice.post(
        "/api/ladders/", {"game": "rat-snake", "name": "Dens", "options": {"passes": 1}}, format="json"
    )
    assert created.status_code == 201 and created.json()["slug"] == "dens"
    for bot in ("random", "heuristic"):
        assert alice.post("/api/ladders/dens/join/", {"bot": bot}, format="json").status_code == 201
    for _ in range(2):
        with django_capture_on_commit_callbacks(execute=True):
            started = alice.post("/api/ladders/dens/rounds/", {}, format="json")
        assert started.status_code == 201 and len(started.json()["matches"]) == 1
    board = anyone.get("/api/ladders/dens/leaderboard/").json()["results"]
    assert [row["games"] for row in board] == [2, 2] and board[0]["ordinal"] >= board[1]["ordinal"]
    history = anyone.get(f"/api/ladders/dens/entries/{board[0]['entry']}/history/").json()
    assert history["count"] == 2 and {"mu_before", "mu_after", "match"} <= set(history["results"][0])
    matches = anyone.get("/api/ladders/dens/matches/", {"status": "finished"}).json()
    assert matches["count"] == 2
    assert anyone.get("/api/ladders/", {"game": "rat-snake"}).json()["count"] == 1
    across = anyone.get("/api/ladder-entries/", {"game": "rat-snake", "ladder": "dens"}).json()
    assert across["count"] == 2 and across["results"][0]["ordinal"] >= across["results"][1]["ordinal"]
    assert anyone.get("/api/ladder-entries/", {"game": "rattlebones"}).json()["count"] == 0
    closed = alice.post("/api/ladders/dens/seasons/close/", {}, format="json")
    assert closed.status_code == 201
    assert anyone.get("/api/ladders/dens/seasons/").json()["results"][0]["number"] == 1


def test_people_join_and_leave_and_only_organisers_manage(users, client_for):
    services.ladder_create(game_key="rat-snake", name="Open", slug="open", created_by=users["alice"])
    bob = client_for(users["bob"])
    joined = bob.post("/api/ladders/open/join/", {}, format="json")
    assert joined.status_code == 201 and joined.json()["user"] == "bob" and joined.json()["provisional"]
    again = bob.post("/api/ladders/open/join/", {}, format="json")
    assert (again.status_code, again.json()["code"]) == (409, "entry/already_joined")
    for path, body in (("join/", {"bot": "random"}), ("rounds/", {}), ("seasons/close/", {})):
        refused = bob.post(f"/api/ladders/open/{path}", body, format="json")
        assert (refused.status_code, refused.json()["code"]) == (403, "ladder/not_organiser"), path
    assert bob.post("/api/ladders/open/leave/", {}, format="json").status_code == 204
    gone = bob.post("/api/ladders/open/leave/", {}, format="json")
    assert (gone.status_code, gone.json()["code"]) == (409, "entry/not_joined")
    deckless = client_for(users["carol"]).post("/api/ladders/open/join/", {"deck": "abc123"}, format="json")
    assert (deckless.status_code, deckless.json()["code"]) == (422, "entry/deck_not_needed")
    missing = bob.get("/api/ladders/nowhere/leaderboard/")
    assert (missing.status_code, missing.json()["code"]) == (404, "ladder/not_found")
    bad = client_for(users["alice"]).post(
        "/api/ladders/", {"game": "rat-snake", "name": "x", "seats_per_match": 9}, format="json"
    )
    assert (bad.status_code, bad.json()["code"]) == (422, "seats/invalid_count")


def test_the_ladder_listing_counts_every_ladders_entries_in_one_query(client_for):
    """No query per listed ladder: five ladders cost what one does, and each counts those not left."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    def listing_queries() -> tuple[int, list[dict]]:
        with CaptureQueriesContext(connection) as queries:
            listed = client_for().get("/api/ladders/")
        assert listed.status_code == 200
        return len(queries.captured_queries), listed.json()["results"]

    first = services.ladder_create(game_key="rat-snake", name="L0")
    for _ in range(3):
        services.ladder_join(ladder=first, bot="random")
    first.entries.filter(pk=first.entries.first().pk).update(left_at=timezone.now())  # one has left
    one_ladder, _ = listing_queries()
    for number in range(1, 5):
        services.ladder_join(
            ladder=services.ladder_create(game_key="rat-snake", name=f"L{number}"), bot="random"
        )
    five_ladders, rows = listing_queries()
    assert five_ladders == one_ladder
    assert sorted(row["entries"] for row in rows) == [1, 1, 1, 1, 2]
