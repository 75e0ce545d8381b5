"""Who is told that a tournament's log has grown: the tournament streams' topic on the one fan-out
every stream shares (core/feed.py), announced once each append has committed."""

from __future__ import annotations

from functools import partial

from django.db import transaction

from core.feed import feed_publish


def tournament_topic(tournament_id: int) -> str:
    return f"tournament:{tournament_id}"


def tournament_feed_publish_on_commit(*, tournament_id: int, seq: int) -> None:
    """Announce that the tournament's log reaches `seq` once the caller's transaction commits (at
    once outside one): a stream told before the commit would read the log without it."""
    transaction.on_commit(partial(feed_publish, tournament_topic(tournament_id), seq))
