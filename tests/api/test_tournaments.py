"""Tournaments through the API, as an organiser and players run them: the issue's three end-to-end
events, results at tables with disputes and corrections, out-of-order actions, exports, rebuild."""

from __future__ import annotations

import csv
import io
import math

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import DatabaseError, transaction

from tournaments.models import Tournament, TournamentEvent, TournamentStanding

pytestmark = pytest.mark.django_db


@pytest.fixture
def organiser(django_user_model, client_for):
    user = django_user_model.objects.create_user("organiser")
    return client_for(user)


def create(client, **body):
    response = client.post("/api/tournaments/", body, format="json")
    assert response.status_code == 201, response.json()
    slug = response.json()["slug"]
    assert client.post(f"/api/tournaments/{slug}/open/").status_code == 200
    return slug


def post(client, path, body=None, status=(200, 201), capture=None):
    if capture is not None:
        with capture(execute=True):
            response = client.post(path, body or {}, format="json")
    else:
        response = client.post(path, body or {}, format="json")
    assert response.status_code in status, (path, response.json())
    return response


def run_on_snakepit(client, slug, capture, max_rounds=40):
    """Start, then pair round after round while the bots' matches finish, until the end."""
    post(client, f"/api/tournaments/{slug}/start/", capture=capture)
    for _ in range(max_rounds):
        if client.get(f"/api/tournaments/{slug}/").json()["status"] == "finished":
            return
        post(client, f"/api/tournaments/{slug}/next-round/", capture=capture)
    raise AssertionError(f"{slug} did not finish in {max_rounds} rounds")


def tables(client, slug, **query):
    return client.get(f"/api/tournaments/{slug}/tables/", query).json()


def assert_rebuild_equals_live(slug):
    call_command("rebuild_tournaments", "--tournament", slug)


def test_a_seven_player_swiss_of_rat_snake_duels_played_by_bots_on_snakepit(
    organiser, eager_celery, django_capture_on_commit_callbacks, django_assert_max_num_queries
):
    slug = create(organiser, name="Swiss Seven", game="rat-snake", format="swiss", options={"passes": 1})
    for number in range(7):
        post(organiser, f"/api/tournaments/{slug}/register/", {"bot": ("heuristic", "random")[number % 2]})
    run_on_snakepit(organiser, slug, django_capture_on_commit_callbacks)
    with django_assert_max_num_queries(4):  # the tournament, its tables, their matches: not a query per table
        played = tables(organiser, slug)
    assert len(played) >= 9
    rounds = max(table["round"] for table in played)
    assert rounds == math.ceil(math.log2(7))
    assert all(table["status"] not in {"open", "reported", "disputed"} for table in played)
    assert all(table["matches"] for table in played if len(table["players"]) == 2)
    pairs = [frozenset(table["players"]) for table in played if len(table["players"]) == 2]
    assert len(pairs) == len(set(pairs)), "no rematches"
    standings = organiser.get(f"/api/tournaments/{slug}/standings/").json()
    assert sorted(row["player"] for row in standings) == sorted(f"b{n}" for n in range(1, 8))
    assert [row["rank"] for row in standings] == sorted(row["rank"] for row in standings)
    assert all("tiebreaks" in row for row in standings)
    assert_rebuild_equals_live(slug)


