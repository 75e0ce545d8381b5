"""The games Snakepit knows. A game joins the whole service (API, ladders, tournaments) by being
listed here: nothing else names games one by one."""

from __future__ import annotations

from importlib import import_module

from engines.errors import UnknownGame
from engines.protocol import Game

# key -> "module:attribute" of the engine's Game instance; imported on first use.
_ENGINES: dict[str, str] = {
    "rat-snake": "engines.ratsnake:GAME",
    "ragnguns": "engines.ragnguns:GAME",
    "rattlesnake": "engines.rattlesnake:GAME",
    "the-greatest-snake": "engines.greatestsnake:GAME",
    "rattlebones": "engines.rattlebones:GAME",
}
_loaded: dict[str, Game] = {}


def get_game(key: str) -> Game:
    if key not in _ENGINES:
        raise UnknownGame(f"no game {key!r}; known games: {', '.join(sorted(_ENGINES))}")
    if key not in _loaded:
        module_name, attribute = _ENGINES[key].split(":")
        _loaded[key] = getattr(import_module(module_name), attribute)
    return _loaded[key]


def game_keys() -> list[str]:
    return sorted(_ENGINES)


def all_games() -> list[Game]:
    return [get_game(key) for key in game_keys()]
