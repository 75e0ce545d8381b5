"""The streams of one match share one reader (api/streams.py, `MatchHub`): a spectator and a seated
player following the same match each receive exactly their own listing as moves arrive, with nothing
skipped or repeated; a stream that joins late or falls behind reads the log itself and rejoins; and
the hub reads the log once per append, however many streams follow it."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import sync_to_async
from django.test import AsyncClient

from api import streams
from engines.registry import default_bot, game_keys, get_game
from matches.selectors import match_event_listing
from matches.services import SeatSpec, match_create
from tests.api.test_streams import head, open_stream, person_seat, play, rat_snake_against_a_bot

pytestmark = pytest.mark.django_db(transaction=True)

MOVES = 6


def compared(events: list[dict]) -> list[tuple]:
    return [(event["seq"], event["payload"], event["redacted"], event["describe"]) for event in events]


@pytest.mark.parametrize("key", game_keys())
def test_a_seat_and_a_spectator_on_one_hub_each_get_exactly_their_own_listing(
    key, users, settings, monkeypatch
):
    settings.SNAKEPIT_STREAM_POLL_SECONDS = 60  # only the announcements drive the hub
    own_reads = []
    own_read = streams._read
    monkeypatch.setattr(streams, "_read", lambda *args: own_reads.append(args) or own_read(*args))
    alice = users["alice"]
    game = get_game(key)
    bots = [SeatSpec(bot=default_bot(key))] * max(game.spec.min_players - 1, 1)
    match = match_create(game_key=key, seats=[person_seat(key, alice), *bots], seed=bytes(32))

    async def follow(stream, seen: list[dict], until: int) -> None:
        while not seen or seen[-1]["seq"] < until:
            more, view = await stream.until_view(timeout=10)
            seen += more
            assert view["seq"] >= seen[-1]["seq"]

    async def scenario():
        player_client = AsyncClient()
        await sync_to_async(player_client.force_login)(alice)
        spectator = await open_stream(AsyncClient(), match)
        player = await open_stream(player_client, match, query="?seat=0")
        seen = {"spectator": [], "player": []}
        await follow(spectator, seen["spectator"], await sync_to_async(head)(match))
        await follow(player, seen["player"], await sync_to_async(head)(match))
        checked = 0
        for _ in range(MOVES):
            if not await sync_to_async(play)(match, alice):
                break
            await sync_to_async(match.refresh_from_db)()
            if match.status != "running":
                break  # the last batch reveals everything: compared only while secrets are kept
            now = await sync_to_async(head)(match)
            await follow(spectator, seen["spectator"], now)
            await follow(player, seen["player"], now)
            listings = await sync_to_async(
                lambda: (
                    match_event_listing(match, viewer_seat=None),
                    match_event_listing(match, viewer_seat=0),
                )
            )()
            assert compared(seen["spectator"]) == compared(listings[0])
            assert compared(seen["player"]) == compared(listings[1])
            checked += 1
        return checked

    assert asyncio.run(scenario()) >= 1, "no move was checked while the match ran"
    # Each stream read the log itself once, on joining; every move after came through the hub.
    assert len(own_reads) == 2, own_reads


def test_a_stream_that_falls_behind_reads_the_log_and_misses_nothing(users, settings, monkeypatch):
    settings.SNAKEPIT_STREAM_POLL_SECONDS = 60
    monkeypatch.setattr(streams, "LISTENER_BACKLOG", 1)
    alice = users["alice"]
    match = rat_snake_against_a_bot(alice)

    async def scenario():
        slow = await open_stream(AsyncClient(), match)
        seen, _ = await slow.until_view()
        # Several moves handed to the hub while this stream reads nothing: its backlog overflows.
        moves = 0
        for _ in range(4):
            moves += await sync_to_async(play)(match, alice)
            await asyncio.sleep(0.2)
        assert moves >= 2
        target = await sync_to_async(head)(match)
        while seen[-1]["seq"] < target:
            more, _ = await slow.until_view(timeout=10)
            seen += more
        return seen

    seen = asyncio.run(scenario())
    assert [event["seq"] for event in seen] == list(range(1, head(match) + 1))


def test_streams_of_one_match_share_one_read_of_each_append(users, settings, monkeypatch):
    settings.SNAKEPIT_STREAM_POLL_SECONDS = 60
    alice = users["alice"]
    match = rat_snake_against_a_bot(alice)
    reads = []
    hub_read = streams._hub_read

    def counted(*args):
        reads.append(args)
        return hub_read(*args)

    monkeypatch.setattr(streams, "_hub_read", counted)

    async def scenario():
        followers = [await open_stream(AsyncClient(), match) for _ in range(20)]
        for follower in followers:
            await follower.until_view()
        assert await sync_to_async(play)(match, alice)
        for follower in followers:
            await follower.until_view(timeout=10)

    asyncio.run(scenario())
    # One append (the move and the bot's answer, written in one statement): one read for all 20.
    assert len(reads) == 1, reads
