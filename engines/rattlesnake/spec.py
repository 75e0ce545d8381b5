"""Rattlesnake: metadata and options (rulebook "Setup" and "How to Play").

The rulebook fixes the numbers (decks, Hits, hand size, saloon): they are data in catalogue.json.
The only option is a point the rulebook leaves open; its `doc` says why.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engines.protocol import GameSpec, OptionSpec

DRAWN = "drawn"
SEAT_0 = "seat_0"

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        name="pistol",
        default=DRAWN,
        choices=(DRAWN, SEAT_0),
        doc=(
            "Who holds the pistol first. 'Take turns as the active player, starting with whoever has the "
            "pistol' does not say who that is: drawn (the default) gives it to a seat chosen by a chance "
            "event; seat_0 gives it to the first seat."
        ),
    ),
)

SPEC = GameSpec(
    key="rattlesnake",
    name="Rattlesnake",
    version="1.0.0",
    min_players=2,
    max_players=2,
    rulebook="Rattlesnake, Michael Hardacre, Osprey Games 2026 (ISBN 9781472871763)",
    options=OPTIONS,
    has_chance=True,
    # Hands, deck orders, face-down commits and the unseen saloon cards.
    has_hidden_information=True,
    # The attack and the defense are committed face down, one after the other (see rules.py).
    has_simultaneous_moves=False,
)


@dataclass(frozen=True)
class Options:
    pistol: str = DRAWN

    @classmethod
    def from_resolved(cls, resolved: Mapping[str, Any]) -> Options:
        return cls(**{option.name: resolved[option.name] for option in OPTIONS})

    def to_json(self) -> dict[str, Any]:
        return {option.name: getattr(self, option.name) for option in OPTIONS}
