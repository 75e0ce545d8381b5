"""The match API as a client uses it: create, view, act, list events, verify, errors."""

from __future__ import annotations

import pytest

from matches.models import Match
from tests.support import match_with_people, play_to_end

pytestmark = pytest.mark.django_db


def create(client, seats, options=None, status=201):
    response = client.post(
        "/api/matches/", {"game": "rat-snake", "seats": seats, "options": options or {}}, format="json"
    )
    assert response.status_code == status, response.json()
    return response.json()


def test_a_person_plays_rat_snake_against_a_bot_to_the_end_and_verifies_it(users, client_for):
    alice = client_for(users["alice"])
    match = create(alice, [{"user": "alice"}, {"bot": "heuristic"}], {"passes": 1})
    assert match["seed"] is None and len(match["seed_commitment"]) == 64
    play_to_end({0: alice}, match["id"])
    finished = alice.get(f"/api/matches/{match['id']}/").json()
    assert finished["status"] == "finished"
    assert sorted(finished["outcome"]["ranks"]) in ([1, 2], [1, 1])
    assert bytes.fromhex(finished["seed"])
    report = client_for().get(f"/api/matches/{match['id']}/verify/").json()
    assert report["verified"] is True and report["chance_events_checked"] > 0


def test_token_authentication_works_end_to_end(users, client_for):
    anonymous = client_for()
    token = anonymous.post("/api/auth/token/", {"username": "bob", "password": "bob-password"}).json()[
        "token"
    ]
    anonymous.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    match = create(anonymous, [{"user": "bob"}, {"bot": "random"}])
    assert match["created_by"] == "bob"


def test_every_error_body_has_a_code_and_a_detail(users, client_for):
    anonymous, alice = client_for(), client_for(users["alice"])
    cases = [
        (anonymous.post("/api/matches/", {}, format="json"), 401, "auth/not_authenticated"),
        (alice.get("/api/matches/999999/view/"), 404, "match/not_found"),
        (alice.post("/api/matches/", {"game": "chess", "seats": []}, format="json"), 400, "request/invalid"),
        (
            alice.post("/api/matches/", {"game": "rat-snake", "seats": [{"user": "alice"}]}, format="json"),
            422,
            "seats/invalid_count",
        ),
        (
            alice.post(
                "/api/matches/",
                {"game": "rat-snake", "seats": [{"user": "alice"}, {"user": "nobody"}]},
                format="json",
            ),
            403,
            "seat/consent_needed",
        ),
        (
            alice.post(
                "/api/matches/",
                {"game": "rat-snake", "seats": [{"user": "alice"}, {"bot": "deep-blue"}]},
                format="json",
            ),
            422,
            "seat/unknown_bot",
        ),
        (
            alice.post(
                "/api/matches/",
                {
                    "game": "rat-snake",
                    "seats": [{"user": "alice"}, {"bot": "random"}],
                    "options": {"passes": 0},
                },
                format="json",
            ),
            422,
            "options/out_of_range",
        ),
        (
            alice.post(
                "/api/matches/",
                {
                    "game": "rat-snake",
                    "seats": [{"user": "alice"}, {"bot": "random"}],
                    "options": {"pases": 2},
                },
                format="json",
            ),
            422,
            "options/unknown",
        ),
        (alice.post("/api/matches/", "not json", content_type="application/json"), 400, "request/malformed"),
    ]
    for response, status, code in cases:
        body = response.json()
        assert (response.status_code, body["code"]) == (status, code), body
        assert body["detail"]


