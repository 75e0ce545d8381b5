"""Every bad input an attacker or a careless client sent the running service, each a 4xx with a JSON
`{"code", "detail"}` under /api/ (never a 500, never an HTML page), and a plain page elsewhere."""

from __future__ import annotations

import json
import threading

import pytest
from django.db import close_old_connections
from django.test import Client

from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

DEEP = "[" * 1000 + "]" * 1000


def assert_error(response, status: int, code: str | None = None) -> dict:
    assert response.status_code == status, (response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = response.json()
    assert set(body) >= {"code", "detail"} and body["detail"], body
    if code is not None:
        assert body["code"] == code, body
    return body


@pytest.fixture
def alice(users, client_for):
    return client_for(users["alice"])


@pytest.mark.parametrize(
    "path",
    [
        "/api/matches/",
        "/api/tournaments/",
        "/api/ladders/",
        "/api/decks/",
        "/api/ragnguns/deck-checks/",
        "/api/auth/token/",
    ],
)
def test_json_nested_a_thousand_deep_is_a_400(alice, path):
    response = alice.generic("POST", path, DEEP, content_type="application/json")
    assert_error(response, 400, "request/too_deep")
    nested_inside = json.dumps(
        {"game": "rat-snake", "seats": [], "options": {"x": json.loads("[" * 40 + "]" * 40)}}
    )
    assert_error(
        alice.generic("POST", path, nested_inside, content_type="application/json"), 400, "request/too_deep"
    )


def test_nul_characters_in_a_slug_a_filter_a_body_or_a_text_deck_are_400s(alice, client_for):
    anyone = client_for()
    assert_error(anyone.get("/api/tournaments/a%00b/"), 400, "request/nul_character")
    assert_error(anyone.get("/api/matches/", {"player": "al\x00ice"}), 400, "request/nul_character")
    assert_error(anyone.get("/api/ladders/", {"game": "rat\x00snake"}), 400, "request/nul_character")
    body = json.dumps({"name": "Nul\u0000Cup", "game": "rat-snake", "format": "swiss"})
    assert_error(
        alice.generic("POST", "/api/tournaments/", body, content_type="application/json"),
        400,
        "request/nul_character",
    )
    text = "Buffalo Kid\n3 Machete\x00\n"
    assert_error(
        alice.generic("POST", "/api/ragnguns/deck-checks/", text, content_type="text/plain"),
        400,
        "request/nul_character",
    )
    assert_error(anyone.post("/api/auth/token/", {"username": "a\x00", "password": "x"}), 400)


def test_integers_past_the_database_columns_are_4xx(alice, client_for):
    anyone = client_for()
    huge = 2**31
    for path in (f"/api/matches/{huge}/", f"/api/matches/{2**70}/", f"/api/matches/{huge}/view/"):
        assert 400 <= anyone.get(path).status_code < 500
    assert_error(anyone.get("/api/matches/1/events/", {"after": 2**70}), 404)
    created = alice.post(
        "/api/tournaments/",
        {"name": "Big", "game": "rat-snake", "format": "swiss", "registration_cap": huge},
        format="json",
    )
    assert_error(created, 400)
    ladder = alice.post(
        "/api/ladders/", {"game": "rat-snake", "name": "Big", "round_interval_seconds": 2**40}, format="json"
    )
    assert_error(ladder, 400)
    deck = alice.get("/api/decks/abc/", {"version": 2**70})
    assert 400 <= deck.status_code < 500


def test_query_values_out_of_shape_are_400s(alice, client_for):
    anyone = client_for()
    created = alice.post(
        "/api/tournaments/", {"name": "Shape", "game": "rat-snake", "format": "swiss"}, format="json"
    )
    slug = created.json()["slug"]
    assert_error(anyone.get(f"/api/tournaments/{slug}/tables/", {"round": "first"}), 400)
    assert_error(anyone.get(f"/api/tournaments/{slug}/tables/", {"round": 2**70}), 400)
    for offset in ("+16:00", "-16:30", "+99:99"):
        assert_error(anyone.get("/api/matches/", {"created_after": f"2026-01-01T00:00:00{offset}"}), 400)
    listed = anyone.get("/api/matches/", {"limit": 10**12, "offset": 10**30})
    assert listed.status_code == 200 and listed.json()["results"] == []


def test_a_match_needs_seats_and_a_bounded_idempotency_key(alice):
    assert_error(alice.post("/api/matches/", {"game": "rat-snake", "seats": []}, format="json"), 422)
    match = alice.post(
        "/api/matches/", {"game": "rat-snake", "seats": [{"user": "alice"}, {"bot": "random"}]}, format="json"
    )
    view = alice.get(f"/api/matches/{match.json()['id']}/view/").json()
    body = {"expected_seq": view["seq"], "action": view["legal_actions"][0]}
    response = alice.post(
        f"/api/matches/{match.json()['id']}/actions/", body, format="json", HTTP_IDEMPOTENCY_KEY="k" * 10_000
    )
    assert_error(response, 400, "idempotency/key_too_long")


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_creates_of_one_slug_make_one_and_a_409(django_user_model):
    user = django_user_model.objects.create_user("racer")
    results = []
    barrier = threading.Barrier(2)

    def create():
        client = Client()
        client.force_login(user)
        barrier.wait()
        response = client.post(
            "/api/tournaments/",
            {"name": "Race", "slug": "race", "game": "rat-snake", "format": "swiss"},
            content_type="application/json",
        )
        results.append(response)
        close_old_connections()

    threads = [threading.Thread(target=create) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(response.status_code for response in results) == [201, 409]
    assert_error(next(r for r in results if r.status_code == 409), 409)
    assert Tournament.objects.filter(slug="race").count() == 1


def test_bodies_over_the_cap_are_413s_and_never_read(alice, settings):
    settings.SNAKEPIT_MAX_BODY_BYTES = 1000
    big_json = json.dumps({"game": "rat-snake", "seats": [], "options": {"x": "y" * 5000}})
    assert_error(
        alice.generic("POST", "/api/matches/", big_json, content_type="application/json"),
        413,
        "request/too_large",
    )
    big_text = "Machete\n" * 1000
    assert_error(
        alice.generic("POST", "/api/ragnguns/deck-checks/", big_text, content_type="text/plain"),
        413,
        "request/too_large",
    )


def test_error_pages_are_json_under_the_api_and_plain_pages_elsewhere(client_for, settings):
    anyone = client_for()
    assert_error(anyone.get("/api/no-such-thing/"), 404, "request/not_found")
    page = anyone.get("/no-such-page/")
    assert page.status_code == 404 and page["Content-Type"].startswith("text/html")
    assert b"Traceback" not in page.content and b"DATABASE" not in page.content


def test_a_crash_is_a_json_500_under_the_api_without_a_debug_page(client_for, monkeypatch):
    from api import games

    def explode(*args, **kwargs):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(games.GameViewSet, "list", explode)
    anyone = client_for()
    anyone.raise_request_exception = False
    response = anyone.get("/api/games/")
    body = assert_error(response, 500, "server/error")
    assert "secret" not in json.dumps(body)


def test_a_foreign_host_and_a_forged_form_get_the_same_json_errors_under_the_api(users):
    assert_error(Client().get("/api/games/", HTTP_HOST="evil.example"), 400, "request/malformed")
    forged = Client(enforce_csrf_checks=True).post(
        "/api/auth/login/", {"username": "alice", "password": "alice-password"}
    )
    assert_error(forged, 403, "auth/csrf_failed")


@pytest.mark.parametrize(
    "path", ["/api/matches/", "/api/tournaments/", "/api/ladders/", "/api/decks/", "/api/challenges/"]
)
def test_a_lone_surrogate_in_a_key_or_a_value_is_a_400_never_an_unrenderable_echo(alice, path):
    # JSON's escapes spell a code point that UTF-8 cannot: echoed in a 400's detail it crashed the
    # renderer (a 500) on 13 routes. json.dumps writes the escape itself, as an attacker's client would.
    for body in ({"\ud800": 1}, {"game": "\udfff", "name": "x"}, {"seats": [{"user": "a\ud83d"}]}):
        raw = json.dumps(body)
        assert "\\ud" in raw
        response = alice.generic("POST", path, raw, content_type="application/json")
        assert_error(response, 400, "request/invalid_text")
    paired = json.dumps({"name": "\ud83d\udc0d"})  # a surrogate pair is one real character (a snake)
    assert alice.generic("POST", path, paired, content_type="application/json").json().get("code") != (
        "request/invalid_text"
    )
