"""The designed board and pieces (catalogue.json): loaded, checked, and keeping every rulebook number."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from engines.rattlebones.catalogue import CATALOGUE, CatalogueError, load_catalogue


def data() -> dict:
    return json.loads(resources.files("engines.rattlebones").joinpath("catalogue.json").read_text("utf-8"))


def test_the_rulebook_numbers_are_kept() -> None:
    assert len(CATALOGUE.tiles) == 12 and CATALOGUE.tiles_placed == 7
    assert len(CATALOGUE.tile_spaces) == 7 and CATALOGUE.spaces[0] == "store"
    assert CATALOGUE.sides_each == 15 and (CATALOGUE.gold, CATALOGUE.stars, CATALOGUE.stock) == (20, 20, 5)
    assert CATALOGUE.rattlebones_start == {2: 55, 3: 60, 4: 65}
    assert CATALOGUE.star_chart == (0, 3, 7, 11, 15)
    assert CATALOGUE.pawns == 3 and CATALOGUE.dice == 3


def test_stock_and_gamble_are_only_on_tiles() -> None:
    # "If the Stock Tile is part of the board ..." / "If the Gamble Tile is part of the board ...".
    assert "stock" not in CATALOGUE.spaces and "gamble" not in CATALOGUE.spaces


def test_the_train_track_spaces_are_numbered_from_zero() -> None:
    assert CATALOGUE.train_track == tuple(range(len(CATALOGUE.train_track)))


def test_adjacent_sides_of_the_cube() -> None:
    for side in range(6):
        assert len(CATALOGUE.adjacent[side]) == 4
        assert (
            side not in CATALOGUE.adjacent[side] and CATALOGUE.opposite[side] not in CATALOGUE.adjacent[side]
        )


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d["board"].update(spaces=["gold", *d["board"]["spaces"][1:]]),
        lambda d: d["board"]["spaces"].append("tile"),
        lambda d: d["board"]["spaces"].__setitem__(1, "casino"),
        lambda d: d.update(tiles=d["tiles"][:11]),
        lambda d: d.update(star_chart=[0, 3, 7, 11, 16]),
        lambda d: d.update(rattlebones_start={"2": 50, "3": 60, "4": 65}),
        lambda d: d["die"].update(opposite=[5, 4, 3, 2, 0, 1]),
        lambda d: d.update(gamble_die=["rattlebones", "6"]),
        lambda d: d.update(train_track=[1, 2]),
    ],
)
def test_broken_data_is_refused(change) -> None:
    broken = data()
    change(broken)
    with pytest.raises(CatalogueError):
        load_catalogue(json.dumps(broken))
