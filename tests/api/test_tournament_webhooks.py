"""Webhooks: an organiser registers a URL; round paired, result reported, dispute opened and
tournament finished arrive as JSON signed with HMAC-SHA256 under the webhook's secret, delivered by
Celery with retries, each delivery visible with its status. The listener is a server this test opens
on 127.0.0.1."""

from __future__ import annotations

import hashlib
import hmac
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tournaments.models import TournamentWebhookDelivery
from tournaments.webhooks import MAX_ATTEMPTS, tournament_webhook_deliver, webhook_deliver_once

pytestmark = pytest.mark.django_db


class Listener:
    """An HTTP server on 127.0.0.1 that keeps what it receives and answers `statuses` in turn (then 200)."""

    def __init__(self, statuses=()):
        self.received: list[dict] = []
        self.statuses = list(statuses)
        listener = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                listener.received.append(
                    {"headers": {k.lower(): v for k, v in self.headers.items()}, "body": body}
                )
                self.send_response(listener.statuses.pop(0) if listener.statuses else 200)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def private_webhooks(settings):
    settings.SNAKEPIT_WEBHOOKS_ALLOW_PRIVATE = True


@pytest.fixture
def organiser(django_user_model, client_for):
    return client_for(django_user_model.objects.create_user("organiser"))


def post(client, path, body=None, status=(200, 201), capture=None):
    if capture is not None:
        with capture(execute=True):
            response = client.post(path, body or {}, format="json")
    else:
        response = client.post(path, body or {}, format="json")
    assert response.status_code in status, (path, response.status_code, response.content[:300])
    return response.json()


def verify(secret: str, received: dict) -> dict:
    """What a receiver does: recompute the signature over "{timestamp}.{body}" and compare."""
    timestamp = received["headers"]["x-snakepit-timestamp"]
    expected = (
        "sha256="
        + hmac.new(secret.encode(), f"{timestamp}.".encode() + received["body"], hashlib.sha256).hexdigest()
    )
    assert hmac.compare_digest(received["headers"]["x-snakepit-signature"], expected)
    assert abs(int(timestamp) - time.time()) < 60
    return json.loads(received["body"])


def test_signed_deliveries_for_every_event_visible_with_their_status(
    organiser,
    django_user_model,
    client_for,
    private_webhooks,
    eager_celery,
    django_capture_on_commit_callbacks,
):
    capture = django_capture_on_commit_callbacks
    slug = post(
        organiser,
        "/api/tournaments/",
        {"name": "Hooked", "game": "rat-snake", "format": "single_elimination", "result_mode": "table"},
    )["slug"]
    post(organiser, f"/api/tournaments/{slug}/open/")
    with Listener() as listener:
        hook = post(organiser, f"/api/tournaments/{slug}/webhooks/", {"url": listener.url}, status=(201,))
        secret = hook["secret"]
        assert len(secret) == 64
        assert "secret" not in organiser.get(f"/api/tournaments/{slug}/webhooks/").json()[0]  # shown once
        clients = {}
        for name in ("h1", "h2"):
            client = client_for(django_user_model.objects.create_user(name))
            clients[post(client, f"/api/tournaments/{slug}/register/")["player"]] = client
        post(organiser, f"/api/tournaments/{slug}/start/", capture=capture)
        table = organiser.get(f"/api/tournaments/{slug}/tables/").json()[0]
        key, (a, b) = table["match_key"], table["players"]
        post(clients[a], f"/api/tournaments/{slug}/tables/{key}/report/", {"ranks": [1, 2]}, capture=capture)
        post(clients[b], f"/api/tournaments/{slug}/tables/{key}/report/", {"ranks": [2, 1]}, capture=capture)
        post(
            organiser,
            f"/api/tournaments/{slug}/tables/{key}/correct/",
            {"ranks": [1, 2], "reason": "arbiter"},
            capture=capture,
        )
        post(organiser, f"/api/tournaments/{slug}/next-round/", capture=capture)
        bodies = [verify(secret, received) for received in listener.received]
    assert [body["event"] for body in bodies] == [
        "round_paired",
        "result_reported",
        "result_reported",
        "dispute_opened",
        "tournament_finished",
    ]
    assert all(body["tournament"] == slug for body in bodies)
    assert bodies[0]["data"]["tables"][0]["players"] == [a, b]
    assert bodies[3]["data"]["table"]["status"] == "disputed"
    assert [r["headers"]["x-snakepit-event"] for r in listener.received] == [body["event"] for body in bodies]
    deliveries = organiser.get(f"/api/tournaments/{slug}/webhooks/").json()[0]["deliveries"]
    assert len(deliveries) == 5 and {d["status"] for d in deliveries} == {"delivered"}
    assert {d["response_status"] for d in deliveries} == {200}
    outsider = client_for(django_user_model.objects.create_user("outsider"))
    assert outsider.get(f"/api/tournaments/{slug}/webhooks/").status_code == 403
    assert (
        post(outsider, f"/api/tournaments/{slug}/webhooks/", {"url": listener.url}, status=(403,))["code"]
        == "tournament/not_organiser"
    )


