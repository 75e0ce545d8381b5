"""Exports: pairings CSV, a Swiss in FIDE's TRF16, and the whole log as JSON that an import here
replays to the same standings."""

from __future__ import annotations

import csv
import io
import random
from datetime import UTC, timedelta
from unittest import mock

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import timezone

from tournaments.models import TournamentEvent

pytestmark = pytest.mark.django_db


@pytest.fixture
def organiser(django_user_model, client_for):
    return client_for(django_user_model.objects.create_user("organiser"))


def post(client, path, body=None, status=(200, 201)):
    response = client.post(path, body or {}, format="json")
    assert response.status_code in status, (path, response.status_code, response.content[:300])
    return response.json()


def played_swiss(organiser, django_user_model, client_for, players=7, rounds=3, drop_after=None):
    slug = post(
        organiser,
        "/api/tournaments/",
        {
            "name": "Exported",
            "game": "rat-snake",
            "format": "swiss",
            "result_mode": "table",
            "seeding": "registration",
        },
    )["slug"]
    post(organiser, f"/api/tournaments/{slug}/open/")
    for number in range(players):
        post(
            client_for(django_user_model.objects.create_user(f"x{number}")),
            f"/api/tournaments/{slug}/register/",
        )
    post(organiser, f"/api/tournaments/{slug}/start/")
    rng = random.Random(7)
    for round_number in range(1, rounds + 1):
        for table in organiser.get(f"/api/tournaments/{slug}/tables/", {"status": "open"}).json():
            ranks = rng.choice([[1, 2], [2, 1], [1, 1]])
            forfeit = round_number == 2 and table["match_key"].endswith("T1")
            post(
                organiser,
                f"/api/tournaments/{slug}/tables/{table['match_key']}/correct/",
                {"ranks": [1, 2] if forfeit else ranks, "reason": "r", "forfeit": forfeit},
            )
        if round_number == drop_after:
            post(
                organiser,
                f"/api/tournaments/{slug}/drop/",
                {"player": organiser.get(f"/api/tournaments/{slug}/entries/").json()[0]["player"]},
            )
        post(organiser, f"/api/tournaments/{slug}/next-round/")
    return slug


def test_pairings_csv_has_a_row_per_table_with_names_and_results(organiser, django_user_model, client_for):
    slug = played_swiss(organiser, django_user_model, client_for)
    response = organiser.get(f"/api/tournaments/{slug}/tables/csv/")
    assert (
        response["Content-Type"].startswith("text/csv")
        and f"{slug}-pairings.csv" in response["Content-Disposition"]
    )
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert len(rows) == 9  # three rounds of three tables (7 players: a bye each round)
    assert {row["seat_1"] for row in rows} <= {f"x{k}" for k in range(7)}
    assert all(row["status"] == "decided" and row["ranks"] in ("1-2", "2-1", "1-1") for row in rows)
    assert sum(row["forfeit"] == "True" for row in rows) == 1


def test_a_swiss_exports_as_trf16_with_fixed_columns(organiser, django_user_model, client_for):
    slug = played_swiss(organiser, django_user_model, client_for)
    response = organiser.get(f"/api/tournaments/{slug}/export/trf/")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/plain")
    lines = response.content.decode().splitlines()
    assert lines[0] == "012 Exported" and "062 7" in lines and "XXR 3" in lines
    players = [line for line in lines if line.startswith("001")]
    assert len(players) == 7
    standings = {row["name"]: row for row in organiser.get(f"/api/tournaments/{slug}/standings/").json()}
    byes = forfeits = 0
    for start, line in enumerate(players, start=1):
        assert int(line[4:8]) == start
        name = line[14:47].strip()
        assert float(line[80:84]) == standings[name]["points"] and int(line[85:89]) == standings[name]["rank"]
        blocks = [line[91 + 10 * k : 99 + 10 * k] for k in range(3)]
        assert len(line) == 89 + 10 * 3
        for block in blocks:
            opponent, colour, result = block[:4], block[5], block[7]
            if opponent == "0000":
                assert (colour, result) == ("-", "U")
                byes += 1
            else:
                assert 1 <= int(opponent) <= 7 and colour in "wb" and result in "10=+-"
                forfeits += result in "+-"
    assert byes == 3 and forfeits == 2
    # Results agree across the two lines of each game.
    by_start = {int(line[4:8]): line for line in players}
    for start, line in by_start.items():
        for k in range(3):
            block = line[91 + 10 * k : 99 + 10 * k]
            if block[:4] != "0000":
                mirror = by_start[int(block[:4])][91 + 10 * k : 99 + 10 * k]
                assert int(mirror[:4]) == start and {block[5], mirror[5]} == {"w", "b"}
                assert {block[7] + mirror[7]} <= {"10", "01", "==", "+-", "-+"}
    bracket = post(
        organiser, "/api/tournaments/", {"name": "Cup", "game": "rat-snake", "format": "single_elimination"}
    )["slug"]
    assert organiser.get(f"/api/tournaments/{bracket}/export/trf/").json()["code"] == "export/not_swiss"


