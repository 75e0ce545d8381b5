"""Health endpoints for load balancers, Compose and Kubernetes probes (deploy/README.md, "Health").

`/healthz` says the process answers: it touches nothing else, so a database outage does not get every
web process restarted (liveness). `/readyz` says this process can serve now (readiness; a balancer
sends no traffic until it is 200): the database answers a query (else 503), and whether the broker
accepts a connection and the cache answers. Without those two a web process still serves, degraded
(200, `"status": "degraded"`, saying what is): writes land, rate limits count per process
(api/throttles.py), and the tasks it could not queue are queued again by beat's sweeps once the
broker is back. A 503 for them would take every web process out of the balancer at once when Redis
restarts. Neither endpoint needs signing in, and neither says more than which check failed: the
reason goes to the log."""

from __future__ import annotations

import logging
import os

from django.conf import settings
from django.core.cache import caches
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

logger = logging.getLogger(__name__)

# Seconds a readiness check waits for the broker: well under a probe's own timeout.
BROKER_TIMEOUT_SECONDS = 2.0


def database_check() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


def broker_check() -> None:
    url = settings.CELERY_BROKER_URL
    if url.startswith("filesystem://"):
        folder = settings.CELERY_BROKER_TRANSPORT_OPTIONS["data_folder_in"]
        if not (os.path.isdir(folder) and os.access(folder, os.W_OK)):
            raise OSError(f"the broker folder {folder} is missing or not writable")
        return
    if url.startswith(("redis://", "rediss://")):
        import redis

        client = redis.Redis.from_url(
            url, socket_connect_timeout=BROKER_TIMEOUT_SECONDS, socket_timeout=BROKER_TIMEOUT_SECONDS
        )
        try:
            client.ping()
        finally:
            client.close()
        return
    from snakepit.celery import app

    with app.connection_for_write() as broker:
        broker.ensure_connection(max_retries=1, timeout=BROKER_TIMEOUT_SECONDS)


def cache_check() -> None:
    caches["default"].get("snakepit:readyz")


CHECKS = {"database": database_check, "broker": broker_check, "cache": cache_check}
# What a web process serves without, and how it is degraded then.
DEGRADED_WITHOUT = {
    "broker": "background tasks are queued again by the sweeps once the broker is back",
    "cache": "rate limits are counted per process",
}
# A worker or beat is no use without the broker: the shell check requires both (`main`).
PROCESS_CHECKS = ("database", "broker")


@never_cache
@require_safe
def healthz(request):
    return JsonResponse({"status": "alive"})


@never_cache
@require_safe
def readyz(request):
    results = {}
    for name, check in CHECKS.items():
        try:
            check()
        except Exception:  # any failure means not ready; the log keeps the reason
            logger.warning("readiness check %s failed", name, exc_info=True)
            results[name] = "unavailable"
        else:
            results[name] = "ok"
    failed = [name for name, result in results.items() if result != "ok"]
    if any(name not in DEGRADED_WITHOUT for name in failed):
        return JsonResponse(
            {"code": "health/not_ready", "detail": f"unavailable: {', '.join(failed)}", "checks": results},
            status=503,
        )
    if failed:
        detail = "; ".join(f"{name} unavailable: {DEGRADED_WITHOUT[name]}" for name in failed)
        return JsonResponse({"status": "degraded", "detail": detail, "checks": results})
    return JsonResponse({"status": "ready", "checks": results})


def main() -> int:
    """`python -m snakepit.health`: the readiness checks from a shell, for the probes of processes
    that answer no HTTP (a Celery worker, beat). Exit 0 when the database and the broker answer."""
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "snakepit.settings")
    django.setup()
    failed = []
    for name in PROCESS_CHECKS:
        try:
            CHECKS[name]()
        except Exception as error:  # noqa: BLE001 - any failure; the probe's output is the operator's
            failed.append(f"{name}: {type(error).__name__}: {error}")
    print("; ".join(failed) or "ready")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
