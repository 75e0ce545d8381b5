"""Rounds that wait for the organiser: with `rounds_start` "on_organiser" a Snakepit tournament's
paired round creates no match until the organiser starts it, so it can be re-paired (with a
reason) in between, as an arbiter publishes pairings, fixes them, then starts the round. Also what
a drop at an open pod table does, played at tables and before a held round starts."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.conf import settings
from django.core.management import call_command
from django.utils import timezone

from tournaments import services, tasks
from tournaments.models import TournamentEvent, TournamentMatch

pytestmark = pytest.mark.django_db


@pytest.fixture
def organiser(django_user_model, client_for):
    return client_for(django_user_model.objects.create_user("organiser"))


def post(client, path, body=None, status=(200, 201)):
    response = client.post(path, body or {}, format="json")
    expected = status if isinstance(status, tuple) else (status,)
    assert response.status_code in expected, (path, response.status_code, response.content[:400])
    return response.json() if response.content else None


def tournament_with(organiser, django_user_model, client_for, names, **body):
    body = {
        "name": "Held",
        "game": "rat-snake",
        "format": "swiss",
        "options": {"passes": 1},
        "seeding": "manual",
        **body,
    }
    slug = post(organiser, "/api/tournaments/", body)["slug"]
    post(organiser, f"/api/tournaments/{slug}/open/")
    clients = {}
    for name in names:
        client = client_for(django_user_model.objects.create_user(name))
        clients[post(client, f"/api/tournaments/{slug}/register/")["player"]] = client
    return slug, clients


def usernames(organiser, slug):
    return {e["player"]: e["user"] for e in organiser.get(f"/api/tournaments/{slug}/entries/").json()}


def matches_of(slug):
    return list(
        TournamentMatch.objects.filter(tournament__slug=slug).select_related("match").order_by("match_key")
    )


def test_a_held_round_is_re_paired_then_started_by_the_organiser(
    organiser, django_user_model, client_for, eager_celery, django_capture_on_commit_callbacks
):
    slug, clients = tournament_with(
        organiser, django_user_model, client_for, ["h1", "h2", "h3", "h4"], rounds_start="on_organiser"
    )
    assert organiser.get(f"/api/tournaments/{slug}/").json()["rounds_start"] == "on_organiser"
    with django_capture_on_commit_callbacks(execute=True):
        post(organiser, f"/api/tournaments/{slug}/start/")
    tables = organiser.get(f"/api/tournaments/{slug}/tables/").json()
    assert len(tables) == 2 and all(t["matches"] == [] and t["status"] == "open" for t in tables)
    assert matches_of(slug) == []  # paired, not started
    assert [r["started_at"] for r in organiser.get(f"/api/tournaments/{slug}/rounds/").json()] == [None]

    names = usernames(organiser, slug)
    (a, b), (c, d) = (t["players"] for t in tables)
    swapped = {"tables": [[names[a], names[c]], [names[b], names[d]]], "reason": "club mates at table 1"}
    player = next(iter(clients.values()))
    assert (
        post(player, f"/api/tournaments/{slug}/rounds/1/repair/", swapped, status=403)["code"]
        == "tournament/not_organiser"
    )
    assert (
        post(player, f"/api/tournaments/{slug}/rounds/1/start/", status=403)["code"]
        == "tournament/not_organiser"
    )
    event = post(organiser, f"/api/tournaments/{slug}/rounds/1/repair/", swapped, status=201)
    assert event["kind"] == "round_repaired" and event["payload"]["reason"] == "club mates at table 1"
    assert (
        post(organiser, f"/api/tournaments/{slug}/rounds/2/start/", status=409)["code"] == "round/not_latest"
    )

    with django_capture_on_commit_callbacks(execute=True):
        started = post(organiser, f"/api/tournaments/{slug}/rounds/1/start/")
    assert sorted(started["started"]) == sorted(t["match_key"] for t in tables)
    links = matches_of(slug)
    by_key = {link.match_key: link for link in links}
    # The matches seat the repaired tables, in their order.
    for key, (first, second) in zip([t["match_key"] for t in tables], [(a, c), (b, d)]):
        seats = [seat.user.username for seat in by_key[key].match.seats.order_by("index")]
        assert seats == [names[first], names[second]]
    started_event = TournamentEvent.objects.get(tournament__slug=slug, kind="round_started")
    assert (
        started_event.payload == {"kind": "round_started", "round": 1}
        and started_event.actor.username == "organiser"
    )
    (listed,) = organiser.get(f"/api/tournaments/{slug}/rounds/").json()
    assert datetime.fromisoformat(listed["started_at"]) == started_event.created_at

    before = TournamentEvent.objects.filter(tournament__slug=slug).count()
    refused = post(organiser, f"/api/tournaments/{slug}/rounds/1/repair/", swapped, status=409)
    assert refused["code"] == "round/already_started"
    assert (
        post(organiser, f"/api/tournaments/{slug}/rounds/1/start/", status=409)["code"]
        == "round/already_started"
    )
    assert TournamentEvent.objects.filter(tournament__slug=slug).count() == before
    assert len(matches_of(slug)) == len(links)
    call_command("rebuild_tournaments", "--tournament", slug, "--record-missing")


def test_rounds_that_start_at_once_can_be_neither_held_nor_re_paired(
    organiser, django_user_model, client_for, eager_celery, django_capture_on_commit_callbacks
):
    slug, _ = tournament_with(organiser, django_user_model, client_for, ["n1", "n2", "n3", "n4"])
    assert organiser.get(f"/api/tournaments/{slug}/").json()["rounds_start"] == "at_once"
    with django_capture_on_commit_callbacks(execute=True):
        post(organiser, f"/api/tournaments/{slug}/start/")
    assert len(matches_of(slug)) == 2  # started as paired
    assert all("started_at" not in r for r in organiser.get(f"/api/tournaments/{slug}/rounds/").json())
    assert (
        post(organiser, f"/api/tournaments/{slug}/rounds/1/start/", status=409)["code"]
        == "round/starts_when_paired"
    )
    names = usernames(organiser, slug)
    tables = organiser.get(f"/api/tournaments/{slug}/tables/").json()
    (a, b), (c, d) = (t["players"] for t in tables)
    swapped = {"tables": [[names[a], names[c]], [names[b], names[d]]], "reason": "too late"}
    assert (
        post(organiser, f"/api/tournaments/{slug}/rounds/1/repair/", swapped, status=409)["code"]
        == "round/already_started"
    )


def test_rounds_start_is_validated_and_configurable_on_a_draft(organiser):
    refused = organiser.post(
        "/api/tournaments/",
        {"name": "X", "game": "rat-snake", "format": "swiss", "rounds_start": "later"},
        format="json",
    )
    assert refused.status_code == 400
    slug = post(organiser, "/api/tournaments/", {"name": "X", "game": "rat-snake", "format": "swiss"})["slug"]
    changed = organiser.patch(f"/api/tournaments/{slug}/", {"rounds_start": "on_organiser"}, format="json")
    assert changed.status_code == 200 and changed.json()["rounds_start"] == "on_organiser"
    post(organiser, f"/api/tournaments/{slug}/open/")
    late = organiser.patch(f"/api/tournaments/{slug}/", {"rounds_start": "at_once"}, format="json")
    assert late.status_code == 409 and late.json()["code"] == "tournament/wrong_status"


def test_a_round_at_tables_has_no_start_to_give(organiser, django_user_model, client_for):
    slug, _ = tournament_with(organiser, django_user_model, client_for, ["t1", "t2"], result_mode="table")
    post(organiser, f"/api/tournaments/{slug}/start/")
    assert (
        post(organiser, f"/api/tournaments/{slug}/rounds/1/start/", status=409)["code"]
        == "round/starts_when_paired"
    )


def pods(organiser, django_user_model, client_for, names, **body):
    body = {"format": "pods", "seats_per_match": 3, "config": {"rounds": 1, "final_pod": False}, **body}
    return tournament_with(organiser, django_user_model, client_for, names, **body)


def test_a_player_who_dropped_before_a_held_pod_round_starts_forfeits_their_seat_at_once(
    organiser, django_user_model, client_for, eager_celery, django_capture_on_commit_callbacks
):
    slug, clients = pods(
        organiser, django_user_model, client_for, ["pa", "pb", "pc"], rounds_start="on_organiser"
    )
    with django_capture_on_commit_callbacks(execute=True):
        post(organiser, f"/api/tournaments/{slug}/start/")
    table = organiser.get(f"/api/tournaments/{slug}/tables/").json()[0]
    leaver = table["players"][1]
    with django_capture_on_commit_callbacks(execute=True):
        post(clients[leaver], f"/api/tournaments/{slug}/drop/")
    assert organiser.get(f"/api/tournaments/{slug}/tables/{table['match_key']}/").json()["status"] == "open"
    with django_capture_on_commit_callbacks(execute=True):
        post(organiser, f"/api/tournaments/{slug}/rounds/1/start/")
    (link,) = matches_of(slug)
    assert [event.seat for event in link.match.events.filter(kind="forfeit")] == [1]
    decided = organiser.get(f"/api/tournaments/{slug}/tables/{table['match_key']}/").json()
    assert decided["status"] == "decided"
    ranks = dict(zip(decided["players"], decided["result"]["ranks"]))
    assert ranks[leaver] == max(ranks.values())
    call_command("rebuild_tournaments", "--tournament", slug, "--record-missing")


def test_the_others_close_an_open_pod_table_after_a_player_drops(organiser, django_user_model, client_for):
    slug, clients = pods(
        organiser,
        django_user_model,
        client_for,
        ["qa", "qb", "qc", "qd"],
        result_mode="table",
        seats_per_match=4,
    )
    post(organiser, f"/api/tournaments/{slug}/start/")
    table = organiser.get(f"/api/tournaments/{slug}/tables/").json()[0]
    base = f"/api/tournaments/{slug}/tables/{table['match_key']}"
    first, leaver, third, _fourth = table["players"]
    post(clients[leaver], f"/api/tournaments/{slug}/drop/")
    assert organiser.get(f"{base}/").json()["status"] == "open"  # a pod is not decided by one drop
    # The players still there report and confirm the game; the leaver's word is not needed.
    post(clients[first], f"{base}/report/", {"ranks": [2, 4, 1, 3]})
    assert organiser.get(f"{base}/").json()["status"] == "reported"
    post(clients[third], f"{base}/confirm/")
    view = organiser.get(f"{base}/").json()
    assert view["status"] == "decided" and [r["by"] for r in view["reports"]][:1] == [first]
    assert dict(zip(view["players"], view["result"]["ranks"]))[leaver] == 4
    # The leaver keeps the place the table gave them in the standings.
    standings = organiser.get(f"/api/tournaments/{slug}/standings/").json()
    assert {row["player"] for row in standings} == set(view["players"])
    call_command("rebuild_tournaments", "--tournament", slug)


def test_a_held_round_starts_by_itself_at_its_scheduled_time(
    organiser, django_user_model, client_for, eager_celery, django_capture_on_commit_callbacks
):
    slug, _ = tournament_with(
        organiser, django_user_model, client_for, ["s1", "s2", "s3", "s4"], rounds_start="on_organiser"
    )
    starts_at = timezone.now() + timedelta(minutes=10)
    times = {"starts_at": starts_at.isoformat(), "ends_at": (starts_at - timedelta(minutes=1)).isoformat()}
    assert post(organiser, f"/api/tournaments/{slug}/start/", times, status=422)["code"] == "round/bad_times"
    with django_capture_on_commit_callbacks(execute=True):
        post(organiser, f"/api/tournaments/{slug}/start/", {"starts_at": starts_at.isoformat()})
    paired = TournamentEvent.objects.get(tournament__slug=slug, kind="round_paired").payload
    assert datetime.fromisoformat(paired["starts_at"]) == starts_at
    assert tasks.tournaments_start_due_rounds() == 0 and matches_of(slug) == []  # not yet: still re-pairable
    with django_capture_on_commit_callbacks(execute=True):
        assert services.tournament_rounds_start_due(now=starts_at) == 1
    assert len(matches_of(slug)) == 2
    started = TournamentEvent.objects.get(tournament__slug=slug, kind="round_started")
    assert started.actor is None and started.payload["round"] == 1
    assert services.tournament_rounds_start_due(now=starts_at + timedelta(hours=1)) == 0  # once only
    assert len(matches_of(slug)) == 2
    # Beat runs the sweep every minute.
    entry = settings.CELERY_BEAT_SCHEDULE["tournaments-start-due-rounds"]
    assert entry["task"] == tasks.tournaments_start_due_rounds.name and entry["schedule"] <= 60


def test_a_scheduled_start_needs_a_held_round(organiser, django_user_model, client_for):
    slug, _ = tournament_with(organiser, django_user_model, client_for, ["u1", "u2"])
    refused = post(
        organiser, f"/api/tournaments/{slug}/start/", {"starts_at": timezone.now().isoformat()}, status=422
    )
    assert refused["code"] == "round/not_held"
    assert organiser.get(f"/api/tournaments/{slug}/").json()["status"] == "registration"  # nothing written
