"""Rag'n'Guns deck checks per second: the validator alone (engines/ragnguns/bench.py), then the same
decks POSTed as JSON to /api/ragnguns/deck-checks/ through Django's test Client, in process (parsing,
the view, serialising; no server, no socket). Neither writes; the API reads the ban lists in effect
once, then from the cache."""

from __future__ import annotations

import json

from django.conf import settings
from django.test import Client, override_settings

from engines.ragnguns.bench import deck_check_work, sample_decks
from snakepit.bench import Figure, rate


def figures() -> list[Figure]:
    rows = [
        Figure(
            "decks.validator_checks_per_s",
            "Rag'n'Guns: deck checks, validator only",
            rate(deck_check_work(100)),
            "checks/s",
        )
    ]
    bodies = [
        json.dumps({"format": key, "gunslinger": gunslinger, "cards": cards})
        for key, gunslinger, cards in sample_decks(100)
    ]
    client = Client()

    def post_all() -> int:
        for body in bodies:
            response = client.post("/api/ragnguns/deck-checks/", body, content_type="application/json")
            if response.status_code != 200:
                raise RuntimeError(f"deck check: HTTP {response.status_code}: {response.content[:200]!r}")
        return len(bodies)

    # The test Client calls itself "testserver"; a production ALLOWED_HOSTS may not list it.
    with override_settings(ALLOWED_HOSTS=[*settings.ALLOWED_HOSTS, "testserver"]):
        through_api = rate(post_all)
    rows.append(
        Figure(
            "decks.api_checks_per_s",
            "Rag'n'Guns: deck checks through the API (JSON, in-process)",
            through_api,
            "checks/s",
        )
    )
    return rows
