"""core/read_cache.py: bounded in entries and bytes, least recently used out first, and a value that
time alone makes untrue is built again once it expires."""

from __future__ import annotations

import time

from core.read_cache import Built, ReadCache


def builder(value, size=1, expires_at=None):
    calls = []

    def build():
        calls.append(value)
        return Built(value, size, expires_at)

    return build, calls


def test_a_kept_value_is_not_built_again_and_the_least_recently_used_goes_first():
    cache = ReadCache(max_entries=2, max_bytes=100)
    build_a, built_a = builder("a")
    assert cache.get_or_build("a", build_a) == "a"
    assert cache.get_or_build("a", build_a) == "a" and built_a == ["a"]
    cache.get_or_build("b", builder("b")[0])
    cache.get_or_build("a", build_a)  # a is now the most recently used
    cache.get_or_build("c", builder("c")[0])
    assert len(cache) == 2
    build_b, built_b = builder("b")
    cache.get_or_build("b", build_b)
    assert built_b == ["b"]  # b went out, not a
    assert built_a == ["a"]


def test_bytes_are_bounded_and_a_value_bigger_than_the_bound_is_never_kept():
    cache = ReadCache(max_entries=100, max_bytes=10)
    for key in range(5):
        cache.get_or_build(key, builder(key, size=4)[0])
    assert cache.bytes <= 10 and len(cache) == 2
    build, built = builder("huge", size=11)
    assert cache.get_or_build("huge", build) == "huge"
    cache.get_or_build("huge", build)
    assert built == ["huge", "huge"] and cache.bytes <= 10


def test_an_expired_value_is_built_again():
    cache = ReadCache(max_entries=10, max_bytes=100)
    build, built = builder("old", expires_at=time.time() - 1)
    cache.get_or_build("k", build)
    cache.get_or_build("k", build)
    assert built == ["old", "old"] and cache.bytes == 1
    lasting, built_lasting = builder("new", expires_at=time.time() + 60)
    cache.get_or_build("j", lasting)
    cache.get_or_build("j", lasting)
    assert built_lasting == ["new"]
