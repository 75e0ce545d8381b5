"""What the shared cache (Redis in production) raises when it does not answer: down, restarting or
out of reach. Code that can do without the cache catches these and goes on (issue #29: degrade,
never 500): the rate limits count per process (api/throttles.py), the ban lists are read from the
database (decks/selectors.py), and `/readyz` reports the cache degraded (snakepit/health.py)."""

from __future__ import annotations

from redis.exceptions import RedisError

CACHE_UNAVAILABLE = (RedisError, OSError)