class RetryLater(Exception):
    pass


def test_a_failed_delivery_is_retried_with_backoff_and_then_given_up_visibly(
    organiser,
    django_user_model,
    client_for,
    private_webhooks,
    eager_celery,
    django_capture_on_commit_callbacks,
    monkeypatch,
):
    slug = post(
        organiser,
        "/api/tournaments/",
        {"name": "Flaky", "game": "rat-snake", "format": "swiss", "result_mode": "table"},
    )["slug"]
    post(organiser, f"/api/tournaments/{slug}/open/")
    for name in ("f1", "f2"):
        post(client_for(django_user_model.objects.create_user(name)), f"/api/tournaments/{slug}/register/")
    countdowns = []

    def retry(*, countdown):
        countdowns.append(countdown)
        raise RetryLater

    monkeypatch.setattr(tournament_webhook_deliver, "retry", retry)
    with Listener(statuses=[500, 503]) as listener:
        post(
            organiser,
            f"/api/tournaments/{slug}/webhooks/",
            {"url": listener.url, "events": ["round_paired"]},
            status=(201,),
        )
        with django_capture_on_commit_callbacks(execute=False):  # the worker's part is played below
            post(organiser, f"/api/tournaments/{slug}/start/")
        delivery = TournamentWebhookDelivery.objects.get()
        assert (delivery.status, delivery.attempts, listener.received) == ("pending", 0, [])
        for retries in (0, 1):  # what the worker runs: the first try, then the first retry
            with pytest.raises(RetryLater):
                tournament_webhook_deliver.apply(args=[delivery.pk], retries=retries, throw=True)
            delivery.refresh_from_db()
            assert delivery.status == "pending" and delivery.last_error == f"HTTP {(500, 503)[retries]}"
        assert countdowns == [10, 20]  # exponential backoff
        assert tournament_webhook_deliver.apply(args=[delivery.pk], retries=2).get() is True
        assert len(listener.received) == 3
    delivery.refresh_from_db()
    assert delivery.status == "delivered" and delivery.attempts == 3 and delivery.response_status == 200
    # A listener that never answers well: every attempt fails, and the delivery says so.
    with Listener(statuses=[500] * MAX_ATTEMPTS) as listener:
        failing = TournamentWebhookDelivery.objects.create(
            webhook=delivery.webhook, event="round_paired", payload={"event": "round_paired"}
        )
        delivery.webhook.url = listener.url
        delivery.webhook.save()
        for _ in range(MAX_ATTEMPTS):
            assert webhook_deliver_once(delivery_id=failing.pk) is False
    failing.refresh_from_db()
    assert (
        failing.status == "failed" and failing.attempts == MAX_ATTEMPTS and failing.last_error == "HTTP 500"
    )


