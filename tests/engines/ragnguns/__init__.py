"""Tests of the Rag'n'Guns catalogue and deck library (no Django, no database).

Shared helpers live here. `future_catalogue()` is the packaged catalogue plus a Banjo Winter
GUNSLINGER: the rulebook's DECKBUILDING joke ("there's no Banjo Winter GUNSLINGER. Yet...") made
real, so the name rule -- "you can't take Banjo Winter BACKUP if you've chosen Banjo Winter as a
GUNSLINGER" -- is tested against a catalogue version where it can actually be broken.
"""

from __future__ import annotations

import copy
from functools import lru_cache
from typing import Any

from engines.protocol import Event
from engines.ragnguns import GAME, load_prebuilt
from engines.ragnguns.catalogue import Catalogue, catalogue_from_data, read_data_file
from engines.ragnguns.state import RagnGunsState

_DESIGNED_EFFECT = {name: "designed" for name in ("cost", "markers", "zone", "paid_from", "do")}

BANJO_WINTER_GUNSLINGER = {
    "id": "banjo-winter-gunslinger",
    "name": "Banjo Winter",
    "type": "GUNSLINGER",
    "cost": None,
    "firepower": 1,
    "durability": 6,
    "keywords": ["MUSIC"],
    "signature": None,
    "origin": "designed",
    "effects": [
        {
            "cost": 1,
            "markers": ["once_per_turn"],
            "zone": None,
            "paid_from": "cartridge_belt",
            "text": "If you have a MUSIC card in play, heal one Bullet.",
            "do": [{"op": "heal", "n": 1, "on": "any"}],
            "provenance": _DESIGNED_EFFECT,
        },
        {
            "cost": 2,
            "markers": ["once_per_turn"],
            "zone": None,
            "paid_from": "cartridge_belt",
            "text": "Shoot one Bullet at the card in your opponent's Alley.",
            "do": [{"op": "shoot", "n": 1, "at": "alley_card"}],
            "provenance": _DESIGNED_EFFECT,
        },
    ],
    "provenance": {
        name: "designed" for name in ("type", "cost", "firepower", "durability", "keywords", "signature")
    },
}


def raw_catalogue() -> dict[str, Any]:
    """A fresh, mutable copy of the packaged catalogue.json."""
    return copy.deepcopy(_raw())


@lru_cache(maxsize=1)
def _raw() -> dict[str, Any]:
    return read_data_file("catalogue.json")


@lru_cache(maxsize=1)
def future_catalogue() -> Catalogue:
    data = raw_catalogue()
    data["version"] += "+banjo"
    data["cards"].append(copy.deepcopy(BANJO_WINTER_GUNSLINGER))
    return catalogue_from_data(data)


# -- helpers for the engine tests ----------------------------------------------------------------------
# A duel is started through real events (both decks brought, who starts, both shuffles), then a test
# that begins mid-game (most of the rulebook's examples do) lays out the table with `lay_out`, which
# keeps every chip accounted for by settling the chip stack.


PREBUILT = {deck.id: deck for deck in load_prebuilt()}


def bring(deck_id: str) -> dict[str, Any]:
    deck = PREBUILT[deck_id]
    return {"type": "bring_deck", "gunslinger": deck.gunslinger, "cards": sorted(deck.cards)}


def after(state: RagnGunsState, event: Event) -> RagnGunsState:
    """The state after `event`, leaving `state` as it was."""
    following = state.clone()
    GAME.apply(following, event)
    return following


def act(state: RagnGunsState, seat: int, action: dict[str, Any]) -> RagnGunsState:
    return after(state, Event.action(seat, action))


def duel(
    deck_0: str = "stampede-at-dawn",
    deck_1: str = "saloon-nights",
    *,
    first: str = "seat_0",
    **options: Any,
) -> RagnGunsState:
    """Both decks brought, shuffled in their canonical (sorted) order, first turn started."""
    state = GAME.new_state(seats=2, options={"first_player": first, **options})
    state = act(state, 0, bring(deck_0))
    state = act(state, 1, bring(deck_1))
    while GAME.decision(state).kind == "chance":
        request = GAME.chance_request(state)
        outcome = {"index": 0} if request.kind == "choice" else {"permutation": list(range(request.size))}
        state = after(state, Event.chance_outcome(outcome))
    return state


def lay_out(state: RagnGunsState, seat: int, **fields: Any) -> RagnGunsState:
    """Set fields of one side (hand, alley, bullets, ...) on a copy, settling the chip stack so that
    every chip stays accounted for."""
    laid = state.clone()
    side = laid.sides[seat]
    for name, value in fields.items():
        if name == "hideout":
            value = [list(slot) for slot in value]
        elif isinstance(value, list):
            value = list(value)
        setattr(side, name, value)
    laid.bank = -(laid.sides[0].chips() + laid.sides[1].chips())
    laid.decision_cache = None
    return laid


def legal(state: RagnGunsState, seat: int, kind: str | None = None) -> list[dict[str, Any]]:
    return [a for a in GAME.legal_actions(state, seat) if kind is None or a["type"] == kind]
