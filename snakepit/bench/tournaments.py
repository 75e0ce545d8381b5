"""Tournament figures: Swiss pairing of one round after three simulated rounds, and full standings,
at scale (the pure formats library); then a result report in a 1,000-player Swiss played at tables,
POSTed to the API through Django's test Client, in process (the view, the service, the projection
update; no server, no socket), in the bench's throwaway database."""

from __future__ import annotations

import statistics
import time

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.test import Client, override_settings

from snakepit.bench import Figure
from tournaments import services
from tournaments.formats.swiss import bench_swiss
from tournaments.formats.tiebreaks import bench_standings
from tournaments.models import Tournament


def figures() -> list[Figure]:
    rows = [
        Figure(
            f"tournament.swiss_pair_{players}_s",
            f"Swiss pairing, {players:,} players (one round after 3)",
            bench_swiss(players),
            "s",
        )
        for players in (100, 1_000, 10_000)
    ]
    rows.append(
        Figure(
            "tournament.standings_10000_s",
            "Standings with all tiebreaks, 10,000 players, 14 rounds",
            bench_standings(10_000),
            "s",
        )
    )
    rows.append(
        Figure(
            "tournament.report_1000_s",
            "Result report through the API, 1,000-player Swiss at tables (median)",
            report_seconds(1_000),
            "s",
        )
    )
    return rows


def swiss_at_tables(players: int, slug: str) -> Tournament:
    """A running Swiss of `players` people reporting at tables, round 1 paired. The users are
    bulk-created; registration, the start and the pairing go through the services."""
    User = get_user_model()
    password = make_password(None)  # unusable: nobody logs in with it
    User.objects.bulk_create(User(username=f"{slug}-{n}", password=password) for n in range(players))
    organiser = User.objects.create(username=f"{slug}-organiser", password=password)
    services.tournament_create(
        organiser=organiser,
        name=slug,
        slug=slug,
        game_key="rat-snake",
        format="swiss",
        result_mode="table",
        seeding="manual",
    )
    services.tournament_open(slug=slug, user=organiser)
    for user in User.objects.filter(username__startswith=f"{slug}-").exclude(pk=organiser.pk).order_by("pk"):
        services.tournament_register(slug=slug, user=user)
    return services.tournament_start(slug=slug, user=organiser)


def report_seconds(players: int, reports: int = 15) -> float:
    """Median seconds for one POST /api/tournaments/<slug>/tables/<key>/report/ by a table's first
    player, over `reports` different tables of round 1."""
    slug = f"bench-swiss-{players}-{time.monotonic_ns()}"
    tournament = swiss_at_tables(players, slug)
    entries = {entry.player: entry.user for entry in tournament.entries.select_related("user")}
    tables = list(tournament.tables.filter(round=1).order_by("match_key")[:reports])
    client = Client()
    timings = []
    # The test Client calls itself "testserver"; a production ALLOWED_HOSTS may not list it.
    with override_settings(ALLOWED_HOSTS=[*settings.ALLOWED_HOSTS, "testserver"]):
        for table in tables:
            client.force_login(entries[table.players[0]])
            started = time.perf_counter()
            response = client.post(
                f"/api/tournaments/{slug}/tables/{table.match_key}/report/",
                {"ranks": [1, 2]},
                content_type="application/json",
            )
            timings.append(time.perf_counter() - started)
            if response.status_code != 201:
                raise RuntimeError(f"report: HTTP {response.status_code}: {response.content[:200]!r}")
    return statistics.median(timings)
