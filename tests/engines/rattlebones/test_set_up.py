"""SETUP: the board tiles, the pieces, the dice, the Rattlebones pawn and the train."""

from __future__ import annotations

import pytest

from engines.chance import ChanceRequest
from engines.errors import IllegalAction, InvalidSeats
from engines.protocol import Event
from engines.rattlebones.catalogue import CATALOGUE

from . import GAME, STANDARD, chance, new, set_up, tiles_permutation


def test_the_tiles_are_a_shuffle_of_twelve_before_anyone_acts() -> None:
    state = new(3)
    decision = GAME.decision(state)
    assert decision.kind == "chance" and decision.prompt == "set_up"
    assert GAME.chance_request(state) == ChanceRequest.shuffle("set_up", size=12)
    assert all(GAME.legal_actions(state, seat) == [] for seat in range(3))


def test_seven_tiles_go_on_the_seven_blank_spaces_and_five_back_in_the_box() -> None:
    permutation = [11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]
    state = chance(new(2), {"permutation": permutation})
    placed = [state.board[space] for space in CATALOGUE.tile_spaces]
    assert placed == [CATALOGUE.tiles[index] for index in permutation[:7]]
    assert "tile" not in state.board
    # The printed spaces stay as printed.
    for index, space in enumerate(CATALOGUE.spaces):
        if space != "tile":
            assert state.board[index] == space


def test_a_set_up_that_is_not_a_permutation_of_the_tiles_is_refused() -> None:
    state = new(2)
    with pytest.raises(IllegalAction) as raised:
        GAME.apply(state, Event.chance_outcome({"permutation": list(range(7))}))
    assert raised.value.code == "chance/out_of_range"
    assert state.board == CATALOGUE.spaces


@pytest.mark.parametrize(("seats", "start"), [(2, 55), (3, 60), (4, 65)])
def test_the_rattlebones_pawn_starts_on_55_60_or_65(seats: int, start: int) -> None:
    assert new(seats).rattlebones == start


@pytest.mark.parametrize("seats", [1, 5])
def test_two_to_four_players(seats: int) -> None:
    with pytest.raises(InvalidSeats):
        new(seats)


def test_pieces_pawns_and_dice_at_the_start() -> None:
    state = set_up(4)
    assert state.pawns == [0] * 12  # "three Monkey pawns on the start space"
    assert state.scores == [0] * 4  # score markers "on '0' of the score track"
    assert state.gold == state.stars == state.stock == [0] * 4
    assert state.dice == [STANDARD] * 12  # three standard dice each, the '1' showing the icon
    assert STANDARD[0] == "rattlebones"
    assert state.sides == {kind: 15 for kind in CATALOGUE.action_sides}  # "15 each type"
    assert (state.gold_supply, state.star_supply, state.stock_supply) == (20, 20, 5)
    assert state.train == 0 and CATALOGUE.train_track[0] == 0  # "on the '0' space ... facing clockwise"
    assert state.player == 0 and GAME.decision(state).prompt == "roll"


def test_the_test_helper_places_the_named_tiles() -> None:
    state = set_up(2, {5: "thief", 8: "arrow"})
    assert state.board[5] == "thief" and state.board[8] == "arrow"
    assert sorted(tiles_permutation({5: "thief"})) == list(range(12))