def test_a_sixteen_player_double_elimination_reported_from_tables(organiser, client_for, django_user_model):
    slug = create(
        organiser,
        name="Double Sixteen",
        game="rat-snake",
        format="double_elimination",
        result_mode="table",
        seeding="manual",
    )
    players = {}
    for number in range(1, 17):
        user = django_user_model.objects.create_user(f"p{number}")
        client = client_for(user)
        entry = post(client, f"/api/tournaments/{slug}/register/").json()
        players[entry["player"]] = client
    post(organiser, f"/api/tournaments/{slug}/start/")
    disputed = corrected = False
    for _ in range(60):
        if organiser.get(f"/api/tournaments/{slug}/").json()["status"] == "finished":
            break
        for table in tables(organiser, slug, status="open"):
            key, (first, second) = table["match_key"], table["players"]
            ranks = [1, 2] if first < second else [2, 1]
            post(players[first], f"/api/tournaments/{slug}/tables/{key}/report/", {"ranks": ranks})
            if not disputed:
                post(
                    players[second],
                    f"/api/tournaments/{slug}/tables/{key}/dispute/",
                    {"reason": "we played it the other way"},
                )
                post(
                    organiser,
                    f"/api/tournaments/{slug}/tables/{key}/correct/",
                    {"ranks": ranks[::-1], "reason": "table judge"},
                )
                disputed = corrected = True
            else:
                post(players[second], f"/api/tournaments/{slug}/tables/{key}/confirm/")
        post(organiser, f"/api/tournaments/{slug}/next-round/")
    assert organiser.get(f"/api/tournaments/{slug}/").json()["status"] == "finished"
    assert disputed and corrected
    bracket = organiser.get(f"/api/tournaments/{slug}/bracket/").json()
    assert bracket["champion"] in players
    assert {"winners", "losers"} <= {match["bracket"] for match in bracket["matches"]}
    standings = organiser.get(f"/api/tournaments/{slug}/standings/").json()
    assert standings[0]["player"] == bracket["champion"] and len(standings) == 16
    kinds = set(TournamentEvent.objects.filter(tournament__slug=slug).values_list("kind", flat=True))
    assert {"result_reported", "result_confirmed", "result_disputed", "result_corrected"} <= kinds
    assert_rebuild_equals_live(slug)


def test_a_twelve_player_pod_tournament_of_rat_snake_rings_of_four(
    organiser, eager_celery, django_capture_on_commit_callbacks
):
    slug = create(
        organiser,
        name="Pods Twelve",
        game="rat-snake",
        format="pods",
        seats_per_match=4,
        options={"passes": 1},
        config={"rounds": 2, "final_pod": True},
    )
    for number in range(12):
        post(organiser, f"/api/tournaments/{slug}/register/", {"bot": ("heuristic", "random")[number % 2]})
    run_on_snakepit(organiser, slug, django_capture_on_commit_callbacks)
    played = tables(organiser, slug)
    first_round = [table for table in played if table["round"] == 1]
    assert len(first_round) == 3 and all(len(table["players"]) == 4 for table in first_round)
    standings = organiser.get(f"/api/tournaments/{slug}/standings/").json()
    assert len(standings) == 12 and standings[0]["rank"] == 1
    assert_rebuild_equals_live(slug)


def test_out_of_order_actions_are_409s_that_change_nothing(organiser, client_for, django_user_model):
    slug = create(organiser, name="Order", game="rat-snake", format="swiss", result_mode="table")
    clients = {}
    for name in ("ann", "ben", "cal", "dee"):
        client = client_for(django_user_model.objects.create_user(name))
        clients[post(client, f"/api/tournaments/{slug}/register/").json()["player"]] = client
    refused = organiser.post(f"/api/tournaments/{slug}/next-round/", format="json")
    assert (refused.status_code, refused.json()["code"]) == (409, "tournament/wrong_status")
    post(organiser, f"/api/tournaments/{slug}/start/")
    count = TournamentEvent.objects.filter(tournament__slug=slug).count()
    refused = organiser.post(f"/api/tournaments/{slug}/next-round/", format="json")
    assert (refused.status_code, refused.json()["code"]) == (409, "round/not_complete")
    table = tables(organiser, slug)[0]
    first, second = table["players"]
    post(clients[first], f"/api/tournaments/{slug}/tables/{table['match_key']}/report/", {"ranks": [1, 2]})
    own = clients[first].post(
        f"/api/tournaments/{slug}/tables/{table['match_key']}/confirm/", {}, format="json"
    )
    assert (own.status_code, own.json()["code"]) == (422, "result/cannot_confirm_own")
    post(clients[second], f"/api/tournaments/{slug}/tables/{table['match_key']}/confirm/")
    count = TournamentEvent.objects.filter(tournament__slug=slug).count()
    twice = clients[first].post(
        f"/api/tournaments/{slug}/tables/{table['match_key']}/report/", {"ranks": [1, 2]}, format="json"
    )
    assert (twice.status_code, twice.json()["code"]) == (409, "result/already_recorded")
    assert TournamentEvent.objects.filter(tournament__slug=slug).count() == count
    stranger = client_for(django_user_model.objects.create_user("zed"))
    forbidden = stranger.post(f"/api/tournaments/{slug}/next-round/", format="json")
    assert (forbidden.status_code, forbidden.json()["code"]) == (403, "tournament/not_organiser")


