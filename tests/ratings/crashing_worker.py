"""A real Celery worker that dies, once, at a chosen point between a ladder match's last event and
its rating's commit: `python -m tests.ratings.crashing_worker <point> <marker file>`.

The process ends with `os._exit`, as a SIGKILL or a lost machine would end it: no `finally`, no
acknowledgement, no rollback but the database's own. The marker file records that it died there (a
second worker started from this module would run normally). Points:

- `finished`: the match's last events are committed; the `match_finished` receivers never run.
- `queued`: the rating run is queued; the worker dies before taking it.
- `rating`: inside the rating transaction, its rows written but not committed.
- `rated`: the rating is committed; the task is not acknowledged.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

POINTS = ("finished", "queued", "rating", "rated")


def _die_once(marker: Path, point: str) -> None:
    if not marker.exists():
        marker.write_text(point)
        os._exit(70)


def _install(point: str, marker: Path) -> None:
    from matches.signals import match_finished
    from ratings import rate, tasks

    if point == "finished":
        send = match_finished.send

        def finished_then_die(*args, **kwargs):
            _die_once(marker, point)
            return send(*args, **kwargs)

        match_finished.send = finished_then_die
    elif point == "queued":
        delay = tasks.ladder_ratings_apply.delay

        def queued_then_die(*args, **kwargs):
            result = delay(*args, **kwargs)
            _die_once(marker, point)
            return result

        tasks.ladder_ratings_apply.delay = queued_then_die
    elif point == "rating":
        save = rate.entries_ratings_save

        def die_before_commit(entries):
            save(entries)
            _die_once(marker, point)

        rate.entries_ratings_save = die_before_commit
    elif point == "rated":
        apply = rate.ladder_ratings_apply

        def die_after_commit(**kwargs):
            rated = apply(**kwargs)
            _die_once(marker, point)
            return rated

        rate.ladder_ratings_apply = die_after_commit
    else:
        raise SystemExit(f"the point is one of {', '.join(POINTS)}")


def main() -> None:
    point, marker = sys.argv[1], Path(sys.argv[2])
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "snakepit.settings")
    import django

    django.setup()
    from snakepit.celery import app

    _install(point, marker)
    app.worker_main(
        [
            "worker",
            "--loglevel=INFO",
            "--pool=solo",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ]
    )


if __name__ == "__main__":
    main()
