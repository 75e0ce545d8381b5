"""What the operations page remembers that no table holds: the last answer of each read-model check
(`replay_matches`, `rebuild_tournaments`, `rebuild_ratings`, wherever they ran) and the Celery tasks
that failed.

Tasks keep no results (CELERY_TASK_IGNORE_RESULT), so no result backend stores failures: Celery's
`task_failure` signal, in the worker, records each one here. Both records live in the `ops` cache
(settings.CACHES): Redis when the service has one, else files under var/, so the web process reads what
a worker or a command wrote. They are a recent window, not a history: the last FAILURES_KEPT failures
and a running count (a failure recorded by two workers at the same instant may drop one from the
window; the count, an atomic increment, keeps both).

`ops_checks_run` is the Celery task behind the page's "re-run the checks" button: it runs the same
commands an operator runs, which record their answers through `core.checks.read_model_checked`.
"""

from __future__ import annotations

import io
from datetime import datetime
from typing import Any

from celery import shared_task
from celery.signals import task_failure
from django.conf import settings
from django.core.cache import BaseCache, caches
from django.core.management import call_command
from django.core.management.base import CommandError
from django.dispatch import receiver
from django.utils import timezone

from core.checks import read_model_checked

CHECKS = ("replay_matches", "rebuild_tournaments", "rebuild_ratings")
FAILURES_KEPT = 50
PROBLEMS_KEPT = 20
KEPT_SECONDS = 30 * 24 * 3600
_FAILURES = "ops:task-failures"
_FAILURE_COUNT = "ops:task-failure-count"


def ops_cache() -> BaseCache:
    return caches["ops"] if "ops" in settings.CACHES else caches["default"]


def _check_key(check: str) -> str:
    return f"ops:check:{check}"


def check_result_record(
    *, check: str, ok: bool, summary: str, problems: list[str], at: datetime | None = None
) -> None:
    ops_cache().set(
        _check_key(check),
        {
            "check": check,
            "ok": bool(ok),
            "summary": str(summary)[:300],
            "problems": [str(line)[:300] for line in problems[:PROBLEMS_KEPT]],
            "problem_count": len(problems),
            "at": (at or timezone.now()).isoformat(),
        },
        KEPT_SECONDS,
    )


def check_queued_record(*, checks: list[str], by: str) -> None:
    ops_cache().set(
        "ops:checks-queued", {"checks": checks, "by": by, "at": timezone.now().isoformat()}, KEPT_SECONDS
    )


def check_results() -> list[dict[str, Any]]:
    """The last answer of each check, or a row saying it has not run (since the records began)."""
    stored = ops_cache().get_many([_check_key(check) for check in CHECKS])
    return [stored.get(_check_key(check)) or {"check": check, "ok": None} for check in CHECKS]


def checks_queued() -> dict[str, Any] | None:
    return ops_cache().get("ops:checks-queued")


@receiver(read_model_checked, dispatch_uid="snakepit.ops.check_recorded")
def _check_recorded(sender, *, check: str, ok: bool, summary: str, problems: list[str], **_) -> None:
    check_result_record(check=check, ok=ok, summary=summary, problems=list(problems))


def task_failure_record(*, task: str, task_id: str, error: str, at: datetime | None = None) -> None:
    cache = ops_cache()
    failures = cache.get(_FAILURES) or []
    failures.insert(
        0,
        {
            "task": task[:200],
            "id": str(task_id)[:64],
            "error": error[:500],
            "at": (at or timezone.now()).isoformat(),
        },
    )
    cache.set(_FAILURES, failures[:FAILURES_KEPT], KEPT_SECONDS)
    try:
        cache.incr(_FAILURE_COUNT)
    except ValueError:  # the first one since the records began
        cache.set(_FAILURE_COUNT, 1, KEPT_SECONDS)


def task_failures() -> tuple[int, list[dict[str, Any]]]:
    """How many tasks failed since the records began, and the latest of them, newest first."""
    cache = ops_cache()
    return int(cache.get(_FAILURE_COUNT) or 0), list(cache.get(_FAILURES) or [])


@task_failure.connect(dispatch_uid="snakepit.ops.task_failed")
def _task_failed(sender=None, task_id=None, exception=None, **_) -> None:
    name = getattr(sender, "name", None) or str(sender)
    task_failure_record(task=name, task_id=task_id or "", error=f"{type(exception).__name__}: {exception}")


@shared_task(acks_late=True)
def ops_checks_run(*, checks: list[str] | None = None) -> dict[str, bool]:
    """Run the named read-model checks (all by default) as their commands do; each records its answer."""
    answers = {}
    for check in checks or CHECKS:
        if check not in CHECKS:
            continue
        try:
            call_command(check, stdout=io.StringIO(), stderr=io.StringIO())
            answers[check] = True
        except CommandError:
            answers[check] = False
    return answers
