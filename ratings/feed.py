"""Who is told that a ladder's leaderboard may have changed (ratings applied, a round seated, an
entry joined, left, paused or resumed): the ladder streams' topic on the one fan-out every stream
shares (core/feed.py), announced once the write has committed."""

from __future__ import annotations

from functools import partial

from django.db import transaction

from core.feed import feed_publish


def ladder_topic(ladder_id: int) -> str:
    return f"ladder:{ladder_id}"


def ladder_feed_publish_on_commit(*, ladder_id: int) -> None:
    """A ladder has no log, so no seq: the stream compares what it reads with what it last sent."""
    transaction.on_commit(partial(feed_publish, ladder_topic(ladder_id), None))
