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

from engines.ragnguns.catalogue import Catalogue, catalogue_from_data, read_data_file

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
