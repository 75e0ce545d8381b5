"""Print the service's performance figures (never asserts; see snakepit/bench.py)."""

from __future__ import annotations

from django.core.management.base import BaseCommand
from django.db import connection
from tqdm import tqdm

from snakepit import bench


class Command(BaseCommand):
    help = "Measure engines, replay and the event store; print figures."

    def add_arguments(self, parser):
        parser.add_argument("--seconds", type=float, default=bench.BENCH_SECONDS, help="Time per figure.")
        parser.add_argument("--skip-store", action="store_true", help="Skip the database figures.")

    def handle(self, *args, seconds: float, skip_store: bool, **_):
        bench.BENCH_SECONDS = seconds
        sections = [
            ("engines", bench.engine_figures),
            ("decks", bench.deck_figures),
            ("ratings", bench.rating_figures),
            ("tournaments", bench.tournament_figures),
        ]
        if not skip_store:
            sections.append(("store", self._store_figures))
        rows = []
        for _, measure in tqdm(sections, desc="Benchmarking", unit="section"):
            rows.extend(measure())
        width = max(len(name) for name, _, _ in rows)
        self.stdout.write(f"\n{'figure':<{width}}  {'value':>12}  unit")
        for name, value, unit in rows:
            shown = f"{value:>12.3f}" if unit == "s" else f"{value:>12,.0f}"
            self.stdout.write(f"{name:<{width}}  {shown}  {unit}")

    def _store_figures(self):
        # The store figures write real matches, so they run in a throwaway test database of the same
        # kind as the configured one (PostgreSQL or SQLite) and leave the real one untouched.
        old_name = connection.settings_dict["NAME"]
        connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
        try:
            return bench.store_figures() + bench.worker_figures()
        finally:
            connection.creation.destroy_test_db(old_name, verbosity=0)

