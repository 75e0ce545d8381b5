"""The tournament and ladder streams (api/snapshot_streams.py), read through Django's async client as
a browser's EventSource reads them: on connect, exactly what the API's GETs show; nothing for a
client already at the head (Last-Event-ID); a change reaching every open stream at once, read once
for all of them; the end of a tournament; and bad input refused with a code, never a 500."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from asgiref.sync import sync_to_async
from django.test import AsyncClient, Client
from rest_framework.test import APIClient

from api import snapshot_streams
from ratings import services as ladder_services
from tests.api.test_streams import Stream, private_redis  # noqa: F401  (a fixture)
from tournaments.models import TournamentEvent

pytestmark = pytest.mark.django_db(transaction=True)


def post(client, path, body=None):
    response = client.post(path, body or {}, format="json")
    assert response.status_code in (200, 201), (path, response.json())
    return response.json()


@pytest.fixture
def organiser(django_user_model):
    client = APIClient()
    client.force_authenticate(django_user_model.objects.create_user("organiser"))
    return client


@pytest.fixture
def running_swiss(organiser, django_user_model):
    """A four-player Swiss with results reported at the tables, its first round paired: its slug."""
    body = {"name": "Streamed", "game": "rat-snake", "format": "swiss", "result_mode": "table"}
    slug = post(organiser, "/api/tournaments/", body)["slug"]
    post(organiser, f"/api/tournaments/{slug}/open/")
    for number in range(1, 5):
        player = APIClient()
        player.force_authenticate(django_user_model.objects.create_user(f"player{number}"))
        post(player, f"/api/tournaments/{slug}/register/")
    post(organiser, f"/api/tournaments/{slug}/start/")
    return slug


def as_the_api_shows_it(slug: str) -> dict:
    client = APIClient()
    tables = client.get(f"/api/tournaments/{slug}/tables/").json()
    current = max(table["round"] for table in tables)
    bracket = client.get(f"/api/tournaments/{slug}/bracket/")
    return {
        "tables": client.get(f"/api/tournaments/{slug}/tables/", {"round": current}).json(),
        "standings": client.get(f"/api/tournaments/{slug}/standings/").json(),
        "bracket": bracket.json() if bracket.status_code == 200 else None,
    }


def settle_first_open_table(organiser, slug: str) -> str:
    table = next(t for t in organiser.get(f"/api/tournaments/{slug}/tables/").json() if t["status"] == "open")
    post(
        organiser,
        f"/api/tournaments/{slug}/tables/{table['match_key']}/correct/",
        {"ranks": [1, 2], "reason": "reported by the arbiter"},
    )
    return table["match_key"]


async def open_stream(path: str, **extra) -> Stream:
    return Stream(await AsyncClient().get(path, **extra))


def test_on_connect_the_stream_shows_what_the_api_shows_with_the_logs_seq_as_its_id(running_swiss):
    slug = running_swiss

    async def scenario():
        return await (await open_stream(f"/api/tournaments/{slug}/stream/")).next()

    kind, seq, data = asyncio.run(scenario())
    tournament = APIClient().get(f"/api/tournaments/{slug}/").json()
    top = TournamentEvent.objects.filter(tournament__slug=slug).order_by("-seq").first().seq
    assert kind == "tournament" and seq == str(top) == str(data["seq"])
    assert data["status"] == tournament["status"] == "running" and data["round"] == 1
    shown = as_the_api_shows_it(slug)
    assert {key: data[key] for key in shown} == shown
    assert len(data["tables"]) == 2 and len(data["standings"]) == 4


def test_a_result_reaches_every_open_stream_at_once_read_once_and_a_client_at_the_head_gets_only_it(
    running_swiss, organiser, settings, monkeypatch
):
    settings.SNAKEPIT_STREAM_POLL_SECONDS = 60  # only the announcement can bring it in time
    slug = running_swiss
    reads = []
    original = snapshot_streams.tournament_snapshot

    def counted(tournament_id):
        reads.append(tournament_id)
        return original(tournament_id)

    monkeypatch.setattr(snapshot_streams, "tournament_snapshot", counted)

    async def scenario():
        path = f"/api/tournaments/{slug}/stream/"
        first = await open_stream(path)
        _, at, _ = await first.next()
        # A client that already has the head (a reconnection) is sent nothing until the next change.
        others = [await open_stream(path, headers={"Last-Event-ID": at}) for _ in range(3)]
        reads.clear()
        started = time.monotonic()
        key = await sync_to_async(settle_first_open_table)(organiser, slug)
        seen = [await stream.next(timeout=5) for stream in [first, *others]]
        return key, at, seen, time.monotonic() - started

    key, at, seen, took = asyncio.run(scenario())
    # Each stream's next message is the change, not the snapshot it already had.
    assert all(kind == "tournament" and int(seq) > int(at) for kind, seq, _ in seen)
    assert len({seq for _, seq, _ in seen}) == 1
    settled = next(table for table in seen[0][2]["tables"] if table["match_key"] == key)
    assert settled["status"] == "decided"
    assert seen[0][2] == {**seen[0][2], **as_the_api_shows_it(slug)}
    assert took < 2.0, took
    # One read per change (an append or two: the correction's), not one per stream.
    assert 1 <= len(reads) <= 2, reads


def test_a_cancelled_tournament_ends_its_stream(running_swiss, organiser):
    slug = running_swiss

    async def scenario():
        stream = await open_stream(f"/api/tournaments/{slug}/stream/")
        await stream.next()
        await sync_to_async(post)(organiser, f"/api/tournaments/{slug}/cancel/", {"reason": "rain"})
        messages = []
        while not messages or messages[-1][0] != "end":
            messages.append(await stream.next(timeout=5))
        return messages

    messages = asyncio.run(scenario())
    assert messages[-2][0] == "tournament" and messages[-2][2]["status"] == "cancelled"
    assert messages[-1][1] == messages[-2][1]


@pytest.mark.parametrize(
    "path, headers, status, code",
    [
        ("/api/tournaments/{slug}/stream/", {"Last-Event-ID": "x1"}, 400, "request/invalid_query"),
        ("/api/tournaments/{slug}/stream/?after=-3", {}, 400, "request/invalid_query"),
        ("/api/tournaments/{slug}/stream/", {"Last-Event-ID": "9" * 11}, 400, "request/invalid_query"),
        ("/api/tournaments/nobody-s/stream/", {}, 404, "tournament/not_found"),
        ("/api/tournaments/" + "a" * 300 + "/stream/", {}, 404, "tournament/not_found"),
        ("/api/ladders/open/stream/?include_left=perhaps", {}, 400, "request/invalid_query"),
        ("/api/ladders/open/stream/", {"Last-Event-ID": "<script>"}, 400, "request/invalid_query"),
        ("/api/ladders/nowhere/stream/", {}, 404, "ladder/not_found"),
    ],
)
def test_bad_input_is_refused_with_a_code(running_swiss, path, headers, status, code):
    ladder_services.ladder_create(game_key="rat-snake", name="Open", slug="open")

    async def scenario():
        return await AsyncClient().get(path.format(slug=running_swiss), headers=headers)

    response = asyncio.run(scenario())
    assert response.status_code == status and response.json()["code"] == code


def test_a_server_that_cannot_stream_says_so_and_the_page_polls(running_swiss):
    response = Client().get(f"/api/tournaments/{running_swiss}/stream/")
    assert response.status_code == 501 and response.json()["code"] == "stream/needs_asgi"


def test_the_ladder_stream_sends_the_leaderboard_then_each_change_and_resumes_by_its_id(settings):
    settings.SNAKEPIT_STREAM_POLL_SECONDS = 60
    ladder = ladder_services.ladder_create(game_key="rat-snake", name="Open", slug="open")
    ladder_services.ladder_join(ladder=ladder, bot="random")

    async def scenario():
        path = "/api/ladders/open/stream/"
        stream = await open_stream(path)
        first = await stream.next()
        resumed = await open_stream(path, headers={"Last-Event-ID": first[1]})
        await sync_to_async(ladder_services.ladder_join)(ladder=ladder, bot="heuristic")
        return first, await stream.next(timeout=5), await resumed.next(timeout=5)

    first, after_join, resumed = asyncio.run(scenario())
    assert first[0] == "leaderboard" and first[2]["count"] == 1
    assert after_join[0] == "leaderboard" and after_join[1] != first[1]
    # The resumed stream skipped the leaderboard it had, and got the change.
    assert resumed == after_join
    api = APIClient().get("/api/ladders/open/leaderboard/").json()
    assert after_join[2] == {"count": api["count"], "results": api["results"]} and api["count"] == 2


@pytest.mark.parametrize(
    "who, status, code", [(None, 401, "auth/not_authenticated"), ("bob", 403, "ops/staff_only")]
)
def test_the_ops_stream_is_for_staff_alone(users, who, status, code):
    async def scenario():
        client = AsyncClient()
        if who is not None:
            await client.aforce_login(users[who])
        return await client.get("/ops/stream/")

    response = asyncio.run(scenario())
    assert response.status_code == status and response.json()["code"] == code


def test_the_ops_stream_sends_the_figures_then_again_when_they_change(users, monkeypatch):
    from matches.services import SeatSpec, match_create
    from snakepit.pages import ops

    monkeypatch.setattr(ops, "OPS_STREAM_SECONDS", 0.2)
    staff = users["carol"]
    staff.is_staff = True
    staff.save()

    def start_a_match():
        match_create(game_key="rat-snake", seats=[SeatSpec(user=users["alice"]), SeatSpec(bot="heuristic")])

    async def scenario():
        client = AsyncClient()
        await client.aforce_login(staff)
        stream = Stream(await client.get("/ops/stream/"))
        first = await stream.next()
        await sync_to_async(start_a_match)()
        while True:  # the per-minute rates may change first; the running count follows
            later = await stream.next(timeout=5)
            if later[2]["running"] != first[2]["running"]:
                return first, later

    first, later = asyncio.run(scenario())
    assert first[0] == later[0] == "ops" and first[1] != later[1]
    assert (first[2]["running"], later[2]["running"]) == (0, 1)
    assert later[2]["running_by_game"] == {"rat-snake": 1}


def test_a_decklist_tournaments_stream_carries_no_deck_and_exactly_what_the_api_shows(organiser, users):
    """Rag'n'Guns entrants bring saved decks; the tables, standings and bracket show none of them (a
    deck is on `/entries/` alone), and the stream carries exactly those, to anyone."""
    from tests.api.test_every_game import saved_deck

    body = {"name": "Decklists", "game": "ragnguns", "format": "swiss", "result_mode": "table"}
    slug = post(organiser, "/api/tournaments/", body)["slug"]
    post(organiser, f"/api/tournaments/{slug}/open/")
    share_ids = []
    for name in ("alice", "bob", "carol"):
        player = APIClient()
        player.force_authenticate(users[name])
        share_ids.append(saved_deck(users[name]))
        post(player, f"/api/tournaments/{slug}/register/", {"deck": share_ids[-1]})
    post(organiser, f"/api/tournaments/{slug}/start/")
    settle_first_open_table(organiser, slug)

    async def scenario():
        return await (await open_stream(f"/api/tournaments/{slug}/stream/")).next()

    kind, _, data = asyncio.run(scenario())
    assert kind == "tournament" and data["tables"]
    shown = as_the_api_shows_it(slug)
    assert {key: data[key] for key in shown} == shown
    text = json.dumps(data)
    assert not any(share_id in text for share_id in share_ids)
    assert "deck" not in text


def test_a_result_recorded_in_another_process_reaches_the_stream_through_redis(
    running_swiss,
    settings,
    private_redis,  # noqa: F811  (the fixture imported above)
):
    """Results of games played on Snakepit are recorded by workers, other processes than the web's."""
    import os
    import subprocess
    import sys

    from snakepit.processes import database_url

    settings.SNAKEPIT_STREAM_POLL_SECONDS = 60  # only Redis can bring it in time
    slug = running_swiss
    key = APIClient().get(f"/api/tournaments/{slug}/tables/").json()[0]["match_key"]
    script = (
        "from django.contrib.auth import get_user_model\n"
        "from rest_framework.test import APIClient\n"
        "client = APIClient()\n"
        "client.force_authenticate(get_user_model().objects.get(username='organiser'))\n"
        f"answer = client.post('/api/tournaments/{slug}/tables/{key}/correct/',"
        " {'ranks': [2, 1], 'reason': 'from a worker'}, format='json')\n"
        "assert answer.status_code in (200, 201), answer.content\n"
    )
    env = {**os.environ, "DATABASE_URL": database_url(), "REDIS_URL": private_redis}

    async def scenario():
        stream = await open_stream(f"/api/tournaments/{slug}/stream/")
        _, before, _ = await stream.next()
        await asyncio.sleep(0.5)  # the stream's subscriber is listening on Redis by now
        await asyncio.to_thread(
            subprocess.run,
            [sys.executable, "manage.py", "shell", "-c", script],
            cwd=settings.BASE_DIR,
            env=env,
            check=True,
        )
        recorded = time.monotonic()
        after = await stream.next(timeout=10)
        return before, after, time.monotonic() - recorded

    before, (kind, seq, data), took = asyncio.run(scenario())
    assert kind == "tournament" and int(seq) > int(before)
    assert next(table for table in data["tables"] if table["match_key"] == key)["status"] == "decided"
    assert took < 2.0, took
