"""The match stream (api/streams.py), read through Django's async client as a browser's EventSource
reads it: the events a viewer may see in seq order, then their view; resumed from Last-Event-ID;
woken by an append in this process at once; a lost announcement caught up from the log with nothing
skipped or repeated; and a spectator's stream of every game carrying no payload a spectator may not
read."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from asgiref.sync import sync_to_async
from django.test import AsyncClient

from core import feed
from decks.selectors import deck_version_brought
from engines.registry import default_bot, game_keys, get_game
from matches.selectors import match_event_listing, match_game, match_snapshot
from matches.services import SeatSpec, match_create, match_submit_action
from tests.api.test_every_game import saved_deck

pytestmark = pytest.mark.django_db(transaction=True)


class Stream:
    """One open stream: its messages as (kind, id, data), comments and `retry:` left out."""

    def __init__(self, response):
        assert response.status_code == 200, response.content
        assert response["Content-Type"] == "text/event-stream"
        self._chunks = aiter(response.streaming_content)
        self._buffer = ""

    async def next(self, *, timeout: float = 10.0) -> tuple[str, str | None, dict]:
        while True:
            while "\n\n" in self._buffer:
                block, self._buffer = self._buffer.split("\n\n", 1)
                fields = dict(line.split(": ", 1) for line in block.splitlines() if not line.startswith(":"))
                if "event" in fields:
                    return fields["event"], fields.get("id"), json.loads(fields["data"])
            chunk = await asyncio.wait_for(anext(self._chunks), timeout)
            self._buffer += chunk.decode()

    async def until_view(self, *, timeout: float = 10.0) -> tuple[list[dict], dict]:
        """The events up to the next view, and that view."""
        events = []
        while True:
            kind, seq, data = await self.next(timeout=timeout)
            if kind == "view":
                return events, data
            assert kind == "event" and seq == str(data["seq"])
            events.append(data)


async def open_stream(client: AsyncClient, match, **extra) -> Stream:
    query = extra.pop("query", "")
    return Stream(await client.get(f"/api/matches/{match.pk}/stream/{query}", **extra))


def rat_snake_against_a_bot(person):
    return match_create(
        game_key="rat-snake", seats=[SeatSpec(user=person), SeatSpec(bot="heuristic")], seed=bytes(32)
    )


def play(match, person, seat: int = 0) -> bool:
    """The person's first legal move, if it is theirs to make; whether one was made."""
    snapshot = match_snapshot(match)
    game = match_game(match)
    if game.decision(snapshot.state).kind == "over" or seat not in game.decision(snapshot.state).seats:
        return False
    action = game.legal_actions(snapshot.state, seat)[0]
    match_submit_action(match_id=match.pk, user=person, action=dict(action), expected_seq=snapshot.seq)
    return True


def head(match) -> int:
    return match_snapshot(match).seq


def test_events_come_in_order_then_the_view_and_a_reconnection_resumes_after_last_event_id(users):
    alice = users["alice"]
    match = rat_snake_against_a_bot(alice)
    for _ in range(3):
        play(match, alice)
    top = head(match)
    assert top >= 4

    async def scenario():
        client = AsyncClient()
        await client.aforce_login(alice)
        events, view = await (await open_stream(client, match)).until_view()
        assert [event["seq"] for event in events] == list(range(1, top + 1))
        assert view["seq"] == top and view["seat"] == 0
        resumed, _ = await (await open_stream(client, match, headers={"Last-Event-ID": "2"})).until_view()
        assert [event["seq"] for event in resumed] == list(range(3, top + 1))
        return events

    events = asyncio.run(scenario())
    listing = match_event_listing(match, viewer_seat=0)
    assert [event["payload"] for event in events] == [event["payload"] for event in listing]