def test_private_addresses_are_refused_by_default_and_bad_urls_at_registration(organiser, settings):
    settings.SNAKEPIT_WEBHOOKS_ALLOW_PRIVATE = False
    slug = post(organiser, "/api/tournaments/", {"name": "Safe", "game": "rat-snake", "format": "swiss"})[
        "slug"
    ]
    refused = post(
        organiser, f"/api/tournaments/{slug}/webhooks/", {"url": "ftp://example.org/x"}, status=(400, 422)
    )
    assert refused["code"] in ("request/invalid", "webhook/bad_url")
    refused = post(
        organiser,
        f"/api/tournaments/{slug}/webhooks/",
        {"url": "http://example.org/x", "events": ["everything"]},
        status=(400,),
    )
    assert refused["code"] == "request/invalid"
    hook = post(
        organiser, f"/api/tournaments/{slug}/webhooks/", {"url": "http://127.0.0.1:9/hook"}, status=(201,)
    )
    delivery = TournamentWebhookDelivery.objects.create(
        webhook_id=hook["id"], event="round_paired", payload={}
    )
    assert webhook_deliver_once(delivery_id=delivery.pk) is False
    delivery.refresh_from_db()
    assert (
        delivery.last_error == "the URL's host is not a public address" and delivery.response_status is None
    )


def test_a_redirect_is_a_failed_delivery_never_followed(organiser, private_webhooks):
    slug = post(organiser, "/api/tournaments/", {"name": "Moved", "game": "rat-snake", "format": "swiss"})[
        "slug"
    ]
    with Listener(statuses=[302]) as listener:
        hook = post(organiser, f"/api/tournaments/{slug}/webhooks/", {"url": listener.url}, status=(201,))
        delivery = TournamentWebhookDelivery.objects.create(
            webhook_id=hook["id"], event="round_paired", payload={}
        )
        assert webhook_deliver_once(delivery_id=delivery.pk) is False
        assert len(listener.received) == 1
    delivery.refresh_from_db()
    assert (
        delivery.status == "pending" and delivery.last_error == "HTTP 302" and delivery.response_status == 302
    )


def test_a_host_that_rebinds_to_loopback_is_refused_and_never_reached(organiser, settings, monkeypatch):
    """A DNS server answering a public address to one lookup and 127.0.0.1 to the next: each attempt
    looks up once and connects where that lookup said, so the loopback listener hears nothing."""
    settings.SNAKEPIT_WEBHOOKS_ALLOW_PRIVATE = False
    slug = post(organiser, "/api/tournaments/", {"name": "Rebound", "game": "rat-snake", "format": "swiss"})[
        "slug"
    ]
    with Listener() as listener:
        port = listener.server.server_address[1]
        lookups = []

        def getaddrinfo(host, *args, **kwargs):
            lookups.append(host)
            address = "93.184.216.34" if len(lookups) == 1 else "127.0.0.1"
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]

        connects = []
        real_connect = socket.socket.connect

        def connect(sock, sockaddr):
            connects.append(sockaddr)
            if sockaddr[0] != "127.0.0.1":  # never leave this machine
                raise ConnectionRefusedError("refused by the test")
            return real_connect(sock, sockaddr)

        monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
        monkeypatch.setattr(socket.socket, "connect", connect)
        hook = post(
            organiser,
            f"/api/tournaments/{slug}/webhooks/",
            {"url": f"http://rebind.example:{port}/hook"},
            status=(201,),
        )
        delivery = TournamentWebhookDelivery.objects.create(
            webhook_id=hook["id"], event="round_paired", payload={}
        )
        assert webhook_deliver_once(delivery_id=delivery.pk) is False  # public at the lookup: connected there
        delivery.refresh_from_db()
        assert delivery.last_error == "refused by the test" and connects == [("93.184.216.34", port)]
        for _ in range(MAX_ATTEMPTS - 1):  # loopback at every later lookup: refused before any connect
            assert webhook_deliver_once(delivery_id=delivery.pk) is False
        assert listener.received == [] and len(connects) == 1
    assert lookups == ["rebind.example"] * MAX_ATTEMPTS  # one lookup per attempt
    delivery.refresh_from_db()
    assert delivery.status == "failed" and delivery.response_status is None
    assert delivery.last_error == "the URL's host is not a public address"