def test_registration_rules_caps_check_in_and_drops(organiser, client_for, django_user_model):
    slug = create(
        organiser,
        name="Capped",
        game="rat-snake",
        format="round_robin",
        registration_cap=2,
        check_in_required=True,
    )
    ann, ben, cal = (
        client_for(django_user_model.objects.create_user(name)) for name in ("ann", "ben", "cal")
    )
    post(ann, f"/api/tournaments/{slug}/register/")
    again = ann.post(f"/api/tournaments/{slug}/register/", {}, format="json")
    assert (again.status_code, again.json()["code"]) == (409, "player/already_registered")
    post(ben, f"/api/tournaments/{slug}/register/")
    full = cal.post(f"/api/tournaments/{slug}/register/", {}, format="json")
    assert (full.status_code, full.json()["code"]) == (409, "tournament/full")
    post(ben, f"/api/tournaments/{slug}/drop/")
    post(cal, f"/api/tournaments/{slug}/register/")
    post(ann, f"/api/tournaments/{slug}/check-in/")
    post(cal, f"/api/tournaments/{slug}/check-in/")
    statuses = {
        row["user"]: row["status"] for row in organiser.get(f"/api/tournaments/{slug}/entries/").json()
    }
    assert statuses == {"ann": "checked_in", "ben": "dropped", "cal": "checked_in"}
    deck = ann.post(f"/api/tournaments/{slug}/register/", {"deck": "abcdefgh"}, format="json")
    assert deck.status_code in (409, 422)


def test_standings_export_as_csv_with_a_column_per_tiebreak(organiser, client_for, django_user_model):
    slug = create(organiser, name="League", game="rat-snake", format="round_robin", result_mode="table")
    clients = {}
    for name in ("ann", "ben", "cal"):
        client = client_for(django_user_model.objects.create_user(name))
        clients[post(client, f"/api/tournaments/{slug}/register/").json()["player"]] = client
    post(organiser, f"/api/tournaments/{slug}/start/")
    for _ in range(10):
        if organiser.get(f"/api/tournaments/{slug}/").json()["status"] == "finished":
            break
        for table in tables(organiser, slug, status="open"):
            first, second = table["players"]
            post(
                clients[first],
                f"/api/tournaments/{slug}/tables/{table['match_key']}/report/",
                {"ranks": [1, 2]},
            )
            post(clients[second], f"/api/tournaments/{slug}/tables/{table['match_key']}/confirm/")
        post(organiser, f"/api/tournaments/{slug}/next-round/")
    response = organiser.get(f"/api/tournaments/{slug}/standings/csv/")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0][:4] == ["rank", "player", "name", "points"] and len(rows) == 4
    assert {row[2] for row in rows[1:]} == {"ann", "ben", "cal"}


def test_the_log_is_append_only_and_a_forged_projection_is_caught(organiser, client_for, django_user_model):
    slug = create(organiser, name="Sealed", game="rat-snake", format="swiss", result_mode="table")
    for name in ("ann", "ben"):
        post(client_for(django_user_model.objects.create_user(name)), f"/api/tournaments/{slug}/register/")
    post(organiser, f"/api/tournaments/{slug}/start/")
    tournament = Tournament.objects.get(slug=slug)
    with pytest.raises(DatabaseError), transaction.atomic():
        TournamentEvent.objects.filter(tournament=tournament).update(payload={})
    with pytest.raises(DatabaseError), transaction.atomic():
        TournamentEvent.objects.filter(tournament=tournament).delete()
    assert_rebuild_equals_live(slug)
    TournamentStanding.objects.filter(tournament=tournament).update(rank=99)
    with pytest.raises(CommandError):
        call_command("rebuild_tournaments", "--tournament", slug)


def test_formats_are_described_for_clients(client_for, db):
    described = client_for().get("/api/tournament-formats/").json()
    assert {
        "round_robin",
        "single_elimination",
        "double_elimination",
        "swiss",
        "pods",
        "groups_playoffs",
    } <= set(described)


