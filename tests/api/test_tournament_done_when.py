"""Issue #17's "done when", through the API: an organiser runs a 64-player Swiss and a 16-player
double elimination with manual seeding, a forbidden pair, a dispute resolved, a dropped player and a
late entrant, exports the TRF and the CSV, and receives the webhooks (on a listener this test opens
on 127.0.0.1). Results are reported at tables, not played, to keep it quick."""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import json

import pytest
from django.core.management import call_command

from .test_tournament_webhooks import Listener

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _commit_callbacks_run(django_capture_on_commit_callbacks, monkeypatch):
    """Each request's on-commit work (the webhook deliveries) runs as it would after its commit."""
    monkeypatch.setattr(Event, "capture", staticmethod(django_capture_on_commit_callbacks), raising=False)


def post(client, path, body=None, status=(200, 201)):
    with Event.capture(execute=True):
        response = client.post(path, body or {}, format="json")
    assert response.status_code in status, (path, response.status_code, response.content[:300])
    return response.json() if response.content else None


def signed_events(listener: Listener, secret: str) -> list[str]:
    events = []
    for received in listener.received:
        timestamp, body = received["headers"]["x-snakepit-timestamp"], received["body"]
        digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
        assert received["headers"]["x-snakepit-signature"] == f"sha256={digest}"
        events.append(json.loads(body)["event"])
    return events


class Event:
    """One tournament run by its organiser through the API, with its players' own clients."""

    capture = None  # django_capture_on_commit_callbacks, set by the fixture above

    def __init__(self, organiser, slug):
        self.organiser, self.slug, self.clients, self.names = organiser, slug, {}, {}

    def url(self, tail=""):
        return f"/api/tournaments/{self.slug}/{tail}"

    def register(self, client, username):
        entry = post(client, self.url("register/"))
        self.clients[entry["player"]], self.names[entry["player"]] = client, username

    def open_tables(self):
        return self.organiser.get(self.url("tables/"), {"status": "open"}).json()

    def report_round(self, *, dispute=False, winner=lambda a, b: a):
        """Every open table: the first player reports, the other confirms by reporting the same;
        with `dispute`, the first table's players disagree and the organiser settles it."""
        settled = None
        for table in self.open_tables():
            key, (a, b) = table["match_key"], table["players"]
            ranks = [1, 2] if winner(a, b) == a else [2, 1]
            post(self.clients[a], self.url(f"tables/{key}/report/"), {"ranks": ranks})
            if dispute and settled is None:
                post(self.clients[b], self.url(f"tables/{key}/report/"), {"ranks": ranks[::-1]})
                assert self.organiser.get(self.url(f"tables/{key}/")).json()["status"] == "disputed"
                post(
                    self.organiser,
                    self.url(f"tables/{key}/correct/"),
                    {"ranks": ranks, "reason": "the arbiter's scoresheet"},
                )
                settled = key
            else:
                post(self.clients[b], self.url(f"tables/{key}/confirm/"))
        return settled


