"""The ladder API an operator uses: create, edit, pause, resume, archive; rounds and their matches
with every seat's entry; seasons; per entry its history, head-to-head and forfeits; every list
paginated in a stable order with a maximum page size."""

from __future__ import annotations

import pytest

from ratings.models import LadderEntry, RatedMatch, RatingChange

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user("operator", is_staff=True)


def test_a_staff_user_runs_a_ladder_across_two_seasons_and_reads_everything(
    staff, users, client_for, eager_celery, django_capture_on_commit_callbacks
):
    api, anyone = client_for(staff), client_for()
    created = api.post(
        "/api/ladders/",
        {
            "game": "rat-snake",
            "name": "Pods",
            "options": {"passes": 1},
            "seats_per_match": 3,
            "round_interval_seconds": 3600,
            "provisional_sigma": 8.0,
            "inactive_after_days": 14,
        },
        format="json",
    )
    assert created.status_code == 201, created.json()
    slug = created.json()["slug"]
    base = f"/api/ladders/{slug}/"
    for bot in ("random", "heuristic", "random", "heuristic", "random", "heuristic"):
        assert api.post(base + "join/", {"bot": bot}, format="json").status_code == 201
    edited = api.patch(base, {"name": "Pods of three", "round_interval_seconds": 1800}, format="json")
    assert edited.status_code == 200 and edited.json()["name"] == "Pods of three"
    assert edited.json()["round_interval_seconds"] == 1800
    paused = api.post(base + "pause/", {}, format="json")
    assert paused.status_code == 200 and paused.json()["is_active"] is False
    with django_capture_on_commit_callbacks(execute=True):
        assert api.post(base + "rounds/", {}, format="json").json() == {"round": None, "matches": []}
    assert api.post(base + "resume/", {}, format="json").json()["is_active"] is True

    def play(rounds):
        for _ in range(rounds):
            with django_capture_on_commit_callbacks(execute=True):
                started = api.post(base + "rounds/", {}, format="json")
            assert started.status_code == 201 and len(started.json()["matches"]) == 2

    play(2)
    closed = api.post(base + "seasons/close/", {}, format="json")
    assert closed.status_code == 201 and closed.json()["number"] == 1
    assert [row["games"] for row in closed.json()["standings"]] == [2] * 6
    assert anyone.get(base).json()["season"] == 2
    play(1)

    rounds = anyone.get(base + "rounds/").json()
    assert rounds["count"] == 3
    assert [(row["season"], row["number"]) for row in rounds["results"]] == [(2, 1), (1, 2), (1, 1)]
    one = anyone.get(base + "rounds/1/2/matches/").json()
    assert one["count"] == 2
    for row in one["results"]:
        assert [seat["seat"] for seat in row["entries"]] == [0, 1, 2]
        bots = [seat["bot"] for seat in row["match"]["seats"]]
        assert [seat["competitor"].split("#")[0] for seat in row["entries"]] == [f"bot:{bot}" for bot in bots]
        seated = LadderEntry.objects.in_bulk([seat["entry"] for seat in row["entries"]])
        assert [seated[seat["entry"]].bot for seat in row["entries"]] == bots
        assert row["season"] == 1 and row["round"] == 2 and row["rated"]
    missing = anyone.get(base + "rounds/1/9/matches/")
    assert (missing.status_code, missing.json()["code"]) == (404, "round/not_found")
    assert anyone.get(base + "matches/", {"status": "finished"}).json()["count"] == 6

    board = anyone.get(base + "leaderboard/").json()
    assert board["count"] == 6 and [row["position"] for row in board["results"]] == list(range(1, 7))
    second_page = anyone.get(base + "leaderboard/", {"limit": 2, "offset": 2}).json()["results"]
    assert [row["entry"] for row in second_page] == [row["entry"] for row in board["results"][2:4]]
    assert [row["position"] for row in second_page] == [3, 4]
    seasons = anyone.get(base + "seasons/").json()
    assert seasons["count"] == 1 and seasons["results"][0]["number"] == 1

    for entry in LadderEntry.objects.filter(ladder__slug=slug):
        history = anyone.get(base + f"entries/{entry.pk}/history/").json()
        assert history["count"] == 3  # two matches in season 1, one in season 2
        assert [row["season"] for row in history["results"]] == [2, 1, 1]
        for row in history["results"]:
            assert {"mu_after", "sigma_after", "ordinal_after"} <= set(row)
            assert row["match_url"] == f"/api/matches/{row['match']}/"
            assert anyone.get(row["match_url"]).status_code == 200
        versus = anyone.get(base + f"entries/{entry.pk}/head-to-head/").json()
        assert sum(row["games"] for row in versus["results"]) == 3 * 2  # two opponents a match
        for row in versus["results"]:
            assert row["wins"] + row["losses"] + row["draws"] == row["games"]
            both = RatedMatch.objects.filter(changes__entry=entry).filter(changes__entry_id=row["opponent"])
            assert both.count() == row["games"]
            ahead = sum(
                RatingChange.objects.get(rated_match=rated, entry=entry).rank
                < RatingChange.objects.get(rated_match=rated, entry_id=row["opponent"]).rank
                for rated in both
            )
            assert ahead == row["wins"]
        detail = anyone.get(base + f"entries/{entry.pk}/").json()
        assert detail["entry"] == entry.pk and detail["season"] == 2 and detail["forfeits"] == []


