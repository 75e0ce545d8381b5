"""Dated ban lists (issue #19): a match carries the list it began under, as its `ban_list` option."""

from __future__ import annotations

import json

import pytest

from engines.errors import IllegalAction, InvalidOptions
from engines.protocol import Event
from engines.ragnguns import GAME
from engines.ragnguns.catalogue import BanList, load_catalogue, load_formats

from . import bring, legal

FRONTIER = load_formats()["frontier"]


def ban_list(version: str, *, banned=(), restricted=(), max_restricted=0) -> str:
    return json.dumps(
        {
            "version": version,
            "effective": "2026-12-01T00:00:00+00:00",
            "banned": list(banned),
            "restricted": list(restricted),
            "max_restricted": max_restricted,
        }
    )


def test_the_packaged_list_is_dated_and_versioned() -> None:
    packaged = FRONTIER.ban_list()
    assert isinstance(packaged, BanList)
    assert packaged.version and packaged.effective.startswith("20")
    assert "gatling-gun" in packaged.banned
    state = GAME.new_state(seats=2, options={"format": "frontier"})
    assert GAME.view(state, 0)["ban_list"] == packaged.version and GAME.view(state, 0)["format"] == "frontier"


def test_a_later_list_that_unbans_a_card_lets_a_deck_with_it_in() -> None:
    unbanned = ban_list("2026.2", restricted=sorted(FRONTIER.restricted), max_restricted=1)
    state = GAME.new_state(seats=2, options={"format": "frontier", "ban_list": unbanned})
    GAME.apply(state, Event.action(0, bring("smoking-barrels")))  # holds the Gatling Gun
    assert state.decks[0] is not None
    assert GAME.view(state, 0)["ban_list"] == "2026.2" and GAME.view(state, 0)["format"] == "frontier"
    assert any("gatling-gun" in action["cards"] for action in legal(state, 1))


def test_a_later_list_that_bans_a_card_refuses_a_deck_with_it() -> None:
    card = bring("saloon-nights")["cards"][0]
    stricter = ban_list("2026.3", banned=["gatling-gun", card])
    state = GAME.new_state(seats=2, options={"format": "standard", "ban_list": stricter})
    with pytest.raises(IllegalAction) as raised:
        GAME.apply(state, Event.action(0, bring("saloon-nights")))
    assert "deck/banned" in raised.value.detail
    assert all(card not in action["cards"] for action in legal(state, 0))


@pytest.mark.parametrize(
    "bad",
    [
        "not json",
        json.dumps({"version": "x"}),
        ban_list("2026.4", banned=["no-such-card"]),
        ban_list("", banned=[]),
        ban_list("2026.5", max_restricted=-1),
        " " * 20_001,
    ],
)
def test_a_bad_ban_list_option_is_refused_before_the_match_begins(bad: str) -> None:
    with pytest.raises(InvalidOptions):
        GAME.new_state(seats=2, options={"format": "frontier", "ban_list": bad})


def test_every_card_of_the_catalogue_fits_a_ban_list_option() -> None:
    everything = ban_list("all", banned=[card.id for card in load_catalogue().cards])
    state = GAME.new_state(seats=2, options={"ban_list": everything})
    assert legal(state, 0) == []  # no pre-built deck survives: bots bring nothing legal
