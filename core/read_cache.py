"""What a public read built for one version of its data, kept in this process for the next request
that finds the same version (issue #29: Django's query building and DRF's serializers cost more
than the database's own work, and most reads repeat one that nothing has changed since).

The caller puts the version in the key, read by one cheap query before building (a tournament's
head seq, a ladder's revision): a write moves it in its own transaction, so the next read's key
differs and nothing written is ever hidden. A value built from data newer than its key's version
is harmless: that key is never read again once the version has moved. Every cache is bounded in
entries and in bytes, least recently used first out; it lives in one process and is never shared."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

_every_cache: list[ReadCache] = []


def read_caches_clear() -> None:
    """Forget every kept read: the tests' database rolls back between tests and hands out the same
    ids and versions again, which a running service's database never does."""
    for cache in _every_cache:
        cache.clear()


@dataclass(frozen=True)
class Built:
    """A value as its builder made it: its size in bytes (as it is sent, about) and, for what time
    alone changes (an entry going inactive after so many days), when it stops being true (a
    `time.time()`; None: only a new version changes it)."""

    value: Any
    size: int
    expires_at: float | None = None


class ReadCache:
    def __init__(self, *, max_entries: int, max_bytes: int) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._entries: OrderedDict[Hashable, Built] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        _every_cache.append(self)

    def get_or_build(self, key: Hashable, build: Callable[[], Built]) -> Any:
        """The value kept for `key`, else `build()`'s, kept unless it alone outgrows the bounds. Two
        threads missing at once both build (the same value): no lock is held while building."""
        with self._lock:
            built = self._entries.get(key)
            if built is not None:
                if built.expires_at is None or time.time() < built.expires_at:
                    self._entries.move_to_end(key)
                    return built.value
                self._forget(key)
        built = build()
        if built.size <= self.max_bytes:
            with self._lock:
                if key in self._entries:
                    self._forget(key)
                self._entries[key] = built
                self._bytes += built.size
                while len(self._entries) > self.max_entries or self._bytes > self.max_bytes:
                    self._forget(next(iter(self._entries)))
        return built.value

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def bytes(self) -> int:
        return self._bytes

    def _forget(self, key: Hashable) -> None:
        self._bytes -= self._entries.pop(key).size