def test_a_draft_is_configured_then_only_its_registration_rules_may_change(
    organiser, client_for, django_user_model
):
    created = organiser.post(
        "/api/tournaments/", {"name": "Draft", "game": "rat-snake", "format": "swiss"}, format="json"
    ).json()
    slug = created["slug"]
    changed = organiser.patch(
        f"/api/tournaments/{slug}/", {"config": {"rounds": 2}, "options": {"passes": 1}}, format="json"
    )
    assert (
        changed.status_code == 200
        and changed.json()["config"]["rounds"] == 2
        and changed.json()["options"]["passes"] == 1
    )
    bad = organiser.patch(f"/api/tournaments/{slug}/", {"seats_per_match": 12}, format="json")
    assert (bad.status_code, bad.json()["code"]) == (422, "seats/invalid_count")
    stranger = client_for(django_user_model.objects.create_user("nosy"))
    assert stranger.patch(f"/api/tournaments/{slug}/", {"name": "Mine"}, format="json").status_code == 403
    post(organiser, f"/api/tournaments/{slug}/open/")
    late = organiser.patch(f"/api/tournaments/{slug}/", {"config": {"rounds": 5}}, format="json")
    assert (late.status_code, late.json()["code"]) == (409, "tournament/wrong_status")
    assert (
        organiser.patch(f"/api/tournaments/{slug}/", {"registration_cap": 8}, format="json").status_code
        == 200
    )


def test_a_lost_recording_task_is_caught_by_the_rebuild_and_recorded_once(
    organiser, eager_celery, django_capture_on_commit_callbacks, monkeypatch
):
    from tournaments import tasks

    slug = create(organiser, name="Lost", game="rat-snake", format="swiss", options={"passes": 1})
    for bot in ("heuristic", "random"):
        post(organiser, f"/api/tournaments/{slug}/register/", {"bot": bot})
    monkeypatch.setattr(tasks.tournament_record_match, "delay", lambda match_id: None)  # the broker lost it
    post(organiser, f"/api/tournaments/{slug}/start/", capture=django_capture_on_commit_callbacks)
    with pytest.raises(CommandError):
        call_command("rebuild_tournaments", "--tournament", slug)
    assert tasks.tournaments_record_missing() == 1  # beat's sweep finds and records it
    call_command("rebuild_tournaments", "--tournament", slug, "--record-missing")
    call_command("rebuild_tournaments", "--tournament", slug, "--record-missing")
    assert TournamentEvent.objects.filter(tournament__slug=slug, kind="game_recorded").count() == 1


def test_reads_and_results_never_replay_the_log_and_bad_input_writes_nothing(
    organiser, client_for, django_user_model, django_capture_on_commit_callbacks, monkeypatch
):
    """The API serves standings and tables from their projections and the summary and bracket from
    the current state; a report, a confirmation and the reads after them go without replaying the
    log, whether this process has the state cached or rebuilds it from a snapshot."""
    from tournaments import selectors
    from tournaments.formats import lifecycle

    slug = create(
        organiser,
        name="No Replay",
        game="rat-snake",
        format="single_elimination",
        result_mode="table",
        seeding="manual",
    )
    clients = {}
    for name in ("ann", "ben", "cal", "dee"):
        client = client_for(django_user_model.objects.create_user(name))
        clients[post(client, f"/api/tournaments/{slug}/register/").json()["player"]] = client
    post(organiser, f"/api/tournaments/{slug}/start/", capture=django_capture_on_commit_callbacks)

    def replayed(*args, **kwargs):
        raise AssertionError("the whole log was replayed")

    monkeypatch.setattr(lifecycle, "replay", replayed)
    monkeypatch.setattr(selectors, "tournament_state", replayed)
    table = tables(organiser, slug)[0]
    first, second = table["players"]
    events = TournamentEvent.objects.filter(tournament__slug=slug).count()
    standings = organiser.get(f"/api/tournaments/{slug}/standings/").json()
    for body in ({"ranks": [1]}, {"ranks": [0, 1]}, {"ranks": [1, 1]}, {"ranks": "first"}):
        refused = clients[first].post(
            f"/api/tournaments/{slug}/tables/{table['match_key']}/report/", body, format="json"
        )
        assert 400 <= refused.status_code < 500 and {"code", "detail"} <= set(refused.json()), refused.json()
    assert TournamentEvent.objects.filter(tournament__slug=slug).count() == events
    assert tables(organiser, slug)[0] == table
    post(
        clients[first],
        f"/api/tournaments/{slug}/tables/{table['match_key']}/report/",
        {"ranks": [2, 1]},
        capture=django_capture_on_commit_callbacks,
    )
    selectors.tournament_heads_forget()  # the next action starts from the snapshot taken at the pairing
    post(
        clients[second],
        f"/api/tournaments/{slug}/tables/{table['match_key']}/confirm/",
        capture=django_capture_on_commit_callbacks,
    )
    detail = organiser.get(f"/api/tournaments/{slug}/").json()
    reducer_events = TournamentEvent.objects.filter(tournament__slug=slug).exclude(
        kind__in=selectors.SERVICE_KINDS
    )
    assert detail["summary"]["events"] == reducer_events.count() and detail["summary"]["pending"] == 1
    bracket = organiser.get(f"/api/tournaments/{slug}/bracket/").json()
    assert [m["winner"] for m in bracket["matches"] if m["match_key"] == table["match_key"]] == [second]
    assert organiser.get(f"/api/tournaments/{slug}/standings/").json() != standings
    monkeypatch.undo()
    assert_rebuild_equals_live(slug)


