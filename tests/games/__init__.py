"""Games that exist only for the test suite: registered by tests/conftest.py before any test module
lists the games, never shipped (the package is not installed, and no production start-up registers
them), so the whole suite runs over a game the service was not written for.

Cup Dice has chance, hidden information and face-down moves, only the random bot, and no board
template of its own: it proves that a game needs none of the shipped games' extras to play, be
listed and be offered by the pages.
"""

from __future__ import annotations

from engines.registry import register_game

# key -> "module:attribute" of the Game, as engines/registry.py lists the shipped games.
TEST_GAMES = {"cup-dice": "tests.games.cup_dice:GAME"}


def register_test_games() -> None:
    for key, target in TEST_GAMES.items():
        register_game(key, target)
