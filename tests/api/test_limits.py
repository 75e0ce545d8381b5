"""Limits and fairness of access: rate limits with a 429 and Retry-After, quotas on what one user
can start (staff exempt), slugs for names in any script."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from ratings.models import Ladder

pytestmark = pytest.mark.django_db


@pytest.fixture
def strict_rates(settings):
    settings.SNAKEPIT_RATES = {"sign_in": "3/min", "create": "2/min", "actions": "3/min"}
    cache.clear()
    yield
    cache.clear()


def assert_throttled(response):
    assert response.status_code == 429, response.content[:200]
    assert response.json()["code"] == "request/throttled"
    assert int(response["Retry-After"]) > 0


def test_sign_ins_are_rate_limited_on_the_token_endpoint_and_the_form(users, client_for, strict_rates):
    anonymous = client_for()
    for _ in range(3):
        assert (
            anonymous.post("/api/auth/token/", {"username": "alice", "password": "wrong"}).status_code == 400
        )
    assert_throttled(anonymous.post("/api/auth/token/", {"username": "alice", "password": "alice-password"}))
    cache.clear()
    for _ in range(3):
        assert (
            anonymous.post("/api/auth/login/", {"username": "alice", "password": "wrong"}).status_code == 200
        )
    assert_throttled(anonymous.post("/api/auth/login/", {"username": "alice", "password": "wrong"}))


def test_creating_and_acting_are_rate_limited_per_user_and_staff_are_exempt(users, client_for, strict_rates):
    alice, bob = client_for(users["alice"]), client_for(users["bob"])
    seats = [{"user": "alice"}, {"bot": "random"}]
    made = [
        alice.post("/api/matches/", {"game": "rat-snake", "seats": seats}, format="json") for _ in range(2)
    ]
    assert [response.status_code for response in made] == [201, 201]
    assert_throttled(alice.post("/api/matches/", {"game": "rat-snake", "seats": seats}, format="json"))
    assert_throttled(
        alice.post("/api/tournaments/", {"name": "T", "game": "rat-snake", "format": "swiss"}, format="json")
    )
    # Another user has their own allowance.
    assert (
        bob.post(
            "/api/matches/",
            {"game": "rat-snake", "seats": [{"user": "bob"}, {"bot": "random"}]},
            format="json",
        ).status_code
        == 201
    )
    users["carol"].is_staff = True
    users["carol"].save()
    carol = client_for(users["carol"])
    for _ in range(4):
        assert (
            carol.post(
                "/api/matches/",
                {"game": "rat-snake", "seats": [{"user": "carol"}, {"bot": "random"}]},
                format="json",
            ).status_code
            == 201
        )
    match_id = made[0].json()["id"]
    view = alice.get(f"/api/matches/{match_id}/view/").json()
    body = {"expected_seq": view["seq"], "action": view["legal_actions"][0]}
    answered = [alice.post(f"/api/matches/{match_id}/actions/", body, format="json") for _ in range(3)]
    assert answered[0].status_code == 201 and all(response.status_code != 429 for response in answered)
    assert_throttled(alice.post(f"/api/matches/{match_id}/actions/", body, format="json"))


def test_quotas_on_bot_matches_ladders_and_tournaments_spare_staff(users, client_for, settings):
    settings.SNAKEPIT_QUOTAS = {**settings.SNAKEPIT_QUOTAS, "bot_matches": 2, "ladders": 1, "tournaments": 1}
    alice = client_for(users["alice"])
    bots = {"game": "rat-snake", "seats": [{"bot": "random"}, {"bot": "random"}], "options": {"passes": 20}}
    made = [alice.post("/api/matches/", bots, format="json").status_code for _ in range(2)]
    assert made == [201, 201]
    over = alice.post("/api/matches/", bots, format="json")
    assert (over.status_code, over.json()["code"]) == (403, "quota/bot_matches")

    too_fast = alice.post(
        "/api/ladders/", {"game": "rat-snake", "name": "Fast", "round_interval_seconds": 5}, format="json"
    )
    assert (too_fast.status_code, too_fast.json()["code"]) == (422, "ladder/round_interval_too_short")
    assert alice.post("/api/ladders/", {"game": "rat-snake", "name": "One"}, format="json").status_code == 201
    second = alice.post("/api/ladders/", {"game": "rat-snake", "name": "Two"}, format="json")
    assert (second.status_code, second.json()["code"]) == (403, "quota/ladders")

    assert (
        alice.post(
            "/api/tournaments/", {"name": "One", "game": "rat-snake", "format": "swiss"}, format="json"
        ).status_code
        == 201
    )
    second = alice.post(
        "/api/tournaments/", {"name": "Two", "game": "rat-snake", "format": "swiss"}, format="json"
    )
    assert (second.status_code, second.json()["code"]) == (403, "quota/tournaments")

    users["bob"].is_staff = True
    users["bob"].save()
    bob = client_for(users["bob"])
    fast = bob.post(
        "/api/ladders/",
        {"game": "rat-snake", "name": "Staff fast", "round_interval_seconds": 5},
        format="json",
    )
    assert fast.status_code == 201
    assert (
        bob.post("/api/ladders/", {"game": "rat-snake", "name": "Staff two"}, format="json").status_code
        == 201
    )


def test_names_in_any_script_get_a_usable_unique_slug(users, client_for):
    alice = client_for(users["alice"])
    slugs = []
    for name in ("Кубок змей", "Кубок змей", "蛇の杯", "!!!", "Snake Cup"):
        response = alice.post(
            "/api/tournaments/", {"name": name, "game": "rat-snake", "format": "swiss"}, format="json"
        )
        assert response.status_code == 201, response.json()
        slugs.append(response.json()["slug"])
    assert all(slugs) and len(set(slugs)) == len(slugs)
    assert (
        slugs[0] == "кубок-змей"
        and slugs[1] == "кубок-змей-2"
        and slugs[2] == "蛇の杯"
        and slugs[4] == "snake-cup"
    )
    for slug in slugs:
        assert client_for().get(f"/api/tournaments/{slug}/").status_code == 200
    ladder = alice.post("/api/ladders/", {"game": "rat-snake", "name": "Лестница"}, format="json").json()
    assert ladder["slug"] == "лестница" and Ladder.objects.filter(slug="лестница").exists()


def test_format_filters_have_their_own_names_and_the_old_spelling_still_works(users, client_for):
    alice = client_for(users["alice"])
    for name, fmt in (("Swiss", "swiss"), ("League", "round_robin")):
        assert (
            alice.post(
                "/api/tournaments/", {"name": name, "game": "rat-snake", "format": fmt}, format="json"
            ).status_code
            == 201
        )
    anyone = client_for()
    for query in ({"tournament_format": "swiss"}, {"format": "swiss"}):
        listed = anyone.get("/api/tournaments/", query)
        assert listed.status_code == 200 and [row["name"] for row in listed.json()["results"]] == ["Swiss"], (
            query
        )
    deck = alice.post(
        "/api/decks/", {"name": "Mine", "format": "standard", "text": "Buffalo Kid\nMachete\n"}, format="json"
    )
    assert deck.status_code == 201, deck.json()
    for query in ({"deck_format": "standard"}, {"format": "standard"}):
        listed = alice.get("/api/decks/", query)
        assert listed.status_code == 200 and listed.json()["count"] == 1, (query, listed.content[:200])
    assert alice.get("/api/decks/", {"deck_format": "frontier"}).json()["count"] == 0
