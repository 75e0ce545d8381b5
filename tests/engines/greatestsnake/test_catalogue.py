"""The catalogue (Setting Up, Card Types): the data file is read, checked, and keeps every name and
number the rulebook gives."""

from __future__ import annotations

import pytest

from engines.greatestsnake.catalogue import (
    CARDS,
    NAMED_BY_RULEBOOK,
    SNAKES,
    CatalogueError,
    _build,
    _load,
    deck,
)
from engines.greatestsnake.spec import STARTING_HAND


def test_the_rulebooks_cards_are_all_there() -> None:
    names = {card.name for card in CARDS}
    assert set(NAMED_BY_RULEBOOK) <= names
    assert sum(card.name == "Rat King" for card in CARDS) == 1


def test_twelve_snake_cards_and_a_fifth_snake_in_the_expansion() -> None:
    # "there are 12 cards at the top": 4 heads, 4 fashionable bodies, 4 tails
    base = [snake for snake in SNAKES if not snake.expansion]
    assert len(base) == 4 and len(SNAKES) == 5
    assert (
        len({snake.head for snake in base} | {snake.body for snake in base} | {snake.tail for snake in base})
        == 12
    )


def test_gun_and_lasers_have_three_uses() -> None:
    # "If the player you took it from used it once, then it only has two uses left"
    assert {card.name: card.ammo for card in CARDS if card.cost == "ammo"} == {"Gun": 3, "Lasers": 3}


@pytest.mark.parametrize(("expansion", "seats"), [(False, 4), (True, 5)])
def test_the_deal_can_always_finish(expansion: bool, seats: int) -> None:
    keepable = [card for card in deck(expansion) if CARDS[card].kind != "rat"]
    assert len(keepable) >= STARTING_HAND * seats


def test_every_card_has_a_speed_if_it_is_a_rat() -> None:
    for card in CARDS:
        assert (card.speed >= 1) == card.is_rat


def test_broken_data_is_refused() -> None:
    data = _load()
    data["cards"] = [entry for entry in data["cards"] if entry["name"] != "Swap"]
    with pytest.raises(CatalogueError):
        _build(data)
    data = _load()
    data["cards"][0] = {**data["cards"][0], "speed": 0}
    with pytest.raises(CatalogueError):
        _build(data)