@pytest.mark.parametrize(
    "query, header, code",
    [
        ("?seat=1234", {}, "request/invalid_query"),
        ("?after=-1", {}, "request/invalid_query"),
        ("", {"headers": {"Last-Event-ID": "9" * 11}}, "request/invalid_query"),
        ("?seat=1", {}, "seat/not_yours"),
    ],
)
def test_every_input_is_bounded_and_a_seat_not_yours_is_refused(users, query, header, code):
    match = rat_snake_against_a_bot(users["alice"])

    async def scenario():
        client = AsyncClient()
        await client.aforce_login(users["alice"])
        return await client.get(f"/api/matches/{match.pk}/stream/{query}", **header)

    response = asyncio.run(scenario())
    assert response.status_code in (400, 403) and response.json()["code"] == code


def test_a_move_reaches_an_open_stream_at_once_without_waiting_for_a_poll(users, settings):
    settings.SNAKEPIT_STREAM_POLL_SECONDS = 60  # only the announcement can bring it in time
    alice = users["alice"]
    match = rat_snake_against_a_bot(alice)

    async def scenario():
        spectator = await open_stream(AsyncClient(), match)
        before, _ = await spectator.until_view()
        started = time.monotonic()
        await sync_to_async(play)(match, alice)
        after, view = await spectator.until_view(timeout=5)
        return before, after, view, time.monotonic() - started

    before, after, view, took = asyncio.run(scenario())
    assert after and after[0]["seq"] == before[-1]["seq"] + 1
    assert view["seq"] == after[-1]["seq"] == head(match)
    assert took < 1.0, took


def test_a_lost_announcement_is_caught_up_from_the_log_with_nothing_skipped_or_repeated(
    users, settings, monkeypatch
):
    settings.SNAKEPIT_STREAM_POLL_SECONDS = 0.3
    alice = users["alice"]
    match = rat_snake_against_a_bot(alice)

    async def scenario():
        stream = await open_stream(AsyncClient(), match)
        seen, _ = await stream.until_view()
        # The announcements are lost (as in a restart of Redis): the stream must find the moves itself.
        monkeypatch.setattr(feed, "_wake", lambda topic: None)
        for _ in range(3):
            await sync_to_async(play)(match, alice)
        while not seen or seen[-1]["seq"] < await sync_to_async(head)(match):
            more, _ = await stream.until_view(timeout=5)
            seen += more
        return seen

    seen = asyncio.run(scenario())
    assert [event["seq"] for event in seen] == list(range(1, head(match) + 1))


def person_seat(key: str, person) -> SeatSpec:
    if not get_game(key).spec.needs_deck:
        return SeatSpec(user=person)
    from decks.models import Deck

    version = Deck.objects.get(share_id=saved_deck(person)).versions.order_by("-number").first()
    return SeatSpec(user=person, deck=deck_version_brought(version))


@pytest.mark.parametrize("key", game_keys())
def test_a_spectators_stream_carries_no_payload_a_spectator_may_not_read(key, users):
    alice = users["alice"]
    game = get_game(key)
    bots = [SeatSpec(bot=default_bot(key))] * max(game.spec.min_players - 1, 1)
    # Six of alice's moves into the match, or fewer where a short game (the test-only Cup Dice) would
    # be over by then: the secrets are kept only while it runs.
    for moves in range(6, -1, -1):
        match = match_create(game_key=key, seats=[person_seat(key, alice), *bots], seed=bytes(32))
        for _ in range(moves):
            if not play(match, alice):
                break
        match.refresh_from_db()
        if match.status == "running":
            break

    async def scenario():
        return await (await open_stream(AsyncClient(), match)).until_view()

    events, view = asyncio.run(scenario())
    match.refresh_from_db()
    assert match.status == "running", "the test needs a running match, whose secrets are kept"
    # Exactly what the selector lets a spectator read: each withheld payload is null.
    listing = match_event_listing(match, viewer_seat=None)
    assert [(e["seq"], e["payload"], e["redacted"]) for e in events] == [
        (e["seq"], e["payload"], e["redacted"]) for e in listing
    ]
    assert all(event["payload"] is None for event in events if event["redacted"])
    state = match_snapshot(match).state
    assert view["seat"] is None and view["legal_actions"] == []
    assert view["view"] == json.loads(json.dumps(game.view(state, None)))
    if game.spec.has_hidden_information:
        # Something is hidden from a spectator here, so the comparison above is not vacuous.
        seat_view = json.loads(json.dumps(game.view(state, 0)))
        assert any(event["redacted"] for event in events) or seat_view != view["view"]