def test_a_64_player_swiss_and_a_16_player_double_elimination_run_by_their_organiser(
    django_user_model, client_for, settings, eager_celery
):
    settings.SNAKEPIT_WEBHOOKS_ALLOW_PRIVATE = True
    organiser = client_for(django_user_model.objects.create_user("arbiter"))
    people = {
        f"s{k:02d}": client_for(django_user_model.objects.create_user(f"s{k:02d}")) for k in range(1, 67)
    }

    with Listener() as listener:
        # -- the Swiss ---------------------------------------------------------------------------------
        slug = post(
            organiser,
            "/api/tournaments/",
            {
                "name": "Open Swiss",
                "game": "rat-snake",
                "format": "swiss",
                "result_mode": "table",
                "seeding": "manual",
                "config": {"rounds": 6, "missed_rounds": "half_point_bye"},
            },
        )["slug"]
        swiss = Event(organiser, slug)
        post(organiser, swiss.url("open/"))
        secret = post(organiser, swiss.url("webhooks/"), {"url": listener.url})["secret"]
        for name in list(people)[:64]:
            swiss.register(people[name], name)
        order = sorted(list(people)[:64], reverse=True)  # manual seeding: s64 is seed 1
        post(organiser, swiss.url("seeds/"), {"order": order})
        # Seeds 1 and 33 would meet in round one (top half against bottom half): forbid it.
        forbidden = [order[0], order[32]]
        assert (
            organiser.put(swiss.url("forbidden-pairs/"), {"pairs": [forbidden]}, format="json").status_code
            == 200
        )
        post(organiser, swiss.url("start/"))
        ids = {name: player for player, name in swiss.names.items()}
        round_one = organiser.get(swiss.url("tables/")).json()
        assert len(round_one) == 32
        assert {ids[forbidden[0]], ids[forbidden[1]]} not in [set(t["players"]) for t in round_one]

        def stronger(a, b):
            return min(a, b, key=lambda p: order.index(swiss.names[p]))

        disputed = swiss.report_round(dispute=True, winner=stronger)
        # A late entrant, registered by the organiser, joins from round 3 with a half point for each
        # missed round; a player drops in the middle of round 2 and forfeits at once.
        post(organiser, swiss.url("next-round/"))
        entry = post(organiser, swiss.url("register/"), {"username": "s65"})
        assert entry["user"] == "s65"
        swiss.names[entry["player"]], swiss.clients[entry["player"]] = "s65", people["s65"]
        order.append("s65")
        ids = {name: player for player, name in swiss.names.items()}
        dropper = ids[order[5]]
        at = next(t for t in swiss.open_tables() if dropper in t["players"])
        post(people[order[5]], swiss.url("drop/"))
        forfeited = organiser.get(swiss.url(f"tables/{at['match_key']}/")).json()
        assert forfeited["status"] == "decided" and forfeited["result"]["forfeit"]
        swiss.report_round(winner=stronger)
        for _ in range(4):
            post(organiser, swiss.url("next-round/"))
            paired = [p for t in swiss.open_tables() for p in t["players"]]
            assert dropper not in paired
            swiss.report_round(winner=stronger)
        post(organiser, swiss.url("next-round/"))
        assert organiser.get(swiss.url()).json()["status"] == "finished"
        standings = organiser.get(swiss.url("standings/")).json()
        assert len(standings) == 65 and standings[0]["name"] == order[0]
        late = next(row for row in standings if row["name"] == "s65")
        assert late["explain"]["PTS"][0][0] == 1  # the missed rounds are in its explanation
        trf = organiser.get(swiss.url("export/trf/")).content.decode().splitlines()
        assert sum(line.startswith("001") for line in trf) == 65 and "XXR 6" in trf
        pairings = list(csv.DictReader(io.StringIO(organiser.get(swiss.url("tables/csv/")).content.decode())))
        assert len(pairings) == len(organiser.get(swiss.url("tables/")).json()) >= 6 * 32 - 1
        assert organiser.get(swiss.url("standings/csv/")).status_code == 200
        assert disputed
        call_command("rebuild_tournaments", "--tournament", slug)
        swiss_events = signed_events(listener, secret)
        assert swiss_events.count("round_paired") == 6 and swiss_events.count("tournament_finished") == 1
        assert swiss_events.count("dispute_opened") == 1 and swiss_events.count("result_reported") >= 6 * 31

        # -- the double elimination --------------------------------------------------------------------
        listener.received.clear()
        slug = post(
            organiser,
            "/api/tournaments/",
            {
                "name": "Double Sixteen",
                "game": "rat-snake",
                "format": "double_elimination",
                "result_mode": "table",
                "seeding": "manual",
            },
        )["slug"]
        double = Event(organiser, slug)
        post(organiser, double.url("open/"))
        secret = post(
            organiser,
            double.url("webhooks/"),
            {"url": listener.url, "events": ["round_paired", "dispute_opened", "tournament_finished"]},
        )["secret"]
        sixteen = list(people)[:16]
        for name in sixteen:
            double.register(people[name], name)
        post(organiser, double.url("seeds/"), {"order": sixteen[::-1]})
        # Forbidden pairs belong to Swiss pairing; a bracket's seats follow from its seeds.
        refused = organiser.put(double.url("forbidden-pairs/"), {"pairs": [sixteen[:2]]}, format="json")
        assert refused.status_code == 422 and refused.json()["code"] == "pairing/no_forbidden_pairs"
        post(organiser, double.url("start/"))
        bracket = organiser.get(double.url("bracket/")).json()
        ids = {name: player for player, name in double.names.items()}
        assert bracket["seeds"][:2] == [ids[sixteen[15]], ids[sixteen[14]]]

        def better(a, b):
            return min(a, b, key=lambda p: sixteen[::-1].index(double.names[p]))

        assert double.report_round(dispute=True, winner=better)
        # A player who lost once drops while at an open table of the losers' bracket.
        post(organiser, double.url("next-round/"))
        loser_at = next(t for t in double.open_tables() if t["match_key"].startswith("L"))
        dropper = loser_at["players"][0]
        post(organiser, double.url("drop/"), {"player": dropper})
        assert organiser.get(double.url(f"tables/{loser_at['match_key']}/")).json()["result"]["forfeit"]
        # Elimination takes no late entries: the refusal says so and writes nothing.
        late = client_for(django_user_model.objects.create_user("latecomer"))
        assert post(late, double.url("register/"), status=(422,))["code"] == "player/registration_closed"
        for _ in range(40):
            double.report_round(winner=better)
            if organiser.get(double.url()).json()["status"] == "finished":
                break
            post(organiser, double.url("next-round/"))
        assert organiser.get(double.url()).json()["status"] == "finished"
        standings = organiser.get(double.url("standings/")).json()
        assert standings[0]["name"] == sixteen[15] and len(standings) == 16
        assert organiser.get(double.url("tables/csv/")).status_code == 200
        assert organiser.get(double.url("export/trf/")).status_code == 409  # TRF is for Swiss
        call_command("rebuild_tournaments", "--tournament", slug)
        double_events = signed_events(listener, secret)
        assert double_events.count("dispute_opened") == 1 and double_events[-1] == "tournament_finished"
        assert "result_reported" not in double_events  # only what this webhook asked for
        deliveries = organiser.get(double.url("webhooks/")).json()[0]["deliveries"]
        assert {d["status"] for d in deliveries} == {"delivered"}
