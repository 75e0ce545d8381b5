"""Every write that changes what a ladder's leaderboard shows announces the ladder's topic once it
has committed (ratings/feed.py), so its streams (api/snapshot_streams.py) read it again at once."""

from __future__ import annotations

import random

import pytest

from ratings import feed, services, tasks
from ratings.rate import ladder_ratings_apply
from ratings.rounds import ladder_round_create
from ratings.seasons import ladder_season_close

pytestmark = pytest.mark.django_db


@pytest.fixture
def announced(monkeypatch):
    topics: list[str] = []
    monkeypatch.setattr(feed, "feed_publish", lambda topic, seq: topics.append(topic))
    return topics


def test_joining_seating_rating_pausing_resuming_leaving_and_a_new_season_each_announce(
    announced, users, eager_celery, django_capture_on_commit_callbacks, monkeypatch
):
    ladder = services.ladder_create(
        game_key="rat-snake", name="Fed", slug="fed", seats_per_match=2, options={"passes": 1}
    )
    topic = f"ladder:{ladder.pk}"

    def announces(write) -> None:
        announced.clear()
        with django_capture_on_commit_callbacks(execute=True):
            write()
        assert topic in announced, write

    announces(lambda: services.ladder_join(ladder=ladder, bot="random"))
    announces(lambda: services.ladder_join(ladder=ladder, user=users["alice"]))
    # Rated below, by hand: the finished matches' own rating task is kept from running first.
    monkeypatch.setattr(tasks.ladder_ratings_apply, "delay", lambda ladder_id: None)
    announces(lambda: services.ladder_join(ladder=ladder, bot="heuristic"))
    entry = ladder.entries.get(user=users["alice"])
    announces(lambda: services.entry_pause(entry_id=entry.pk, reason="operator"))
    announces(lambda: services.entry_resume(entry_id=entry.pk))
    announces(lambda: services.ladder_leave(ladder=ladder, user=users["alice"]))
    announces(lambda: ladder_round_create(ladder_id=ladder.pk, rng=random.Random(1)))
    announces(lambda: ladder_ratings_apply(ladder_id=ladder.pk))
    announces(lambda: ladder_season_close(ladder_id=ladder.pk))
    # Nothing is announced for a write that changes nothing.
    announced.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert ladder_ratings_apply(ladder_id=ladder.pk) == 0
    assert announced == []
