"""The games Snakepit knows. A game joins the whole service (API, pages, ladders, tournaments) by being
listed here: nothing else names games or their bots one by one.

Each entry says where the engine lives and which of its built-in bots a form or a command seats when
nobody names one. `register_game` adds an entry at start-up, before anything lists the games: the
test suite registers its test-only games that way (tests/games/), so they are never shipped.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module

from engines.bots import RandomBot
from engines.errors import UnknownGame
from engines.protocol import Game


@dataclass(frozen=True)
class Entry:
    target: str  # "module:attribute" of the engine's Game instance, imported on first use
    default_bot: str = RandomBot.name  # the one seated when nobody names a bot: the strongest


_ENGINES: dict[str, Entry] = {
    "rat-snake": Entry("engines.ratsnake:GAME", default_bot="heuristic"),
    "ragnguns": Entry("engines.ragnguns:GAME", default_bot="heuristic"),
    "rattlesnake": Entry("engines.rattlesnake:GAME", default_bot="heuristic"),
    "the-greatest-snake": Entry("engines.greatestsnake:GAME", default_bot="heuristic"),
    "rattlebones": Entry("engines.rattlebones:GAME", default_bot="heuristic"),
}
# The game a page opens on when none is asked for: the quickest to learn.
DEFAULT_GAME = "rat-snake"
_loaded: dict[str, Game] = {}


def register_game(key: str, target: str, *, default_bot: str = RandomBot.name) -> None:
    """Add a game under `key` ("module:attribute" of its `Game`). Registering the same entry again
    does nothing; another entry under a known key is a mistake and raises."""
    entry = Entry(target, default_bot)
    if _ENGINES.setdefault(key, entry) != entry:
        raise ValueError(f"the game key {key!r} is registered already, as {_ENGINES[key].target}")


def get_game(key: str) -> Game:
    if key not in _ENGINES:
        raise UnknownGame(f"no game {key!r}; known games: {', '.join(sorted(_ENGINES))}")
    if key not in _loaded:
        entry = _ENGINES[key]
        module_name, attribute = entry.target.split(":")
        game = getattr(import_module(module_name), attribute)
        if game.spec.key != key or entry.default_bot not in game.bots():
            raise ValueError(
                f"{entry.target} is registered as {key!r} with the default bot {entry.default_bot!r}, "
                f"but its key is {game.spec.key!r} and its bots are {sorted(game.bots())}"
            )
        _loaded[key] = game
    return _loaded[key]


def game_keys() -> list[str]:
    return sorted(_ENGINES)


def all_games() -> list[Game]:
    return [get_game(key) for key in game_keys()]


def default_bot(key: str) -> str:
    """The built-in bot seated where nobody names one (a form's first choice, `play_bots`)."""
    get_game(key)
    return _ENGINES[key].default_bot


def bot_names(key: str) -> list[str]:
    """The game's built-in bots, the default first, then by name: the choices a form offers."""
    default = default_bot(key)
    return [default, *sorted(name for name in get_game(key).bots() if name != default)]
