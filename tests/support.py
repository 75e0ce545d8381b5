"""Helpers shared by the database and API tests: drive a match through the public API."""

from __future__ import annotations

import random
from typing import NoReturn


def act_once(
    clients_by_seat: dict, match_id: int, rng: random.Random, *, prefer: str | None = None
) -> dict | None:
    """Let whichever human seat is to decide take one legal action; None when no human is to act."""
    any_client = next(iter(clients_by_seat.values()))
    view = any_client.get(f"/api/matches/{match_id}/view/").json()
    if view["status"] == "finished":
        return None
    humans = [seat for seat in view["decision"]["seats"] if seat in clients_by_seat]
    if not humans:
        return None
    seat = humans[0]
    client = clients_by_seat[seat]
    mine = client.get(f"/api/matches/{match_id}/view/", {"seat": seat}).json()
    actions = mine["legal_actions"]
    preferred = [action for action in actions if action["type"] == prefer]
    action = (preferred or actions)[0] if prefer else rng.choice(actions)
    response = client.post(
        f"/api/matches/{match_id}/actions/",
        {"expected_seq": mine["seq"], "action": action, "seat": seat},
        format="json",
    )
    assert response.status_code == 201, response.json()
    return response.json()


def play_to_end(clients_by_seat: dict, match_id: int, *, seed: int = 0, max_actions: int = 5000) -> None:
    rng = random.Random(seed)
    for _ in range(max_actions):
        if act_once(clients_by_seat, match_id, rng) is None:
            status = next(iter(clients_by_seat.values())).get(f"/api/matches/{match_id}/").json()["status"]
            assert status == "finished", "no human can act but the match is not over"
            return
    raise AssertionError(f"match {match_id} did not end within {max_actions} actions")


def match_with_people(game: str, seats: list[dict], clients: dict, options: dict | None = None) -> dict:
    """A match seating several people, made the way users must: the first seat's user challenges,
    each other one accepts (with the deck their seat names, where the game needs one). `clients`
    maps usernames to their API clients. Returns the match as the API shows it."""
    creator = clients[seats[0]["user"]]
    made = creator.post(
        "/api/challenges/",
        {
            "game": game,
            "seats": [
                seat
                if seat.get("user") == seats[0]["user"]
                else {key: seat[key] for key in ("user", "bot") if key in seat}
                for seat in seats
            ],
            "options": options or {},
        },
        format="json",
    )
    assert made.status_code == 201, made.json()
    challenge = made.json()
    for seat in seats[1:]:
        if "user" in seat and seat["user"] != seats[0]["user"]:
            answer = {key: seat[key] for key in ("deck", "deck_version") if key in seat}
            response = clients[seat["user"]].post(
                f"/api/challenges/{challenge['id']}/accept/", answer, format="json"
            )
            assert response.status_code == 200, response.json()
            challenge = response.json()
    assert challenge["status"] == "accepted", challenge
    return creator.get(f"/api/matches/{challenge['match']}/").json()


def unavailable(why: str) -> NoReturn:
    """What a test needs is missing: a skip on a laptop, a failure under CI=true (where PostgreSQL,
    Redis, Chromium, PgBouncer and psql are all installed by .ci/run), so a skip never hides one."""
    import pytest
    from django.conf import settings

    if settings.IN_CI:
        pytest.fail(f"CI=true, but {why}")
    pytest.skip(why)


def require_postgresql(why: str) -> None:
    """Skip a PostgreSQL-only test on the embedded default; under CI=true a missing PostgreSQL is a
    failure, never a skip."""
    from django.db import connection

    if connection.vendor != "postgresql":
        unavailable(f"this test needs PostgreSQL: {why}")
