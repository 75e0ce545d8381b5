"""Results at tables through the API as a small state machine: a report by one participant,
confirmation by another (or the organiser), disagreeing reports open a dispute only the organiser
settles, corrections as forfeits, the table's own route; and drops, which forfeit at once and never
leave a match or a rebuild behind."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from matches.models import Match
from tournaments.models import TournamentEvent, TournamentMatch

pytestmark = pytest.mark.django_db


@pytest.fixture
def organiser(django_user_model, client_for):
    return client_for(django_user_model.objects.create_user("organiser"))


def post(client, path, body=None, status=(200, 201)):
    response = client.post(path, body or {}, format="json")
    expected = status if isinstance(status, tuple) else (status,)
    assert response.status_code in expected, (path, response.status_code, response.json())
    return response.json() if response.content else None


def swiss_at_tables(organiser, django_user_model, client_for, players=4, **extra):
    slug = post(
        organiser,
        "/api/tournaments/",
        {"name": "Tables", "game": "rat-snake", "format": "swiss", "result_mode": "table", **extra},
    )["slug"]
    post(organiser, f"/api/tournaments/{slug}/open/")
    clients = {}
    for number in range(1, players + 1):
        client = client_for(django_user_model.objects.create_user(f"player{number}"))
        clients[post(client, f"/api/tournaments/{slug}/register/")["player"]] = client
    post(organiser, f"/api/tournaments/{slug}/start/")
    return slug, clients


def first_table(organiser, slug):
    table = organiser.get(f"/api/tournaments/{slug}/tables/", {"round": 1}).json()[0]
    return table["match_key"], table["players"]


def test_a_player_cannot_confirm_their_own_contrary_report(organiser, django_user_model, client_for):
    slug, clients = swiss_at_tables(organiser, django_user_model, client_for)
    key, (a, b) = first_table(organiser, slug)
    base = f"/api/tournaments/{slug}/tables/{key}"
    post(clients[a], f"{base}/report/", {"ranks": [1, 2]})
    post(clients[b], f"{base}/report/", {"ranks": [2, 1]})  # the contrary report opens a dispute
    before = TournamentEvent.objects.filter(tournament__slug=slug).count()
    for who in (a, b):
        refused = post(clients[who], f"{base}/confirm/", status=409)
        assert refused["code"] == "result/disputed"
    assert post(clients[a], f"{base}/report/", {"ranks": [1, 2]}, status=409)["code"] == "result/disputed"
    assert TournamentEvent.objects.filter(tournament__slug=slug).count() == before  # nothing written
    view = organiser.get(f"{base}/").json()
    assert view["status"] == "disputed"
    assert [(r["by"], r["ranks"]) for r in view["reports"]] == [(a, [1, 2]), (b, [2, 1])]
    names = {e["player"]: e["user"] for e in organiser.get(f"/api/tournaments/{slug}/entries/").json()}
    assert [(e["kind"], e["actor"], e["payload"]["by"]) for e in view["events"]] == [
        ("result_reported", names[a], a),
        ("result_reported", names[b], b),
    ]
    # Only the organiser settles it.
    refused = post(clients[a], f"{base}/correct/", {"ranks": [1, 2], "reason": "mine"}, status=403)
    assert refused["code"] == "tournament/not_organiser"
    post(organiser, f"{base}/correct/", {"ranks": [2, 1], "reason": "the arbiter saw it"})
    view = organiser.get(f"{base}/").json()
    assert (
        view["status"] == "decided"
        and view["result"]["winner"] == b
        and view["result"]["decided_by"] == "corrected"
    )
    assert [h["kind"] for h in view["history"]] == [
        "result_reported",
        "result_reported",
        "result_disputed",
        "result_corrected",
    ]


def test_a_report_is_pending_until_another_participant_or_the_organiser_confirms(
    organiser, django_user_model, client_for
):
    slug, clients = swiss_at_tables(organiser, django_user_model, client_for)
    tables = organiser.get(f"/api/tournaments/{slug}/tables/").json()
    (k1, (a, b)), (k2, (c, d)) = ((t["match_key"], t["players"]) for t in tables)
    # Out of order, not wrong: nothing to confirm or dispute yet is a 409.
    assert (
        post(clients[b], f"/api/tournaments/{slug}/tables/{k1}/confirm/", status=409)["code"]
        == "result/nothing_to_confirm"
    )
    assert (
        post(clients[b], f"/api/tournaments/{slug}/tables/{k1}/dispute/", {"reason": "?"}, status=409)["code"]
        == "result/nothing_to_dispute"
    )
    post(clients[a], f"/api/tournaments/{slug}/tables/{k1}/report/", {"ranks": [1, 2]})
    view = organiser.get(f"/api/tournaments/{slug}/tables/{k1}/").json()
    assert view["status"] == "reported" and view["reports"] == [{"by": a, "ranks": [1, 2], "games": None}]
    assert (
        post(clients[a], f"/api/tournaments/{slug}/tables/{k1}/confirm/", status=422)["code"]
        == "result/cannot_confirm_own"
    )
    # A player of another table is not a participant here.
    assert (
        post(clients[c], f"/api/tournaments/{slug}/tables/{k1}/confirm/", status=422)["code"]
        == "result/not_a_player"
    )
    post(clients[b], f"/api/tournaments/{slug}/tables/{k1}/report/", {"ranks": [1, 2]})  # agreeing: confirmed
    assert organiser.get(f"/api/tournaments/{slug}/tables/{k1}/").json()["result"]["winner"] == a
    post(clients[c], f"/api/tournaments/{slug}/tables/{k2}/report/", {"ranks": [2, 1]})
    confirmed = post(organiser, f"/api/tournaments/{slug}/tables/{k2}/confirm/")
    assert confirmed["payload"] == {"kind": "result_confirmed", "match_key": k2, "by_organiser": True}
    view = organiser.get(f"/api/tournaments/{slug}/tables/{k2}/").json()
    assert view["result"]["winner"] == d and view["events"][-1]["actor"] == "organiser"
    assert organiser.get(f"/api/tournaments/{slug}/tables/nope/").status_code == 404


def test_an_organiser_correction_can_mark_a_forfeit(organiser, django_user_model, client_for):
    slug, _clients = swiss_at_tables(organiser, django_user_model, client_for)
    key, (a, b) = first_table(organiser, slug)
    post(
        organiser,
        f"/api/tournaments/{slug}/tables/{key}/correct/",
        {"ranks": [1, 2], "reason": "no-show", "forfeit": True},
    )
    table = organiser.get(f"/api/tournaments/{slug}/tables/{key}/").json()
    assert table["result"]["forfeit"] is True
    rows = {row["player"]: row for row in organiser.get(f"/api/tournaments/{slug}/standings/").json()}
    assert rows[a]["points"] == 1.0 and rows[b]["points"] == 0.0
    # FIDE tie-breaks treat a forfeit as unplayed: a dummy opponent, not b, stands behind a's Buchholz.
    assert all(term[1] is None for term in rows[a]["explain"]["BH"])


def test_a_dropped_player_forfeits_their_open_table_at_once(organiser, django_user_model, client_for):
    slug, clients = swiss_at_tables(organiser, django_user_model, client_for, players=6)
    key, (a, b) = first_table(organiser, slug)
    post(clients[a], f"/api/tournaments/{slug}/drop/")
    table = organiser.get(f"/api/tournaments/{slug}/tables/{key}/").json()
    assert table["status"] == "decided" and table["result"] == {
        **table["result"],
        "winner": b,
        "forfeit": True,
        "decided_by": "forfeit",
    }
    for t in organiser.get(f"/api/tournaments/{slug}/tables/", {"status": "open"}).json():
        post(
            organiser,
            f"/api/tournaments/{slug}/tables/{t['match_key']}/correct/",
            {"ranks": [1, 2], "reason": "test"},
        )
    post(organiser, f"/api/tournaments/{slug}/next-round/")
    round_two = organiser.get(f"/api/tournaments/{slug}/tables/", {"round": 2}).json()
    assert a not in [p for t in round_two for p in t["players"]]
    call_command("rebuild_tournaments", "--tournament", slug)


def test_a_drop_during_a_snakepit_match_ends_it_and_the_rebuild_records_nothing_missing(
    organiser, django_user_model, client_for, eager_celery, django_capture_on_commit_callbacks
):
    slug = post(
        organiser,
        "/api/tournaments/",
        {"name": "Played", "game": "rat-snake", "format": "swiss", "options": {"passes": 1}},
    )["slug"]
    post(organiser, f"/api/tournaments/{slug}/open/")
    people = {}
    for name in ("ann", "ben", "cat", "dan"):
        client = client_for(django_user_model.objects.create_user(name))
        people[post(client, f"/api/tournaments/{slug}/register/")["player"]] = client
    with django_capture_on_commit_callbacks(execute=True):
        post(organiser, f"/api/tournaments/{slug}/start/")
    key, (a, b) = first_table(organiser, slug)
    link = TournamentMatch.objects.get(tournament__slug=slug, match_key=key)
    assert not link.match.is_finished
    with django_capture_on_commit_callbacks(execute=True):
        post(people[a], f"/api/tournaments/{slug}/drop/")
    link.match.refresh_from_db()
    assert link.match.status == Match.Status.FINISHED  # the dropped seat forfeited it
    table = organiser.get(f"/api/tournaments/{slug}/tables/{key}/").json()
    assert table["result"]["winner"] == b and table["result"]["forfeit"]
    assert not TournamentEvent.objects.filter(tournament__slug=slug, kind="game_recorded").exists()
    call_command(
        "rebuild_tournaments", "--tournament", slug, "--record-missing"
    )  # no traceback, nothing differs


def test_an_elimination_forfeit_for_a_dropped_player_starts_no_match(
    organiser, eager_celery, django_capture_on_commit_callbacks
):
    slug = post(
        organiser,
        "/api/tournaments/",
        {"name": "Cup", "game": "rat-snake", "format": "single_elimination", "options": {"passes": 1}},
    )["slug"]
    post(organiser, f"/api/tournaments/{slug}/open/")
    for bot in ("heuristic", "random", "heuristic", "random"):
        post(organiser, f"/api/tournaments/{slug}/register/", {"bot": bot})
    with django_capture_on_commit_callbacks(execute=True):
        post(organiser, f"/api/tournaments/{slug}/start/")
    winners = [t["result"]["winner"] for t in organiser.get(f"/api/tournaments/{slug}/tables/").json()]
    assert all(winners)
    post(organiser, f"/api/tournaments/{slug}/drop/", {"player": winners[0]})
    with django_capture_on_commit_callbacks(execute=True):
        post(organiser, f"/api/tournaments/{slug}/next-round/")
    final = organiser.get(f"/api/tournaments/{slug}/tables/", {"round": 2}).json()[0]
    assert final["status"] == "decided" and final["result"]["forfeit"] and final["matches"] == []
    assert not TournamentMatch.objects.filter(tournament__slug=slug, match_key=final["match_key"]).exists()
    with django_capture_on_commit_callbacks(execute=True):
        post(organiser, f"/api/tournaments/{slug}/next-round/")
    assert organiser.get(f"/api/tournaments/{slug}/").json()["status"] == "finished"
    call_command("rebuild_tournaments", "--tournament", slug, "--record-missing")


def test_a_drop_at_a_pod_forfeits_the_players_seat_in_its_running_game(
    organiser, django_user_model, client_for, eager_celery, django_capture_on_commit_callbacks
):
    slug = post(
        organiser,
        "/api/tournaments/",
        {
            "name": "Ring",
            "game": "rat-snake",
            "format": "pods",
            "seats_per_match": 3,
            "options": {"passes": 1},
            "config": {"rounds": 1, "final_pod": False},
        },
    )["slug"]
    post(organiser, f"/api/tournaments/{slug}/open/")
    people = {}
    for name in ("pa", "pb", "pc"):
        client = client_for(django_user_model.objects.create_user(name))
        people[post(client, f"/api/tournaments/{slug}/register/")["player"]] = client
    with django_capture_on_commit_callbacks(execute=True):
        post(organiser, f"/api/tournaments/{slug}/start/")
    key, players = first_table(organiser, slug)
    link = TournamentMatch.objects.get(tournament__slug=slug, match_key=key)
    leaver = players[1]
    with django_capture_on_commit_callbacks(execute=True):
        post(people[leaver], f"/api/tournaments/{slug}/drop/")
    forfeits = list(link.match.events.filter(kind="forfeit"))
    assert [event.seat for event in forfeits] == [1]
    # Rat-Snake ends the game at a forfeit (another game may play on without the seat); the leaver
    # ranks last, and the game's result decides the pod.
    link.match.refresh_from_db()
    assert link.match.is_finished
    table = organiser.get(f"/api/tournaments/{slug}/tables/{key}/").json()
    ranks = dict(zip(table["players"], table["result"]["ranks"]))
    assert table["result"]["decided_by"] == "games" and ranks[leaver] == max(ranks.values())
    call_command("rebuild_tournaments", "--tournament", slug, "--record-missing")
