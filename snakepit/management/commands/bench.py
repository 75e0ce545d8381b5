"""Print the service's performance figures (never asserts; see snakepit/bench/)."""

from __future__ import annotations

import json
import sys
from importlib import import_module

from django.core.management.base import BaseCommand
from tqdm import tqdm

import snakepit.bench
from snakepit.bench.isolation import throwaway_database

# Areas in the order they run; those that read or write a database run inside the throwaway one (a
# deck check through the API reads the ban lists in effect).
PURE_AREAS = ("engines",)
WRITING_AREAS = ("decks", "ratings", "tournaments", "store", "workers", "http", "feed")


class Command(BaseCommand):
    help = (
        "Measure engines, replay, the event store, workers, tournaments, ratings, HTTP and the match "
        "feed; print figures."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--seconds", type=float, default=snakepit.bench.BENCH_SECONDS, help="Time per figure."
        )
        parser.add_argument(
            "--skip-store", action="store_true", help="Skip the figures that need a database."
        )
        parser.add_argument("--only", nargs="+", choices=PURE_AREAS + WRITING_AREAS, help="Only these areas.")
        parser.add_argument(
            "--json", action="store_true", help="Print one JSON object {key: value} (progress on stderr)."
        )

    def handle(self, *args, seconds: float, skip_store: bool, only: list[str] | None, json: bool, **_):
        snakepit.bench.BENCH_SECONDS = seconds
        pure = [area for area in PURE_AREAS if not only or area in only]
        writing = [] if skip_store else [area for area in WRITING_AREAS if not only or area in only]
        figures = []
        with tqdm(
            total=len(pure) + len(writing), desc="Benchmarking", unit="area", file=sys.stderr
        ) as progress:
            for area in pure:
                progress.set_postfix_str(area)
                figures.extend(import_module(f"snakepit.bench.{area}").figures())
                progress.update()
            if writing:
                with throwaway_database():
                    for area in writing:
                        progress.set_postfix_str(area)
                        figures.extend(import_module(f"snakepit.bench.{area}").figures())
                        progress.update()
        if json:
            self.stdout.write(_json_dumps({figure.key: figure.value for figure in figures}))
            return
        width = max(len(figure.label) for figure in figures)
        self.stdout.write(f"\n{'figure':<{width}}  {'value':>12}  unit  key")
        for figure in figures:
            shown = (
                f"{figure.value:>12.3f}" if figure.unit in ("s", "ratio", "ms") else f"{figure.value:>12,.0f}"
            )
            self.stdout.write(f"{figure.label:<{width}}  {shown}  {figure.unit}  {figure.key}")


def _json_dumps(value) -> str:
    return json.dumps(value, indent=2, sort_keys=True)
