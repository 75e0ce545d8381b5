"""Rattlebones: the data the rulebook leaves to the board (rulebook COMPONENTS and SETUP).

The rulebook gives the numbers (12 board tiles of which 7 are placed, 15 of each action die side,
20 gold, 20 stars, 5 stock tickets, Rattlebones on 65 / 60 / 55, the star chart 3 / 7 / 11 / 15) but
not the board itself: how many spaces, where the blank tile spaces sit, what the train track is worth,
which die sides touch, what the Gamble die shows. Those live in `catalogue.json` next to this module
(data, not code); this module reads it with `importlib.resources`, checks it, and exposes typed
constants. docs/games/rattlebones.md gives the reason for every designed value.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

from engines.errors import EngineError


class CatalogueError(EngineError):
    code = "catalogue/invalid"


# The names the rulebook prints, as the engine spells them.
RATTLEBONES = "rattlebones"  # the icon on the '1' side of every die ("can never be changed")
PIPS = ("2", "3", "4", "5", "6")  # the starting pip sides ("removable pip sides")
STORE = "store"  # STORE/START
TILE = "tile"  # a blank space waiting for a board tile
PLUS_ONE = "+1"
ARROW = "arrow"
ARROW_TO = "arrow_to_"  # an ARROW side is stored with the side it points to: "arrow_to_3"
POINTS = ("points_1", "points_2", "points_3", "points_4", "points_5")  # POINTS (1-5)
# Board spaces whose landing offers exactly the action side of the same name.
SIDE_SPACES = frozenset(
    {"gold", "star", "roll_again", "train", "9_pip", "thief", ARROW, "1234", "stock", "x2", "gamble"}
)
SPACE_KINDS = SIDE_SPACES | {PLUS_ONE, STORE}


@dataclass(frozen=True)
class Catalogue:
    spaces: tuple[str, ...]  # the board, clockwise from STORE/START (space 0); TILE for a blank space
    tile_spaces: tuple[int, ...]  # where the blank spaces are, in board order
    tiles: tuple[str, ...]  # the 12 board tiles in a fixed order: a shuffle permutes their indices
    tiles_placed: int
    train_track: tuple[int, ...]  # points of each train space, from '0', clockwise
    die_sides: tuple[str, ...]  # a new die, side index 0..5; index 0 is the Rattlebones icon
    opposite: tuple[int, ...]  # the side opposite each side of the cube
    adjacent: tuple[tuple[int, ...], ...]  # the four sides touching each side (where an ARROW may point)
    gamble_die: tuple[str, ...]  # "rattlebones" or points "2".."5"
    action_sides: tuple[str, ...]  # the kinds of action die sides, each with its own supply
    sides_each: int
    gold: int
    stars: int
    stock: int
    star_chart: tuple[int, ...]  # points for selling 0..4 stars
    rattlebones_start: dict[int, int]
    pawns: int
    dice: int


def _fail(what: str) -> CatalogueError:
    return CatalogueError(f"rattlebones catalogue: {what}")


def _load(data: dict[str, Any]) -> Catalogue:
    spaces = tuple(data["board"]["spaces"])
    if not spaces or spaces[0] != STORE:
        raise _fail("the board starts on STORE/START")
    for space in spaces:
        if space not in SPACE_KINDS and space != TILE:
            raise _fail(f"unknown board space {space!r}")
    tile_spaces = tuple(index for index, space in enumerate(spaces) if space == TILE)
    tiles = tuple(data["tiles"])
    if len(tiles) != 12 or len(set(tiles)) != 12 or not set(tiles) <= SPACE_KINDS - {STORE}:
        raise _fail("twelve different board tiles, each a board space")
    placed = data["tiles_placed"]
    if placed != 7 or len(tile_spaces) != placed:
        raise _fail("7 tiles are placed, one on each blank space")
    die = data["die"]
    sides, opposite = tuple(die["sides"]), tuple(die["opposite"])
    if sides != (RATTLEBONES, *PIPS) or sorted(opposite) != list(range(6)):
        raise _fail("a die starts as the Rattlebones icon and pips 2 to 6")
    if any(opposite[opposite[side]] != side or opposite[side] == side for side in range(6)):
        raise _fail("opposite sides come in pairs")
    adjacent = tuple(
        tuple(other for other in range(6) if other not in (side, opposite[side])) for side in range(6)
    )
    gamble = tuple(data["gamble_die"])
    if not gamble or any(face not in (RATTLEBONES, "2", "3", "4", "5") for face in gamble):
        raise _fail("the Gamble die shows 2, 3, 4 or 5 points or the Rattlebones symbol")
    action_sides = tuple(data["action_sides"])
    if set(action_sides) != (SIDE_SPACES | set(POINTS)):
        raise _fail("one supply per action side kind")
    track = tuple(data["train_track"])
    if not track or track[0] != 0:
        raise _fail("the train starts on the '0' space")
    supplies = data["supplies"]
    chart = tuple(data["star_chart"])
    if chart != (0, 3, 7, 11, 15):
        raise _fail("the star chart is 1/2/3/4 stars for 3/7/11/15")
    starts = {int(seats): value for seats, value in data["rattlebones_start"].items()}
    if starts != {2: 55, 3: 60, 4: 65}:
        raise _fail("Rattlebones starts on 55 / 60 / 65")
    return Catalogue(
        spaces=spaces,
        tile_spaces=tile_spaces,
        tiles=tiles,
        tiles_placed=placed,
        train_track=track,
        die_sides=sides,
        opposite=opposite,
        adjacent=adjacent,
        gamble_die=gamble,
        action_sides=action_sides,
        sides_each=supplies["action_sides_each"],
        gold=supplies["gold"],
        stars=supplies["star"],
        stock=supplies["stock"],
        star_chart=chart,
        rattlebones_start=starts,
        pawns=data["pawns_per_player"],
        dice=data["dice_per_player"],
    )


def load_catalogue(text: str | None = None) -> Catalogue:
    """The catalogue shipped with the engine, or one given as JSON text (tests)."""
    if text is None:
        text = resources.files(__package__).joinpath("catalogue.json").read_text(encoding="utf-8")
    return _load(json.loads(text))


CATALOGUE = load_catalogue()