def test_the_tournament_listing_reads_no_row_per_tournament(
    organiser, client_for, django_capture_on_commit_callbacks
):
    """Four tournaments cost the queries one does, and each listed summary is the one it shows alone."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def listing(**query) -> tuple[int, list[dict]]:
        with django_capture_on_commit_callbacks(execute=True):  # the heads cached, as on a busy server
            client_for().get("/api/tournaments/", query)
        with CaptureQueriesContext(connection) as queries:
            listed = client_for().get("/api/tournaments/", query)
        assert listed.status_code == 200
        return len(queries.captured_queries), listed.json()["results"]

    create(organiser, name="Only", game="rat-snake", format="swiss")
    one, _ = listing()
    for number in range(3):
        create(organiser, name=f"More {number}", game="rat-snake", format="swiss")
    four, rows = listing()
    assert four == one and len(rows) == 4
    for row in rows:
        alone = client_for().get(f"/api/tournaments/{row['slug']}/").json()
        assert (row["summary"], row["organiser"]) == (alone["summary"], "organiser")
    assert len(listing(organiser="organiser")[1]) == 4


@pytest.mark.parametrize("route", ["drop", "check-in"])
def test_a_body_naming_another_person_is_refused_unless_the_caller_organises(
    route, organiser, client_for, django_user_model
):
    # Bob's drop naming alice once dropped bob (200): the name was a field the endpoint ignored.
    slug = create(
        organiser, name=f"Named {route}", game="rat-snake", format="round_robin", check_in_required=True
    )
    alice, bob = (client_for(django_user_model.objects.create_user(name)) for name in ("alice", "bob"))
    post(alice, f"/api/tournaments/{slug}/register/")
    post(bob, f"/api/tournaments/{slug}/register/")
    alice_player = next(
        row["player"]
        for row in organiser.get(f"/api/tournaments/{slug}/entries/").json()
        if row["user"] == "alice"
    )

    def statuses():
        return {
            row["user"]: row["status"] for row in organiser.get(f"/api/tournaments/{slug}/entries/").json()
        }

    before = statuses()
    for body in ({"username": "alice"}, {"player": alice_player}):
        refused = bob.post(f"/api/tournaments/{slug}/{route}/", body, format="json")
        assert refused.status_code == 403, refused.json()
        assert statuses() == before  # nobody's entry moved: not alice's, not bob's
    unknown = bob.post(f"/api/tournaments/{slug}/{route}/", {"username": "nobody"}, format="json")
    assert (unknown.status_code, unknown.json()["code"]) == (404, "player/not_found")
    clash = organiser.post(
        f"/api/tournaments/{slug}/{route}/", {"username": "bob", "player": alice_player}, format="json"
    )
    assert clash.status_code == 400 and statuses() == before
    post(bob, f"/api/tournaments/{slug}/{route}/", {"username": "bob"})  # naming oneself is acting as oneself
    post(
        organiser, f"/api/tournaments/{slug}/{route}/", {"username": "alice"}
    )  # an organiser acts for anyone
    after = statuses()
    changed = "dropped" if route == "drop" else "checked_in"
    assert after["alice"] == changed and after["bob"] == changed