def test_acting_through_the_api_checks_seq_seat_and_rules(users, client_for):
    alice, bob, carol = (client_for(users[name]) for name in ("alice", "bob", "carol"))
    match = match_with_people(
        "rat-snake", [{"user": "alice"}, {"user": "bob"}], {"alice": alice, "bob": bob}, {"side_bets": False}
    )
    url = f"/api/matches/{match['id']}/actions/"
    views = {
        0: alice.get(f"/api/matches/{match['id']}/view/").json(),
        1: bob.get(f"/api/matches/{match['id']}/view/").json(),
    }
    seat = views[0]["decision"]["seats"][0]
    me, other = (alice, bob) if seat == 0 else (bob, alice)
    action = views[seat]["legal_actions"][0]
    seq = views[seat]["seq"]
    assert views[1 - seat]["legal_actions"] == []
    refused = other.post(url, {"expected_seq": seq, "action": action}, format="json")
    assert (refused.status_code, refused.json()["code"]) == (422, "turn/not_your_turn")
    refused = carol.post(url, {"expected_seq": seq, "action": action}, format="json")
    assert (refused.status_code, refused.json()["code"]) == (403, "seat/not_yours")
    refused = me.post(url, {"expected_seq": seq + 5, "action": action}, format="json")
    assert (refused.status_code, refused.json()["code"], refused.json()["current_seq"]) == (
        409,
        "match/stale_seq",
        seq,
    )
    written = me.post(
        url, {"expected_seq": seq, "action": action}, format="json", HTTP_IDEMPOTENCY_KEY="once"
    )
    assert written.status_code == 201 and written.json()["event"]["seq"] == seq + 1
    again = me.post(url, {"expected_seq": seq, "action": action}, format="json", HTTP_IDEMPOTENCY_KEY="once")
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json()["event"]["seq"] == seq + 1
    assert Match.objects.get(pk=match["id"]).events.filter(idempotency_key__endswith=":once").count() == 1


def test_a_hidden_bet_is_withheld_from_the_other_seats_until_the_match_ends(users, client_for):
    alice, bob, carol = (client_for(users[name]) for name in ("alice", "bob", "carol"))
    spectator = client_for()
    match = match_with_people(
        "rat-snake",
        [{"user": "alice"}, {"user": "bob"}, {"user": "carol"}],
        {"alice": alice, "bob": bob, "carol": carol},
        {"passes": 1},
    )
    base = f"/api/matches/{match['id']}"
    view = bob.get(f"{base}/view/").json()
    assert view["decision"] == {"kind": "simultaneous", "seats": [1, 2], "prompt": "side_bets"}
    bet = next(a for a in view["legal_actions"] if a["type"] == "side_bet" and a["prediction"] == "rats_out")
    response = bob.post(f"{base}/actions/", {"expected_seq": view["seq"], "action": bet}, format="json")
    assert response.status_code == 201
    bet_seq = response.json()["event"]["seq"]

    def bet_event(client):
        return next(e for e in client.get(f"{base}/events/").json() if e["seq"] == bet_seq)

    assert bet_event(bob)["payload"] == bet
    assert (
        bet_event(bob)["describe"]
        == f"you bet {bet['stake']} coin{'s' * (bet['stake'] != 1)} that the thrower rats out"
    )
    for other in (carol, alice, spectator):
        hidden = {
            **bet_event(bob),
            "payload": None,
            "redacted": True,
            "describe": "bob answered the side bets face down",
        }
        assert bet_event(other) == hidden
        assert "rats_out" not in str(other.get(f"{base}/view/").json()["view"])
    play_to_end({0: alice, 1: bob, 2: carol}, match["id"])
    assert bet_event(spectator)["payload"] == bet
    assert bet_event(spectator)["describe"].startswith("bob bet ")


def test_a_spectator_sees_a_view_but_no_legal_actions(users, client_for):
    alice = client_for(users["alice"])
    match = create(alice, [{"user": "alice"}, {"bot": "heuristic"}])
    view = client_for().get(f"/api/matches/{match['id']}/view/").json()
    assert view["seat"] is None and view["legal_actions"] == [] and view["view"]
    refused = client_for(users["bob"]).get(f"/api/matches/{match['id']}/view/", {"seat": 0})
    assert (refused.status_code, refused.json()["code"]) == (403, "seat/not_yours")


def test_resigning_ends_the_match_with_the_resigner_last(users, client_for):
    alice = client_for(users["alice"])
    match = create(alice, [{"user": "alice"}, {"bot": "random"}])
    response = alice.post(f"/api/matches/{match['id']}/forfeit/", {}, format="json")
    assert response.status_code == 201 and response.json()["status"] == "finished"
    assert alice.get(f"/api/matches/{match['id']}/").json()["outcome"]["ranks"] == [2, 1]