def trf_lines(organiser, slug):
    return organiser.get(f"/api/tournaments/{slug}/export/trf/").content.decode().splitlines()


def test_trf_dates_each_round_by_its_start_on_the_132_line(organiser, django_user_model, client_for):
    slug = post(
        organiser,
        "/api/tournaments/",
        {
            "name": "Dated",
            "game": "rat-snake",
            "format": "swiss",
            "result_mode": "table",
            "config": {"rounds": 2},
        },
    )["slug"]
    post(organiser, f"/api/tournaments/{slug}/open/")
    for name in ("d1", "d2", "d3", "d4"):
        post(client_for(django_user_model.objects.create_user(name)), f"/api/tournaments/{slug}/register/")
    first, second = timezone.now() - timedelta(days=5), timezone.now() - timedelta(days=2, hours=1)
    for round_number, day in ((1, first), (2, second)):
        with mock.patch("django.utils.timezone.now", return_value=day):
            post(organiser, f"/api/tournaments/{slug}/{'start' if round_number == 1 else 'next-round'}/")
        for table in organiser.get(f"/api/tournaments/{slug}/tables/", {"status": "open"}).json():
            post(
                organiser,
                f"/api/tournaments/{slug}/tables/{table['match_key']}/correct/",
                {"ranks": [1, 2], "reason": "r"},
            )
    post(organiser, f"/api/tournaments/{slug}/next-round/")
    lines = trf_lines(organiser, slug)
    (dates,) = [line for line in lines if line.startswith("132")]
    assert lines.index(dates) < next(k for k, line in enumerate(lines) if line.startswith("001"))
    assert dates[:89].strip() == "132" and len(dates) == 89 + 10 * 2
    blocks = [dates[89 + 10 * k : 99 + 10 * k] for k in range(2)]
    assert blocks == [f"  {day.astimezone(UTC):%y/%m/%d}" for day in (first, second)]
    assert all(line[48:52] == "    " for line in lines if line.startswith("001"))  # not seeded by rating


def ratings_for_test(*, game_key, user_ids):
    """The seeding's rating source in the test below: a rating per username, none for x9."""
    users = get_user_model().objects.filter(pk__in=user_ids)
    return {user.pk: RATINGS[user.username] for user in users if user.username in RATINGS}


RATINGS = {"r0": 21.374, "r1": 35.5, "r2": -3.0}