@pytest.fixture
def private_redis(tmp_path, settings, monkeypatch):
    """A Redis of this test's own on a free port, as the configured one (REDIS_URL)."""
    import shutil
    import socket
    import subprocess

    import redis

    from tests.support import unavailable

    if shutil.which("redis-server") is None:
        unavailable("redis-server is not installed (apt-get install redis-server)")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    try:
        for _ in range(100):
            try:
                redis.Redis.from_url(url).ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        settings.REDIS_URL = url
        monkeypatch.setattr(feed, "_publisher", None)
        yield url
    finally:
        server.terminate()
        server.wait()


MOVE_IN_ANOTHER_PROCESS = """
from django.contrib.auth import get_user_model
from matches.selectors import match_get, match_game, match_snapshot
from matches.services import match_submit_action
match = match_get(match_id={match_id})
snapshot = match_snapshot(match)
action = match_game(match).legal_actions(snapshot.state, 0)[0]
user = get_user_model().objects.get(username="alice")
match_submit_action(match_id=match.pk, user=user, action=dict(action), expected_seq=snapshot.seq)
"""


def test_a_move_made_in_another_process_reaches_the_stream_through_redis(users, settings, private_redis):
    import os
    import subprocess
    import sys

    from snakepit.processes import database_url

    settings.SNAKEPIT_STREAM_POLL_SECONDS = 60  # only Redis can bring it in time
    alice = users["alice"]
    match = rat_snake_against_a_bot(alice)
    env = {**os.environ, "DATABASE_URL": database_url(), "REDIS_URL": private_redis}

    async def scenario():
        stream = await open_stream(AsyncClient(), match)
        before, _ = await stream.until_view()
        await asyncio.sleep(0.5)  # the stream's subscriber is listening on Redis by now
        script = MOVE_IN_ANOTHER_PROCESS.format(match_id=match.pk)
        await asyncio.to_thread(
            subprocess.run,
            [sys.executable, "manage.py", "shell", "-c", script],
            cwd=settings.BASE_DIR,
            env=env,
            check=True,
        )
        moved = time.monotonic()
        after, view = await stream.until_view(timeout=10)
        return before, after, view, time.monotonic() - moved

    before, after, view, took = asyncio.run(scenario())
    assert after[0]["seq"] == before[-1]["seq"] + 1 and view["seq"] == head(match)
    assert took < 2.0, took


def test_with_redis_away_moves_are_written_and_streams_catch_up_from_the_log(users, settings, monkeypatch):
    import socket

    with socket.socket() as probe:  # a port nobody listens on: Redis is down
        probe.bind(("127.0.0.1", 0))
        settings.REDIS_URL = f"redis://127.0.0.1:{probe.getsockname()[1]}/0"
    settings.SNAKEPIT_STREAM_POLL_SECONDS = 0.3
    monkeypatch.setattr(feed, "_publisher", None)
    monkeypatch.setattr(feed, "_publish_paused_until", 0.0)
    alice = users["alice"]
    match = rat_snake_against_a_bot(alice)

    async def scenario():
        stream = await open_stream(AsyncClient(), match)
        seen, _ = await stream.until_view()
        for _ in range(2):
            await sync_to_async(play)(match, alice)
        while seen[-1]["seq"] < await sync_to_async(head)(match):
            more, _ = await stream.until_view(timeout=5)
            seen += more
        return seen

    seen = asyncio.run(scenario())
    assert [event["seq"] for event in seen] == list(range(1, head(match) + 1))
    # The first failure pauses publishing, so the next appends do not wait for Redis's timeout.
    assert feed._publish_paused_until > time.monotonic()
