"""Snakepit under load, for Locust (headless): people playing Rat-Snake against a bot through the API,
reporting and confirming results at the tables of running Swiss tournaments, checking Rag'n'Guns decks,
and reading ladder leaderboards and tournament standings; an organiser pairs the next Swiss round.

Run by tests/load/harness.py, which makes the plan (users, tokens, tournaments) this file reads from
SNAKEPIT_LOAD_PLAN and reads back what it writes to SNAKEPIT_LOAD_RESULTS: every action the service
acknowledged, as (match, seq, idempotency key), and every answer's status per endpoint, so that the
after-run check can find each acknowledged action in its match's log exactly once.

An action whose answer is lost (the web process died with it in flight, a 5xx) is sent again with
the same idempotency key until the service answers it: the key makes the retry safe."""

from __future__ import annotations

import hashlib
import json
import os
import random
import secrets
import threading
import time
import uuid
from collections import Counter, defaultdict
from pathlib import Path

from locust import HttpUser, between, events, task

PLAN = json.loads(Path(os.environ["SNAKEPIT_LOAD_PLAN"]).read_text())
RESULTS_PATH = os.environ["SNAKEPIT_LOAD_RESULTS"]
RETRIES = 8

acknowledged: list[dict] = []
statuses: dict[str, Counter] = defaultdict(Counter)
_players = iter(PLAN["players"])
_players_lock = threading.Lock()


@events.request.add_listener
def _count_status(request_type, name, response, exception, **kwargs):
    code = getattr(response, "status_code", 0) or 0
    statuses[f"{request_type} {name}"][str(code)] += 1


@events.quitting.add_listener
def _write_results(environment, **kwargs):
    with open(RESULTS_PATH, "w") as out:
        json.dump({"acknowledged": acknowledged, "statuses": statuses}, out)