def test_trf_reports_the_ratings_the_seeding_used(organiser, django_user_model, client_for, monkeypatch):
    # Chosen ratings (a negative one, one to round) rather than ladders played to reach them:
    # tests/flows/test_tournament_start.py reads real ladder ratings.
    monkeypatch.setattr("flows.tournament_start.best_ordinals_by_user", ratings_for_test)
    slug = post(
        organiser,
        "/api/tournaments/",
        {
            "name": "Rated",
            "game": "rat-snake",
            "format": "swiss",
            "result_mode": "table",
            "seeding": "rating",
        },
    )["slug"]
    post(organiser, f"/api/tournaments/{slug}/open/")
    for name in ("r0", "r1", "r2", "x9"):
        post(client_for(django_user_model.objects.create_user(name)), f"/api/tournaments/{slug}/register/")
    post(organiser, f"/api/tournaments/{slug}/start/")
    started = TournamentEvent.objects.get(tournament__slug=slug, kind="started").payload
    names = {e["player"]: e["user"] for e in organiser.get(f"/api/tournaments/{slug}/entries/").json()}
    assert [names[p] for p in started["players"]] == ["r1", "r0", "r2", "x9"]
    assert {names[p]: r for p, r in started["ratings"].items()} == {"r0": 21.37, "r1": 35.5, "r2": -3.0}
    RATINGS["r1"] = 99.0  # a later change does not rewrite what the seeding used
    try:
        rows = {line[14:47].strip(): line for line in trf_lines(organiser, slug) if line.startswith("001")}
    finally:
        RATINGS["r1"] = 35.5
    # Four digits right-aligned in columns 49-52; a negative or missing rating is left blank.
    assert {name: row[48:52] for name, row in rows.items()} == {
        "r1": "  36",
        "r0": "  21",
        "r2": "    ",
        "x9": "    ",
    }


def test_the_json_export_imports_elsewhere_and_replays_to_the_same_standings(
    organiser, django_user_model, client_for
):
    slug = played_swiss(organiser, django_user_model, client_for, drop_after=2)
    exported = organiser.get(f"/api/tournaments/{slug}/export/json/").json()
    assert (
        exported["format"] == "snakepit-tournament" and exported["events"][0]["kind"] == "registration_opened"
    )
    assert exported["events"][-1]["actor"] == "organiser"
    importer = client_for(django_user_model.objects.create_user("elsewhere"))
    copy = post(importer, "/api/tournaments/import/", exported, status=(201,))
    assert copy["slug"] != slug and copy["organiser"] == "elsewhere" and copy["status"] == "finished"

    def comparable(rows):
        return [(r["rank"], r["name"], r["points"], r["tiebreaks"], r["dropped"]) for r in rows]

    original = organiser.get(f"/api/tournaments/{slug}/standings/").json()
    replayed = importer.get(f"/api/tournaments/{copy['slug']}/standings/").json()
    assert comparable(replayed) == comparable(original) == comparable(exported["standings"])
    call_command("rebuild_tournaments", "--tournament", copy["slug"])
    # The imported names are not anyone's account here.
    assert {e["user"] for e in importer.get(f"/api/tournaments/{copy['slug']}/entries/").json()} == {None}
    # A log that does not replay is refused, and nothing is written.
    broken = {**exported, "events": [e for e in exported["events"] if e["kind"] != "started"]}
    refused = post(importer, "/api/tournaments/import/", broken, status=(422,))
    assert refused["code"] == "import/bad_log"
    assert (
        post(importer, "/api/tournaments/import/", {"format": "other"}, status=(422,))["code"]
        == "import/bad_format"
    )
    assert importer.get("/api/tournaments/", {"organiser": "elsewhere"}).json()["count"] == 1


def test_a_forged_or_malformed_export_is_refused_with_nothing_written(
    organiser, django_user_model, client_for
):
    slug = played_swiss(organiser, django_user_model, client_for, players=3, rounds=1)
    exported = organiser.get(f"/api/tournaments/{slug}/export/json/").json()
    paired = next(k for k, e in enumerate(exported["events"]) if e["kind"] == "round_paired")
    forged = [dict(e) for e in exported["events"]]
    forged[paired] = {**forged[paired], "payload": {**forged[paired]["payload"], "tables": ["not a table"]}}
    cases = [
        ({**exported, "events": forged}, "import/bad_log"),
        (
            {**exported, "tournament": {**exported["tournament"], "seats_per_match": "two"}},
            "import/bad_format",
        ),
        ({**exported, "tournament": {**exported["tournament"], "options": []}}, "import/bad_format"),
        ({**exported, "events": [{"kind": "registered"}]}, "import/bad_format"),
    ]
    before = organiser.get("/api/tournaments/").json()["count"]
    for body, code in cases:
        assert post(organiser, "/api/tournaments/import/", body, status=(422,))["code"] == code
    assert organiser.get("/api/tournaments/").json()["count"] == before
