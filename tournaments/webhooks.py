"""Webhooks: an organiser's URLs that receive signed JSON when a round is paired, a result is
reported, a dispute opens or the tournament finishes.

Each delivery is a row written in the same transaction as the event it tells of, and sent by the
Celery task below once that transaction commits, retried with exponential backoff; its status,
attempts and last error stay visible to the organiser. The body is signed with HMAC-SHA256 under
the webhook's own secret (shown once, when it is registered), over `"{timestamp}.{body}"`:

    X-Snakepit-Timestamp: 1764153600
    X-Snakepit-Signature: sha256=<hex digest>

A receiver recomputes the digest and refuses a timestamp too far from its clock (replays).
Secure by default: a URL whose host resolves to any private, loopback or link-local address is
refused at delivery unless the setting SNAKEPIT_WEBHOOKS_ALLOW_PRIVATE is true (tests, a LAN); the
request goes through `core.outbound`, to the address that was checked (no second lookup that DNS
rebinding could answer differently), and redirects are not followed.
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import json
import secrets
import time
from typing import Any
from urllib.parse import urlsplit

from celery import shared_task
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core.errors import Forbidden, Rejected
from core.outbound import OutboundRefused, outbound_open
from tournaments.models import Tournament, TournamentWebhook, TournamentWebhookDelivery
from tournaments.selectors import tournament_get

EVENTS = tuple(TournamentWebhook.Event.values)
WEBHOOKS_PER_TOURNAMENT = 5
TIMEOUT_SECONDS = 5
MAX_ATTEMPTS = 6  # the first try and five retries: 10 s, 20 s, 40 s, 80 s, 160 s after a failure
BACKOFF_SECONDS = 10


def webhook_signature(*, secret: str, timestamp: int, body: bytes) -> str:
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"sha256={mac.hexdigest()}"


@transaction.atomic
def tournament_webhook_add(*, slug: str, user, url: str, events: list[str]) -> TournamentWebhook:
    """Register `url` for `events` (all of them when empty), under the tournament's lock so that two
    registrations cannot pass the limit together."""
    tournament = tournament_get(slug=slug, for_update=True)
    if not (user.is_staff or tournament.organiser_id == user.pk):
        raise Forbidden(
            "only the organiser (or staff) manages this tournament", code="tournament/not_organiser"
        )
    unknown = sorted(set(events) - set(EVENTS))
    if unknown:
        raise Rejected(
            f"unknown webhook events {unknown}; known: {', '.join(EVENTS)}", code="webhook/unknown_event"
        )
    if urlsplit(url).scheme not in ("http", "https"):
        raise Rejected("a webhook URL is http or https", code="webhook/bad_url")
    if tournament.webhooks.count() >= WEBHOOKS_PER_TOURNAMENT:
        raise Rejected(f"at most {WEBHOOKS_PER_TOURNAMENT} webhooks per tournament", code="webhook/too_many")
    return TournamentWebhook.objects.create(
        tournament=tournament, url=url, events=sorted(set(events)), secret=secrets.token_hex(32)
    )


def webhooks_notify(
    tournament: Tournament, event: str, data: dict[str, Any]
) -> list[TournamentWebhookDelivery]:
    """A delivery per webhook that wants `event`, sent once the current transaction commits."""
    deliveries = []
    for webhook in tournament.webhooks.all():
        if not webhook.wants(event):
            continue
        payload = {
            "event": event,
            "tournament": tournament.slug,
            "sent_for": timezone.now().isoformat(),
            "data": data,
        }
        delivery = TournamentWebhookDelivery.objects.create(
            webhook=webhook, event=event, payload=json.loads(json.dumps(payload))
        )
        transaction.on_commit(lambda pk=delivery.pk: tournament_webhook_deliver.delay(pk))
        deliveries.append(delivery)
    return deliveries


_REFUSALS = {
    "outbound/not_public": "the URL's host is not a public address",
    "outbound/unresolvable": "the URL's host does not resolve",
}


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
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "Snakepit-Webhooks/1",
        "X-Snakepit-Event": delivery.event,
        "X-Snakepit-Delivery": str(delivery.pk),
        "X-Snakepit-Timestamp": str(timestamp),
        "X-Snakepit-Signature": webhook_signature(secret=webhook.secret, timestamp=timestamp, body=body),
    }
    allow_private = getattr(settings, "SNAKEPIT_WEBHOOKS_ALLOW_PRIVATE", False)
    try:
        connection = outbound_open(webhook.url, timeout=TIMEOUT_SECONDS, allow_private=allow_private)
        try:
            connection.request("POST", connection.target.path, body=body, headers=headers)
            status = connection.getresponse().status
        finally:
            connection.close()
    except OutboundRefused as refusal:
        # The sentences organisers saw before core.outbound, which tooling may match on.
        error = _REFUSALS.get(refusal.code, refusal.detail)
    except (OSError, http.client.HTTPException) as failure:
        error = (str(failure) or type(failure).__name__)[:300]
    else:
        if not 200 <= status < 300:
            error = f"HTTP {status}"  # a 3xx too: followed, it could lead to a private address
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
    if TournamentWebhookDelivery.objects.filter(
        pk=delivery_id, status=TournamentWebhookDelivery.Status.PENDING
    ).exists():
        raise self.retry(countdown=BACKOFF_SECONDS * 2**self.request.retries)
    return False
