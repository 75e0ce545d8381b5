"""`manage.py bench --json` prints one object whose keys never change (docs/bench.md)."""

from __future__ import annotations

import json
from io import StringIO

from django.core.management import call_command

from engines.registry import game_keys


def test_bench_json_prints_the_engine_and_deck_figures_under_their_stable_keys():
    out = StringIO()
    call_command("bench", "--json", "--seconds", "0.05", "--only", "engines", "decks", stdout=out)
    figures = json.loads(out.getvalue())
    expected = {"decks.api_checks_per_s", "decks.validator_checks_per_s"}
    for key in game_keys():
        expected |= {f"engine.{key}.playouts_per_s", f"engine.{key}.replay_events_per_s"}
    assert expected <= set(figures)
    assert all(isinstance(value, float) and value > 0 for value in figures.values())
