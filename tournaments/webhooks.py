"""Webhooks: an organiser's URLs that receive signed JSON when a round is paired, a result is
reported, a dispute opens or the tournament finishes.

Each delivery is a row written in the same transaction as the event it tells of, and sent by the
Celery task below once that transaction commits, retried with exponential backoff; its status,
attempts and last error stay visible to the organiser. The body is signed with HMAC-SHA256 under
the webhook's own secret (shown once, when it is registered), over `"{timestamp}.{body}"`:

    X-Snakepit-Timestamp: 1764153600
    X-Snakepit-Signature: sha256=<hex digest>

A receiver recomputes the digest and refuses a timestamp too far from its clock (replays).
Secure by default: a URL whose host resolves to a private, loopback or link-local address is
refused at delivery unless the setting SNAKEPIT_WEBHOOKS_ALLOW_PRIVATE is true (tests, a LAN), and
redirects are not followed.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import secrets
import socket
import time
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from celery import shared_task
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core.errors import Forbidden, Rejected
from tournaments.models import Tournament, TournamentWebhook, TournamentWebhookDelivery

EVENTS = tuple(TournamentWebhook.Event.values)
WEBHOOKS_PER_TOURNAMENT = 5
TIMEOUT_SECONDS = 5
MAX_ATTEMPTS = 6  # the first try and five retries: 10 s, 20 s, 40 s, 80 s, 160 s after a failure
BACKOFF_SECONDS = 10


def webhook_signature(*, secret: str, timestamp: int, body: bytes) -> str:
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"sha256={mac.hexdigest()}"


def webhook_add(*, tournament: Tournament, user, url: str, events: list[str]) -> TournamentWebhook:
    """Register `url` for `events` (all of them when empty). The caller holds the tournament's lock."""
    if not (user.is_staff or tournament.organiser_id == user.pk):
        raise Forbidden("only the organiser (or staff) manages this tournament", code="tournament/not_organiser")
    unknown = sorted(set(events) - set(EVENTS))
    if unknown:
        raise Rejected(f"unknown webhook events {unknown}; known: {', '.join(EVENTS)}", code="webhook/unknown_event")
    if urlsplit(url).scheme not in ("http", "https"):
        raise Rejected("a webhook URL is http or https", code="webhook/bad_url")
    if tournament.webhooks.count() >= WEBHOOKS_PER_TOURNAMENT:
        raise Rejected(f"at most {WEBHOOKS_PER_TOURNAMENT} webhooks per tournament", code="webhook/too_many")
    return TournamentWebhook.objects.create(tournament=tournament, url=url, events=sorted(set(events)), secret=secrets.token_hex(32))


def webhooks_notify(tournament: Tournament, event: str, data: dict[str, Any]) -> list[TournamentWebhookDelivery]:
    """A delivery per webhook that wants `event`, sent once the current transaction commits."""
    deliveries = []
    for webhook in tournament.webhooks.all():
        if not webhook.wants(event):
            continue
        payload = {"event": event, "tournament": tournament.slug, "sent_for": timezone.now().isoformat(), "data": data}
        delivery = TournamentWebhookDelivery.objects.create(webhook=webhook, event=event, payload=json.loads(json.dumps(payload)))
        transaction.on_commit(lambda pk=delivery.pk: tournament_webhook_deliver.delay(pk))
        deliveries.append(delivery)
    return deliveries


def _host_allowed(url: str) -> bool:
    if getattr(settings, "SNAKEPIT_WEBHOOKS_ALLOW_PRIVATE", False):
        return True
    host = urlsplit(url).hostname or ""
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(host, None)}
    except OSError:
        return False
    return all(ipaddress.ip_address(address.split("%")[0]).is_global for address in addresses)


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is a failed delivery (HTTP 3xx), never followed: it could lead to a private address."""

    def redirect_request(self, *args, **kwargs):
        return None


_OPENER = urllib.request.build_opener(_NoRedirects)


def webhook_deliver_once(*, delivery_id: int) -> bool:
    """One attempt: True once delivered (now or before), False after a failure, recorded on the row."""
    delivery = TournamentWebhookDelivery.objects.select_related("webhook").get(pk=delivery_id)
    if delivery.status == TournamentWebhookDelivery.Status.DELIVERED:
        return True
    webhook = delivery.webhook
    body = json.dumps(delivery.payload, separators=(",", ":"), sort_keys=True).encode()
    timestamp = int(time.time())
    delivery.attempts += 1
    error, status = "", None
    if not _host_allowed(webhook.url):
        error = "the URL's host is not a public address"
    else:
        request = urllib.request.Request(
            webhook.url, data=body, method="POST",
            headers={
                "Content-Type": "application/json",
                "User-Agent": "Snakepit-Webhooks/1",
                "X-Snakepit-Event": delivery.event,
                "X-Snakepit-Delivery": str(delivery.pk),
                "X-Snakepit-Timestamp": str(timestamp),
                "X-Snakepit-Signature": webhook_signature(secret=webhook.secret, timestamp=timestamp, body=body),
            },
        )
        try:
            with _OPENER.open(request, timeout=TIMEOUT_SECONDS) as response:  # the scheme was checked at registration
                status = response.status
        except urllib.error.HTTPError as failure:
            status, error = failure.code, f"HTTP {failure.code}"
        except (urllib.error.URLError, OSError) as failure:
            error = str(getattr(failure, "reason", failure))[:300]
    delivery.response_status = status
    delivery.last_error = error
    if not error and status is not None and 200 <= status < 300:
        delivery.status = TournamentWebhookDelivery.Status.DELIVERED
        delivery.delivered_at = timezone.now()
    elif delivery.attempts >= MAX_ATTEMPTS:
        delivery.status = TournamentWebhookDelivery.Status.FAILED
    delivery.save(update_fields=["attempts", "response_status", "last_error", "status", "delivered_at"])
    return delivery.status == TournamentWebhookDelivery.Status.DELIVERED


@shared_task(bind=True, acks_late=True, max_retries=MAX_ATTEMPTS - 1)
def tournament_webhook_deliver(self, delivery_id: int) -> bool:
    """Send one delivery; a failure is retried after 10 s, 20 s, 40 s, ... until MAX_ATTEMPTS."""
    if webhook_deliver_once(delivery_id=delivery_id):
        return True
    if TournamentWebhookDelivery.objects.filter(pk=delivery_id, status=TournamentWebhookDelivery.Status.PENDING).exists():
        raise self.retry(countdown=BACKOFF_SECONDS * 2**self.request.retries)
    return False
