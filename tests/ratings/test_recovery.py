"""Nothing lost, nothing twice, with real Celery processes: a worker killed at each point between a
ladder match's last event and its rating's commit, and a broker that is down when a match finishes,
and every finished ladder match ends up rated exactly once, by redelivery or by beat's sweep.

Under CI=true the broker is the real Redis, which redelivers an unacknowledged task (3 s here); the
filesystem broker cannot, and the sweep (`ratings.tasks.ladders_rate_missing`, run by beat every
minute inside `ladders_enforce_deadlines`) is what brings the rating back. The sweep is called here
where beat would call it, so the test does not wait a minute.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model

from matches.models import Match
from matches.selectors import match_verify
from matches.services import match_forfeit
from ratings import selectors, services, tasks
from ratings.models import LadderMatch, RatedMatch, RatingChange
from ratings.rounds import ladder_round_create
from snakepit.celery import app
from snakepit.processes import celery_process, drop_broker_connections, private_broker, stop
from tests.ratings.crashing_worker import POINTS
from tests.workers import wait_until

pytestmark = pytest.mark.django_db(transaction=True)


def bot_ladder(slug: str):
    ladder = services.ladder_create(
        game_key="rat-snake", name=slug, slug=slug, seats_per_match=2, options={"passes": 1}
    )
    for bot in ("random", "heuristic"):
        services.ladder_join(ladder=ladder, bot=bot)
    return ladder


def rated_exactly_once(ladder, match) -> None:
    assert RatedMatch.objects.filter(match=match).count() == 1
    assert RatingChange.objects.filter(rated_match__match=match).count() == match.seats.count()
    assert not LadderMatch.objects.filter(match=match, rated=False).exists()
    assert sorted(ladder.entries.values_list("games", flat=True)) == [1] * ladder.entries.count()
    assert selectors.ratings_rebuild(ladder=ladder).ok


@pytest.mark.parametrize("point", POINTS)
def test_a_worker_killed_between_the_last_event_and_the_rating_commit_loses_no_rating(point, tmp_path):
    ladder = bot_ladder(f"killed-{point}")
    log, marker = tmp_path / "worker.log", tmp_path / "died"
    with private_broker(tmp_path) as env:
        with open(log, "ab") as out:
            doomed = subprocess.Popen(
                [sys.executable, "-m", "tests.ratings.crashing_worker", point, str(marker)],
                cwd=settings.BASE_DIR,
                env={**os.environ, **env},
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        try:
            match = ladder_round_create(ladder_id=ladder.pk, rng=random.Random(3)).matches[0]
            wait_until(
                lambda: doomed.poll() is not None,
                timeout=120,
                what=f"the worker to die at {point!r}",
                log=log,
            )
        finally:
            stop(doomed)
        assert marker.read_text() == point, "the worker must die where the test says"
        match.refresh_from_db()
        assert match.is_finished, "every point lies after the match's last event"
        assert RatedMatch.objects.filter(match=match).count() == (1 if point == "rated" else 0)
        with celery_process("worker", env, log):
            tasks.ladders_rate_missing()  # what beat runs every minute
            wait_until(
                lambda: RatedMatch.objects.filter(match=match).exists(),
                timeout=120,
                what="the sweep's run to rate the match",
                log=log,
            )
            if not settings.CELERY_BROKER_URL.startswith("filesystem://"):
                time.sleep(
                    4
                )  # Redis redelivers the dead worker's task (3 s visibility): it must find nothing
            tasks.ladders_rate_missing()  # and a sweep after the rating finds nothing to queue
    match.refresh_from_db()
    assert match_verify(match).verified
    rated_exactly_once(ladder, match)


def test_a_match_finished_while_the_broker_is_down_is_rated_by_the_sweep_once(tmp_path):
    ladder = services.ladder_create(game_key="rat-snake", name="Down", slug="down", options={"passes": 1})
    person = get_user_model().objects.create_user("finisher")
    services.ladder_join(ladder=ladder, user=person)
    services.ladder_join(ladder=ladder, bot="heuristic")
    log = tmp_path / "worker.log"
    with private_broker(tmp_path) as env, celery_process("worker", env, log):
        match = ladder_round_create(ladder_id=ladder.pk, rng=random.Random(3)).matches[0]
        seat = match.seats.get(user=person).index
        wait_until(
            lambda: _person_is_due(match, seat),
            timeout=60,
            what="the bot to play up to the person's turn",
            log=log,
        )
        working = app.conf.broker_url
        drop_broker_connections(app)
        app.conf.broker_url = "redis://127.0.0.1:1/0"  # nothing listens there: every send fails
        try:
            match_forfeit(
                match_id=match.pk, seat=seat, reason="resigned", user=person
            )  # no error reaches the player
        finally:
            drop_broker_connections(app)
            app.conf.broker_url = working
        match.refresh_from_db()
        assert match.is_finished and not RatedMatch.objects.filter(match=match).exists()
        assert selectors.ladders_with_matches_to_rate() == [ladder.pk]
        assert tasks.ladders_rate_missing() == [ladder.pk]  # the broker is back: beat's sweep
        wait_until(
            lambda: RatedMatch.objects.filter(match=match).exists(),
            timeout=120,
            what="the sweep's run to rate the match",
            log=log,
        )
        assert tasks.ladders_rate_missing() == []
    assert match.outcome["ranks"][seat] == 2
    rated_exactly_once(ladder, match)


def _person_is_due(match: Match, seat: int) -> bool:
    from matches.selectors import match_game, match_snapshot

    match.refresh_from_db()
    return seat in match_game(match).decision(match_snapshot(match).state).seats


def test_the_sweep_is_on_beats_schedule():
    entry = settings.CELERY_BEAT_SCHEDULE["ladders-enforce-deadlines"]
    assert entry["task"] == "ratings.tasks.ladders_enforce_deadlines" and entry["schedule"] <= 60
