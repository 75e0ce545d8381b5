"""With Redis down (the cache and the broker pointed at a loopback port nothing listens on), writes
still land: signing in, creating matches and acting answer as usual, rate limits are counted in the
process and still refuse, a match that could not be handed to a worker is found by beat's sweep, and
a tournament's result that could not be queued is recorded by the sweep, and `/readyz` says what is
degraded."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from django.utils import timezone

from api.throttles import LOCAL_COUNTS
from matches import services
from matches.models import Match
from matches.selectors import matches_stalled
from snakepit.celery import app
from snakepit.processes import drop_broker_connections
from tournaments import services as tournaments
from tournaments import tasks as tournament_tasks
from tournaments.models import TournamentMatch

pytestmark = pytest.mark.django_db

NOTHING_LISTENS = "redis://127.0.0.1:1/0"  # port 1: the connection is refused at once


@pytest.fixture
def redis_down(settings):
    # Read before the settings change: the Celery app reads its configuration from them lazily.
    working = app.conf.broker_url
    settings.CACHES = {
        **settings.CACHES,
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": NOTHING_LISTENS,
            "OPTIONS": settings.REDIS_CACHE_OPTIONS,
        },
    }
    settings.CELERY_BROKER_URL = NOTHING_LISTENS
    settings.SNAKEPIT_RATES = {"sign_in": "3/min", "create": "4/min", "actions": "2/min"}
    drop_broker_connections(app)
    app.conf.broker_url = NOTHING_LISTENS
    LOCAL_COUNTS.clear()
    yield
    drop_broker_connections(app)
    app.conf.broker_url = working
    LOCAL_COUNTS.clear()


def test_sign_in_create_and_act_land_and_are_still_limited_with_redis_down(
    redis_down, users, client_for, caplog, django_capture_on_commit_callbacks
):
    caplog.set_level(logging.WARNING)
    anonymous = client_for()
    signed_in = anonymous.post("/api/auth/token/", {"username": "alice", "password": "alice-password"})
    assert signed_in.status_code == 200 and signed_in.json()["token"]
    assert "rate limits are counted in this process" in caplog.text

    alice = client_for(users["alice"])
    with django_capture_on_commit_callbacks(execute=True):
        # A match of bots only is handed to a worker once it commits: the broker refuses it.
        bots_only = alice.post(
            "/api/matches/", {"game": "rat-snake", "seats": [{"bot": "random"}] * 2}, format="json"
        )
        # Rag'n'Guns matches take the ban list in effect, which is kept in the cache.
        with_a_ban_list = alice.post(
            "/api/matches/", {"game": "ragnguns", "seats": [{"bot": "random"}] * 2}, format="json"
        )
        against_a_bot = alice.post(
            "/api/matches/",
            {"game": "rat-snake", "seats": [{"user": "alice"}, {"bot": "random"}]},
            format="json",
        )
    assert [bots_only.status_code, with_a_ban_list.status_code, against_a_bot.status_code] == [201] * 3
    assert "could not queue match" in caplog.text
    waiting = Match.objects.get(pk=bots_only.json()["id"])
    assert not waiting.events.exists()
    later = timezone.now() + timedelta(seconds=1)
    assert waiting.pk in matches_stalled(stalled_after=timedelta(0), now=later)  # the sweep's to queue

    # The actions go to a match of a fixed seed that lasts longer than three of alice's moves: the
    # one made above has a random seed, and a short game could end before the throttle is reached.
    match_id = services.match_create(
        game_key="rat-snake",
        seats=[services.SeatSpec(user=users["alice"]), services.SeatSpec(bot="heuristic")],
        seed=bytes(32),
    ).pk

    def act():
        view = alice.get(f"/api/matches/{match_id}/view/").json()
        assert view["status"] == "running" and view["legal_actions"], view
        return alice.post(
            f"/api/matches/{match_id}/actions/",
            {"expected_seq": view["seq"], "action": view["legal_actions"][0]},
            format="json",
        )

    for _ in range(2):
        acted = act()
        assert acted.status_code == 201, acted.content
        assert Match.objects.get(pk=match_id).events.filter(seq=acted.json()["event"]["seq"]).exists()
    refused = act()
    assert refused.status_code == 429, "the process-local count did not limit the third action"
    assert refused.json()["code"] == "request/throttled"


def test_readiness_says_what_is_degraded_with_redis_down(redis_down, client):
    response = client.get("/readyz")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "degraded"
    assert body["checks"] == {"database": "ok", "broker": "unavailable", "cache": "unavailable"}
    assert "rate limits are counted per process" in body["detail"]
    assert "127.0.0.1" not in response.content.decode()


def test_a_tournament_game_finished_with_the_broker_down_is_recorded_by_the_sweep(
    redis_down, users, caplog, django_capture_on_commit_callbacks
):
    alice, bob = users["alice"], users["bob"]
    tournament = tournaments.tournament_create(
        organiser=alice, name="Down", game_key="rat-snake", format="swiss"
    )
    tournaments.tournament_open(slug=tournament.slug, user=alice)
    for user in (alice, bob):
        tournaments.tournament_register(slug=tournament.slug, user=user)
    tournaments.tournament_start(slug=tournament.slug, user=alice)
    game = TournamentMatch.objects.filter(tournament=tournament).first().match
    seat = game.seats.get(user=alice).index
    with django_capture_on_commit_callbacks(execute=True):
        services.match_forfeit(match_id=game.pk, seat=seat, reason="resigned", user=alice)
    game.refresh_from_db()
    assert game.is_finished
    assert "tournament result; the sweep will" in caplog.text
    assert tournament_tasks.tournaments_record_missing() == 1
    assert tournament_tasks.tournaments_record_missing() == 0
