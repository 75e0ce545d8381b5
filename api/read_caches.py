"""The public reads this process keeps per version of their data (core/read_cache.py): the JSON
each would send, keyed by the version one cheap query reads before anything is built."""

from __future__ import annotations

import json

from rest_framework.renderers import JSONRenderer

from core.read_cache import Built, ReadCache

# A 32-player Swiss's standings are about 20 kB, a leaderboard page of 50 about 20 kB, a page of
# the ladder listing about 1 kB a ladder: room for the few hundred most read, at most 16 MB each.
STANDINGS = ReadCache(max_entries=256, max_bytes=16 * 2**20)
LEADERBOARDS = ReadCache(max_entries=256, max_bytes=16 * 2**20)
LADDER_LISTINGS = ReadCache(max_entries=64, max_bytes=8 * 2**20)


def json_built(data, *, expires_at: float | None = None) -> Built:
    """`data` as plain JSON values, sized as the JSON the bytes bound counts. Read back from its own
    JSON, so nothing kept holds a serializer (and through it the rows and the request it was built
    from); rendered again it gives the same bytes."""
    rendered = JSONRenderer().render(data)
    return Built(json.loads(rendered), len(rendered), expires_at)
