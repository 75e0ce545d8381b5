"""Ladders with real Celery processes: a worker killed mid-match loses nothing, and beat-scheduled
rounds are played and rated unattended. Under CI=true the broker is the real Redis, and the killed
worker's task comes back by Redis redelivery; on the filesystem broker (which cannot redeliver) the
stalled-match sweep brings it back."""

from __future__ import annotations

import random
import time
from datetime import timedelta

import pytest
from django.conf import settings

from engines.registry import bot_names, game_keys, get_game
from matches.models import Match
from matches.selectors import match_verify
from matches.tasks import matches_resume_stalled
from ratings import selectors, services
from ratings.models import RatedMatch, RatingChange
from ratings.rounds import ladder_round_create
from snakepit.processes import celery_process, private_broker, stop
from tests.games import TEST_GAMES
from tests.workers import wait_until

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_worker_killed_mid_match_leaves_a_log_the_next_worker_finishes_and_rates_once(tmp_path):
    ladder = services.ladder_create(
        game_key="rat-snake",
        name="Long",
        slug="long",
        seats_per_match=6,
        options={"passes": 6, "starting_purse": 5000, "side_bets": True},
    )
    for _ in range(6):
        services.ladder_join(ladder=ladder, bot="random")
    log = tmp_path / "worker.log"
    with private_broker(tmp_path) as env:
        env["SNAKEPIT_ADVANCE_CHUNK"] = "1"  # one committed event per transaction: a kill lands mid-match
        with celery_process("worker", env, log) as first:
            match = ladder_round_create(ladder_id=ladder.pk, rng=random.Random(7)).matches[0]
            _wait_for_events(match, 5, log)  # a whole match is about 100 events and well under a second
            stop(first)
        written = match.events.count()
        match.refresh_from_db()
        assert match.status == Match.Status.RUNNING, "the match must still be unfinished when its worker dies"
        with celery_process("worker", env, log):
            if settings.CELERY_BROKER_URL.startswith("filesystem://"):
                assert matches_resume_stalled(stalled_after=timedelta(0)) == [match.pk]
            wait_until(
                lambda: RatedMatch.objects.filter(match=match).exists(),
                timeout=120,
                what="the second worker to finish and rate the match",
                log=log,
            )
    match.refresh_from_db()
    total = match.events.count()
    assert match.is_finished and total > written
    assert list(match.events.order_by("seq").values_list("seq", flat=True)) == list(range(1, total + 1))
    assert match_verify(match).verified
    assert RatedMatch.objects.filter(match=match).count() == 1
    assert RatingChange.objects.filter(rated_match__match=match).count() == 6
    assert sorted(ladder.entries.values_list("games", flat=True)) == [1] * 6


def _wait_for_events(match, count: int, log) -> None:
    """Polled every 2 ms, not wait_until's 200 ms, so that the kill lands early in the match."""
    deadline = time.monotonic() + 60
    while match.events.count() < count:
        if time.monotonic() > deadline:
            raise AssertionError(f"the first worker never played\n{log.read_text(errors='replace')[-3000:]}")
        time.sleep(0.002)


def test_beat_schedules_rounds_of_every_game_that_a_worker_plays_and_rates(tmp_path):
    ladders = []
    # The workers are processes of their own, started as the service starts them, so they know the
    # shipped games only: the test-only ones (tests/games/) are registered in this process alone.
    for key in (key for key in game_keys() if key not in TEST_GAMES):
        seats = get_game(key).spec.min_players
        ladder = services.ladder_create(
            game_key=key,
            name=f"Quick {key}",
            slug=f"quick-{key}",
            seats_per_match=seats,
            options={"passes": 1} if key == "rat-snake" else None,
            round_interval_seconds=2,
        )
        for number in range(seats):
            services.ladder_join(ladder=ladder, bot=bot_names(key)[number % len(bot_names(key))])
        ladders.append(ladder)
    log = tmp_path / "celery.log"
    with (
        private_broker(tmp_path) as env,
        celery_process("worker", env, log),
        celery_process("beat", env, tmp_path / "beat.log"),
    ):
        for ladder in ladders:
            wait_until(
                lambda ladder=ladder: RatedMatch.objects.filter(ladder=ladder).count() >= 2,
                timeout=180,
                what=f"two scheduled rounds of {ladder.game} to be played and rated",
                log=log,
            )
    for ladder in ladders:
        board = selectors.leaderboard(ladder=ladder)
        assert all(row["games"] >= 2 for row in board), ladder.game
        assert selectors.ratings_rebuild(ladder=ladder).ok
