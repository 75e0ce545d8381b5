"""Seating other people only with their consent: challenges made, accepted, declined and cancelled,
with no way to learn whether a username exists."""

from __future__ import annotations

import pytest

from matches.models import Match

pytestmark = pytest.mark.django_db


def challenge(client, seats, game="rat-snake", options=None):
    response = client.post(
        "/api/challenges/", {"game": game, "seats": seats, "options": options or {}}, format="json"
    )
    assert response.status_code == 201, response.json()
    return response.json()


def test_seating_someone_else_directly_is_refused_the_same_way_whether_or_not_they_exist(users, client_for):
    alice = client_for(users["alice"])
    for name in ("bob", "nobody-by-this-name"):
        response = alice.post(
            "/api/matches/",
            {"game": "rat-snake", "seats": [{"user": "alice"}, {"user": name}]},
            format="json",
        )
        assert (response.status_code, response.json()["code"]) == (403, "seat/consent_needed")
        assert name not in response.json()["detail"]
    assert Match.objects.count() == 0


def test_a_challenge_becomes_a_match_when_everyone_invited_accepts(users, client_for):
    alice, bob, carol = (client_for(users[name]) for name in ("alice", "bob", "carol"))
    made = challenge(
        alice,
        [{"user": "alice"}, {"user": "bob"}, {"user": "carol"}, {"bot": "random"}],
        options={"passes": 1},
    )
    assert made["status"] == "pending" and made["match"] is None
    assert [seat["accepted"] for seat in made["seats"]] == [True, False, False, True]
    assert [row["id"] for row in bob.get("/api/challenges/").json()["results"]] == [made["id"]]
    assert client_for(users["carol"]).get(f"/api/challenges/{made['id']}/").status_code == 200

    first = bob.post(f"/api/challenges/{made['id']}/accept/", {}, format="json")
    assert first.status_code == 200 and first.json()["status"] == "pending"
    again = bob.post(f"/api/challenges/{made['id']}/accept/", {}, format="json")
    assert (again.status_code, again.json()["code"]) == (409, "challenge/already_accepted")
    assert Match.objects.count() == 0

    last = carol.post(f"/api/challenges/{made['id']}/accept/", {}, format="json").json()
    assert last["status"] == "accepted" and last["match"]
    match = alice.get(f"/api/matches/{last['match']}/").json()
    assert [seat["user"] for seat in match["seats"]] == ["alice", "bob", "carol", None]
    assert bob.get(f"/api/matches/{last['match']}/view/").json()["seat"] == 1


def test_a_challenge_to_an_unknown_name_looks_like_any_other_and_never_starts(users, client_for):
    alice = client_for(users["alice"])
    known = challenge(alice, [{"user": "alice"}, {"user": "bob"}])
    unknown = challenge(alice, [{"user": "alice"}, {"user": "nobody-by-this-name"}])

    def shape(made):
        return {
            key: value
            for key, value in made.items()
            if key not in ("id", "seats", "created_at", "expires_at")
        }

    assert shape(known) == shape(unknown)
    assert [seat["accepted"] for seat in unknown["seats"]] == [True, False]


def test_outsiders_cannot_see_or_answer_a_challenge_and_a_declined_one_is_over(users, client_for):
    alice, bob, carol = (client_for(users[name]) for name in ("alice", "bob", "carol"))
    made = challenge(alice, [{"user": "alice"}, {"user": "bob"}])
    assert carol.get(f"/api/challenges/{made['id']}/").status_code == 404
    refused = carol.post(f"/api/challenges/{made['id']}/accept/", {}, format="json")
    assert (refused.status_code, refused.json()["code"]) == (404, "challenge/not_found")
    assert bob.post(f"/api/challenges/{made['id']}/decline/").json()["status"] == "declined"
    late = bob.post(f"/api/challenges/{made['id']}/accept/", {}, format="json")
    assert (late.status_code, late.json()["code"]) == (409, "challenge/declined")

    withdrawn = challenge(alice, [{"user": "alice"}, {"user": "bob"}])
    assert alice.post(f"/api/challenges/{withdrawn['id']}/decline/").json()["status"] == "cancelled"
    assert Match.objects.count() == 0