def test_matches_are_listed_and_filtered(users, client_for):
    alice = client_for(users["alice"])
    create(alice, [{"user": "alice"}, {"bot": "random"}])
    create(client_for(users["bob"]), [{"user": "bob"}, {"bot": "heuristic"}])
    assert client_for().get("/api/matches/", {"player": "alice"}).json()["count"] == 1
    assert client_for().get("/api/matches/", {"bot": "heuristic"}).json()["count"] == 1
    assert client_for().get("/api/matches/", {"game": "rat-snake"}).json()["count"] == 2
    assert client_for().get("/api/matches/", {"status": "finished"}).json()["count"] == 0


def test_games_describe_their_options_and_bots(client_for, db):
    games = client_for().get("/api/games/").json()
    rat_snake = next(game for game in games if game["key"] == "rat-snake")
    assert {"passes", "house", "rat_and_pips"} <= {option["name"] for option in rat_snake["options"]}
    assert {"random", "heuristic"} <= set(rat_snake["bots"])
    missing = client_for().get("/api/games/chess/")
    assert (missing.status_code, missing.json()["code"]) == (404, "game/unknown")


def test_the_openapi_schema_and_swagger_ui_are_served(client_for, db):
    schema = client_for().get("/api/schema/", {"format": "json"})
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    assert "/api/matches/{id}/actions/" in paths and "/api/matches/{id}/verify/" in paths
    docs = client_for().get("/api/docs/")
    assert docs.status_code == 200 and b"swagger" in docs.content.lower()


def test_the_match_listing_reads_no_row_per_match(users, client_for):
    """Four matches with people seated cost the queries one does (each match's seq read by the
    listing's own query, every seat and its user by one more), and each row says what the match's
    own page says."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from matches.services import SeatSpec, match_create

    def listing() -> tuple[int, list[dict]]:
        with CaptureQueriesContext(connection) as queries:
            listed = client_for().get("/api/matches/")
        assert listed.status_code == 200
        return len(queries.captured_queries), listed.json()["results"]

    def new_match(person) -> None:
        match_create(game_key="rat-snake", seats=[SeatSpec(user=person), SeatSpec(bot="random")])

    new_match(users["alice"])
    one, _ = listing()
    for name in ("bob", "carol", "alice"):
        new_match(users[name])
    four, rows = listing()
    assert one > 0 and four == one and len(rows) == 4
    for row in rows:
        alone = client_for().get(f"/api/matches/{row['id']}/").json()
        assert row == alone and row["seq"] == Match.objects.get(pk=row["id"]).events.count()
    assert [row["seats"][0]["user"] for row in rows] == ["alice", "carol", "bob", "alice"]


def test_a_moves_answer_is_the_view_that_follows_and_costs_the_same_queries_each_move(users, client_for):
    """The answer to a move shows the state the move left (the service's own, not read again) and
    every event since: the same as a view and a listing read after it. Its queries do not grow with
    the log."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from matches.services import SeatSpec, match_create

    alice = client_for(users["alice"])
    # A fixed seed against the heuristic bot: a game that lasts past alice's fourth move (one of a
    # random seed could end after her first, and then there is nothing to compare).
    match = match_create(
        game_key="rat-snake",
        seats=[SeatSpec(user=users["alice"]), SeatSpec(bot="heuristic")],
        options={"passes": 3},
        seed=bytes(32),
    )
    base = f"/api/matches/{match.pk}"
    seen = alice.get(f"{base}/view/").json()
    counts = []
    while seen["legal_actions"] and len(counts) < 4:
        body = {"expected_seq": seen["seq"], "action": seen["legal_actions"][0]}
        with CaptureQueriesContext(connection) as queries:
            moved = alice.post(f"{base}/actions/", body, format="json")
        assert moved.status_code == 201, moved.json()
        counts.append(len(queries.captured_queries))
        answer = moved.json()
        seen = alice.get(f"{base}/view/").json()
        assert {key: answer[key] for key in seen} == seen
        listed = alice.get(f"{base}/events/", {"after": body["expected_seq"]}).json()
        assert answer["events"] == listed and answer["event"] == listed[0]
    assert len(counts) >= 2 and counts[0] > 0 and len(set(counts)) == 1, counts
