"""The one call every write that changes what a ladder shows through its entries makes, in its own
transaction: the ladder's revision moves (the version the cached reads key on: api/read_caches.py,
snakepit/views.py), and its streams are told once the write commits (ratings/feed.py). A save of the
ladder itself moves the revision on its own (`Ladder.save`)."""

from __future__ import annotations

from django.db.models import F

from ratings.feed import ladder_feed_publish_on_commit
from ratings.models import Ladder


def ladder_changed(*, ladder_id: int) -> None:
    Ladder.objects.filter(pk=ladder_id).update(revision=F("revision") + 1)
    ladder_feed_publish_on_commit(ladder_id=ladder_id)