def test_only_the_owner_or_staff_manage_and_a_played_ladder_is_archived_not_deleted(
    staff, users, client_for, eager_celery, django_capture_on_commit_callbacks
):
    alice, bob, anyone = client_for(users["alice"]), client_for(users["bob"]), client_for()
    slug = alice.post(
        "/api/ladders/", {"game": "rat-snake", "name": "Mine", "options": {"passes": 1}}, format="json"
    ).json()["slug"]
    base = f"/api/ladders/{slug}/"
    for method, path, body in (
        ("patch", "", {"name": "Theirs"}),
        ("post", "pause/", {}),
        ("post", "resume/", {}),
        ("post", "archive/", {}),
        ("delete", "", None),
        ("post", "seasons/close/", {}),
    ):
        answer = getattr(bob, method)(base + path, body, format="json")
        assert (answer.status_code, answer.json()["code"]) == (403, "ladder/not_organiser"), path
        assert getattr(anyone, method)(base + path, body, format="json").status_code == 401, path
    bad = alice.patch(base, {"game": "rattlebones"}, format="json")
    assert (bad.status_code, bad.json()["code"]) == (400, "request/invalid")
    bad = alice.patch(base, {"seats_per_match": 99}, format="json")
    assert bad.status_code == 400
    bad = alice.patch(base, {"deck_format": "classic"}, format="json")
    assert (bad.status_code, bad.json()["code"]) == (422, "ladder/no_deck_format")
    assert anyone.get(base).json()["name"] == "Mine"
    for bot in ("random", "heuristic"):
        alice.post(base + "join/", {"bot": bot}, format="json")
    with django_capture_on_commit_callbacks(execute=True):
        alice.post(base + "rounds/", {}, format="json")
    refused = alice.delete(base)
    assert (refused.status_code, refused.json()["code"]) == (409, "ladder/has_matches")
    archived = client_for(staff).post(base + "archive/", {}, format="json")
    assert archived.status_code == 200 and archived.json()["archived_at"] and not archived.json()["is_active"]
    again = alice.post(base + "resume/", {}, format="json")
    assert (again.status_code, again.json()["code"]) == (409, "ladder/archived")
    assert anyone.get(base + "leaderboard/").json()["count"] == 2  # still readable
    unplayed = alice.post("/api/ladders/", {"game": "rat-snake", "name": "Empty"}, format="json").json()[
        "slug"
    ]
    assert alice.delete(f"/api/ladders/{unplayed}/").status_code == 204
    assert anyone.get(f"/api/ladders/{unplayed}/").status_code == 404


def test_lists_are_bounded_and_bad_queries_are_clear(users, client_for):
    alice = client_for(users["alice"])
    slug = alice.post("/api/ladders/", {"game": "rat-snake", "name": "Bounds"}, format="json").json()["slug"]
    base = f"/api/ladders/{slug}/"
    for path in ("leaderboard/", "rounds/", "matches/", "seasons/"):
        page = alice.get(base + path, {"limit": 10**6})
        assert page.status_code == 200 and page.json()["count"] == 0, path
    for path, query in (("leaderboard/", {"include_left": "maybe"}), ("matches/", {"status": "lost"})):
        answer = alice.get(base + path, query)
        assert (answer.status_code, answer.json()["code"]) == (400, "request/invalid_query"), path
    for path in (
        "entries/99999999999999999999999/",
        "entries/1/history/",
        "rounds/99999999999999/1/matches/",
    ):
        answer = alice.get(base + path)
        assert answer.status_code == 404 and answer.json()["code"] in (
            "entry/not_found",
            "round/not_found",
        ), path
