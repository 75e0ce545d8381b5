"""HTTP bots against a listener on 127.0.0.1: signed POSTs, answered in time or forfeited (never
retried): slow, garbage, an error status, and a server that refuses a wrong signature."""

from __future__ import annotations

import socket
import threading

import pytest
from django.contrib.auth import get_user_model

from bots.http import HttpBot
from bots.models import Bot, BotVersion
from bots.protocol import BotFault
from bots.services import bot_version_upload, bot_version_validate
from core.errors import Rejected
from matches.models import MatchEvent
from tests.bots.servers import BotServer

pytestmark = pytest.mark.django_db


@pytest.fixture
def bot_server(request):
    servers = []

    def start(behaviour: str) -> BotServer:
        server = BotServer(behaviour)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture
def http_settings(bot_settings):
    bot_settings.SNAKEPIT_BOTS_HTTP_ALLOW_PRIVATE = True
    return bot_settings


def register(server: BotServer, name: str, *, secret_known_to_server: bool = True) -> BotVersion:
    owner, _ = get_user_model().objects.get_or_create(username="author")
    url = f"http://127.0.0.1:{server.server_address[1]}/move"
    version = bot_version_upload(owner=owner, name=name, game_key="rat-snake", url=url)
    server.secret = version.bot.secret if secret_known_to_server else "not-the-bots-secret"
    return version


def test_a_signed_http_bot_passes_validation(bot_server, http_settings):
    server = bot_server("good")
    version = bot_version_validate(version_id=register(server, "web").pk)
    assert version.status == BotVersion.Status.PASSED, version.log
    assert server.requests > 0 and version.validation_match.is_finished


@pytest.mark.parametrize(
    ("behaviour", "secret_known", "reason", "said"),
    [
        ("slow", True, "timeout", "no answer within"),
        ("garbage", True, "garbage", "not a JSON line"),
        ("error", True, "crash", "HTTP 500"),
        ("good", False, "crash", "HTTP 401"),
    ],
)
def test_a_misbehaving_http_bot_forfeits_once_and_is_never_retried(
    bot_server, http_settings, behaviour, secret_known, reason, said
):
    server = bot_server(behaviour)
    version = bot_version_validate(
        version_id=register(server, behaviour, secret_known_to_server=secret_known).pk
    )
    assert version.status == BotVersion.Status.FAILED
    assert said in version.log
    forfeit = version.validation_match.events.get(kind=MatchEvent.Kind.FORFEIT)
    assert forfeit.payload["reason"].startswith(f"bot/{reason}: ")
    assert server.requests == 1  # the one decision it failed, never asked again


def test_private_addresses_are_refused_by_default(bot_server, bot_settings):
    server = bot_server("good")
    bot = HttpBot(url=f"http://127.0.0.1:{server.server_address[1]}/", secret="s")
    with pytest.raises(BotFault) as caught:
        bot.ask(b'{"legal_actions": []}\n', deadline_ms=500)
    assert caught.value.reason == "sandbox" and "not public" in caught.value.detail
    assert server.requests == 0


def test_a_host_with_a_public_and_a_private_address_is_refused(bot_settings, monkeypatch):
    """The first address public is not enough: every address the host has must be."""
    answer = [
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.216.34", 80)),
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.0.0.5", 80)),
    ]
    monkeypatch.setattr(socket, "getaddrinfo", lambda *args, **kwargs: answer)
    connects = []

    def connect(sock, sockaddr):  # never leave this machine, should the refusal regress
        connects.append(sockaddr)
        raise ConnectionRefusedError

    monkeypatch.setattr(socket.socket, "connect", connect)
    bot = HttpBot(url="http://mixed.example/move", secret="s")
    with pytest.raises(BotFault) as caught:
        bot.ask(b'{"legal_actions": []}\n', deadline_ms=500)
    assert caught.value.reason == "sandbox" and connects == []


def test_a_host_that_does_not_resolve_is_a_crash(bot_settings, monkeypatch):
    def unresolvable(*args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", unresolvable)
    with pytest.raises(BotFault) as caught:
        HttpBot(url="http://nowhere.example/move", secret="s").ask(b"{}\n", deadline_ms=500)
    assert caught.value.reason == "crash" and "does not resolve" in caught.value.detail


@pytest.mark.parametrize("url", ["ftp://example.com/", "http://user:pw@example.com/", "javascript:alert(1)"])
def test_bad_urls_are_refused_at_registration(url):
    owner = get_user_model().objects.create_user(username="author")
    with pytest.raises(Rejected):
        bot_version_upload(owner=owner, name="x", game_key="rat-snake", url=url)
    assert not Bot.objects.exists()
