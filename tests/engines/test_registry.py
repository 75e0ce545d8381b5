"""The registry is the one place that names games and their bots, and test-only games join it from
the test suite alone (tests/games/)."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from setuptools import find_packages

from engines import registry
from engines.registry import bot_names, default_bot, game_keys, get_game, register_game
from tests.games import TEST_GAMES

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("key", game_keys())
def test_each_games_default_bot_is_one_of_its_bots_and_listed_first(key):
    assert default_bot(key) in get_game(key).bots()
    assert bot_names(key)[0] == default_bot(key) and sorted(bot_names(key)) == sorted(get_game(key).bots())


def test_the_test_only_game_has_only_the_random_bot():
    assert bot_names("cup-dice") == ["random"] and default_bot("cup-dice") == "random"


def test_registering_the_same_entry_twice_is_harmless_and_another_under_a_known_key_raises():
    register_game("cup-dice", TEST_GAMES["cup-dice"])
    with pytest.raises(ValueError, match="registered already"):
        register_game("cup-dice", "engines.ratsnake:GAME")
    assert get_game("cup-dice").spec.name == "Cup Dice"


def test_an_entry_whose_default_bot_the_game_lacks_is_refused_when_loaded(monkeypatch):
    monkeypatch.setitem(registry._ENGINES, "mislabelled", registry.Entry("tests.games.cup_dice:GAME"))
    with pytest.raises(ValueError, match="its key is 'cup-dice'"):
        get_game("mislabelled")
    monkeypatch.setitem(registry._ENGINES, "cup-dice", registry.Entry(TEST_GAMES["cup-dice"], "heuristic"))
    monkeypatch.delitem(registry._loaded, "cup-dice", raising=False)
    with pytest.raises(ValueError, match="default bot 'heuristic'"):
        get_game("cup-dice")


def test_the_service_started_on_its_own_lists_no_test_only_game():
    """`manage.py` (as `up`, the demo and the workers start) registers the shipped games only: the
    games API, and so every listing built on the registry, never names a test game."""
    script = (
        "import json\n"
        "from django.test import Client\n"
        "from django.test.utils import setup_test_environment\n"
        "from engines.registry import game_keys\n"
        "setup_test_environment()\n"
        "listed = [game['key'] for game in Client().get('/api/games/').json()]\n"
        "print('LISTED', json.dumps({'registry': game_keys(), 'api': listed}))\n"
    )
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    [line] = [line for line in done.stdout.splitlines() if line.startswith("LISTED ")]
    listed = json.loads(line.removeprefix("LISTED "))
    shipped = [key for key in game_keys() if key not in TEST_GAMES]
    assert listed == {"registry": shipped, "api": shipped}


def test_the_installed_package_holds_no_test_game():
    include = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    packages = find_packages(where=ROOT, include=include["include"])
    assert "engines.ratsnake" in packages
    assert not [package for package in packages if package.split(".")[0] == "tests"]