class Player(HttpUser):
    """A signed-in person: plays a match against a bot, reports results, checks decks, reads tables."""

    wait_time = between(0.2, 1.0)
    weight = 10

    def on_start(self):
        with _players_lock:
            self.player = next(_players, None) or random.choice(PLAN["players"])
        self.client.headers["Authorization"] = f"Token {self.player['token']}"
        self.match_id = None
        self.rng = random.Random(self.player["username"])

    # --- Rat-Snake against a bot ---------------------------------------------------------------
    @task(6)
    def play(self):
        if self.match_id is None:
            self._match_start()
            return
        with self.client.get(
            f"/api/matches/{self.match_id}/view/?seat=0", name="/api/matches/{id}/view/", catch_response=True
        ) as response:
            if response.status_code != 200:
                response.failure(f"view: {response.status_code}")
                return
            view = response.json()
        if view["status"] != "running" or not view["legal_actions"]:
            self.match_id = None if view["status"] != "running" else self.match_id
            return
        action = self.rng.choice(view["legal_actions"])
        self._act(view["seq"], action)

    def _match_start(self):
        body = {
            "game": "rat-snake",
            "seats": [{"user": self.player["username"]}, {"bot": "heuristic"}],
            "options": {"passes": 1},
        }
        with self.client.post(
            "/api/matches/", json=body, name="/api/matches/", catch_response=True
        ) as response:
            if response.status_code == 201:
                self.match_id = response.json()["id"]
                if response.json().get("entropy") == "contributed":
                    self._entropy_contribute()
            elif response.status_code == 429 or response.status_code == 409:
                response.success()  # a quota or a rate: the person waits, as a person would
            else:
                response.failure(f"create: {response.status_code}")

    def _entropy_contribute(self):
        """A person's part of the match's chance: a commitment to a secret value, then the value."""
        value = secrets.token_hex(32)
        steps = [
            {"commitment": hashlib.sha256(value.encode()).hexdigest(), "seat": 0},
            {"value": value, "seat": 0},
        ]
        for body in steps:
            for attempt in range(RETRIES):
                with self.client.post(
                    f"/api/matches/{self.match_id}/entropy/",
                    json=body,
                    name="/api/matches/{id}/entropy/",
                    catch_response=True,
                ) as response:
                    if response.status_code in (201, 409):
                        response.success()  # 409: a retry of a step that had been taken
                        break
                    response.failure(f"entropy: {response.status_code}")
                time.sleep(0.25 * (attempt + 1))

    def _act(self, expected_seq: int, action: dict):
        key = uuid.uuid4().hex
        body = {"expected_seq": expected_seq, "action": action, "seat": 0, "idempotency_key": key}
        for attempt in range(RETRIES):
            with self.client.post(
                f"/api/matches/{self.match_id}/actions/",
                json=body,
                name="/api/matches/{id}/actions/",
                catch_response=True,
            ) as response:
                code = response.status_code
                if code in (200, 201):
                    event = response.json()["event"]
                    acknowledged.append(
                        {"match": self.match_id, "seq": event["seq"], "key": key, "replayed": code == 200}
                    )
                    return
                if code in (409, 422):
                    response.success()  # a bot or a stale view moved first: read again, decide again
                    if response.json().get("code") == "match/finished":
                        self.match_id = None
                    return
                if code == 429:
                    response.success()
                    return
                # No answer (the web process died with it) or a 5xx: the same key again is safe.
                response.failure(f"action: {code}")
            time.sleep(0.25 * (attempt + 1))

    # --- Swiss, results at the table -----------------------------------------------------------
    @task(2)
    def report(self):
        slug, me = self.rng.choice(sorted(self.player["tournaments"].items()))
        with self.client.get(
            f"/api/tournaments/{slug}/tables/?status=open",
            name="/api/tournaments/{slug}/tables/",
            catch_response=True,
        ) as response:
            if response.status_code != 200:
                response.failure(f"tables: {response.status_code}")
                return
            open_tables = response.json()
        for table in open_tables:
            if table["players"] and table["players"][0] == me and len(table["players"]) == 2:
                ranks = self.rng.choice([[1, 2], [2, 1]])
                self._result(slug, table["match_key"], "report", {"ranks": ranks})
                return
        with self.client.get(
            f"/api/tournaments/{slug}/tables/?status=reported",
            name="/api/tournaments/{slug}/tables/",
            catch_response=True,
        ) as response:
            reported = response.json() if response.status_code == 200 else []
        for table in reported:
            if len(table["players"]) == 2 and table["players"][1] == me:
                self._result(slug, table["match_key"], "confirm", {})
                return

    def _result(self, slug: str, match_key: str, verb: str, body: dict):
        with self.client.post(
            f"/api/tournaments/{slug}/tables/{match_key}/{verb}/",
            json=body,
            name=f"/api/tournaments/{{slug}}/tables/{{key}}/{verb}/",
            catch_response=True,
        ) as response:
            if response.status_code in (409, 422):
                response.success()  # someone else's report or the organiser's round came first

    # --- deck checks and reads -----------------------------------------------------------------
    @task(2)
    def deck_check(self):
        deck = self.rng.choice(PLAN["decks"])
        self.client.post(
            "/api/ragnguns/deck-checks/",
            json={"format": deck["format"], "text": deck["text"]},
            name="/api/ragnguns/deck-checks/",
        )

    @task(2)
    def leaderboard(self):
        slug = self.rng.choice(PLAN["ladders"])
        self.client.get(f"/api/ladders/{slug}/leaderboard/", name="/api/ladders/{slug}/leaderboard/")

    @task(2)
    def standings(self):
        slug = self.rng.choice(PLAN["tournaments"])
        self.client.get(f"/api/tournaments/{slug}/standings/", name="/api/tournaments/{slug}/standings/")


class Organiser(HttpUser):
    """The tournaments' organiser: pairs the next round of each Swiss whose tables are all decided."""

    wait_time = between(1.0, 2.0)
    fixed_count = 1

    def on_start(self):
        self.client.headers["Authorization"] = f"Token {PLAN['organiser']['token']}"

    @task
    def next_round(self):
        for slug in PLAN["tournaments"]:
            with self.client.post(
                f"/api/tournaments/{slug}/next-round/",
                json={},
                name="/api/tournaments/{slug}/next-round/",
                catch_response=True,
            ) as response:
                if response.status_code == 409:
                    response.success()  # round/not_complete, or the tournament is over
