"""Who is told that a match's log has grown: the match streams' topic ("match:<id>") on the one
fan-out every stream shares (core/feed.py says how it reaches other processes and what a lost
notification costs).

A stream that hears one reads the log after the last seq it sent (`matches.selectors.
match_event_listing`), as its viewer may read it, and also looks at the log's head every
`feed_poll_seconds()`: what is sent is decided by seq alone, so nothing is skipped or sent twice.
"""

from __future__ import annotations

from core.feed import Subscription, feed_poll_seconds, feed_publish

__all__ = ["MatchSubscription", "feed_poll_seconds", "match_feed_publish", "match_topic"]


def match_topic(match_id: int) -> str:
    return f"match:{match_id}"


def match_feed_publish(*, match_id: int, seq: int) -> None:
    """Announce that match `match_id`'s log reaches `seq` (called once the append has committed)."""
    feed_publish(match_topic(match_id), seq)


class MatchSubscription(Subscription):
    """A stream's ear on one match, registered before the stream first reads the log, so that an
    append committed between a read and the next wait is never missed:

        with MatchSubscription(match_id) as feed:
            while True:
                ...read and send the log after the last seq sent...
                await feed.wait(timeout=feed_poll_seconds())
    """

    def __init__(self, match_id: int) -> None:
        super().__init__(match_topic(match_id))
        self.match_id = match_id
