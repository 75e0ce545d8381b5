"""The Greatest Snake: metadata and options (rulebook "How to Play", "Who Goes First and Who Wins").

Every option exists because the rulebook leaves a point open; the `doc` of each says why, and
docs/games/the-greatest-snake.md lists every reading.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engines.errors import InvalidOptions
from engines.protocol import GameSpec, OptionSpec

# The rulebook's own numbers.
WIN_LENGTH = 7  # "The first snake to reach a length of 7 cards (including head and tail) is the winner!"
HAND_LIMIT = 7  # "You can hold up to 7 cards in your hand"
STARTING_HAND = 3  # "Keep drawing until each player has 3 cards they can keep in their hand."

AUTO = "auto"
ON = "on"
OFF = "off"
RANDOM = "random"
SEATS = ("0", "1", "2", "3", "4")

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        name="expansion",
        default=AUTO,
        choices=(AUTO, ON, OFF),
        doc=(
            "'You can play this game with three to four people, unless you have the Expansion Pack "
            "that boosts it to five.' auto (the default): the Expansion Pack is in exactly when five "
            "play; on: always (its fifth snake and extra cards); off: never, and five seats are refused."
        ),
    ),
    OptionSpec(
        name="first_player",
        default=RANDOM,
        choices=(RANDOM, *SEATS),
        doc=(
            "'The player who most resembles their snake takes the first turn' is a social rule: "
            "random (the default) draws the first player as a chance event; a seat number gives it."
        ),
    ),
    OptionSpec(
        name="feed_sleeping",
        default=False,
        doc=(
            "May Fake Rat be fed to a sleeping snake? 'Sleeping snakes cannot eat rats' and Fake Rat 'is "
            "treated like other rats' say no (false, the default); 'You are allowed to feed Fake Rat to a "
            "snake whenever you want' can be read as yes (true). Either way the mouth must be empty and "
            "unglued."
        ),
    ),
    OptionSpec(
        name="round_limit",
        default=100,
        minimum=10,
        maximum=1000,
        doc=(
            "The rulebook has no end but a snake of 7. So that every match ends (players may refuse "
            "to eat forever), after this many rounds without a winner the longest snakes tie for "
            "first. A house rule, not the rulebook's."
        ),
    ),
)

SPEC = GameSpec(
    key="the-greatest-snake",
    name="The Greatest Snake",
    version="1.0.0",
    min_players=3,
    max_players=5,
    rulebook="The Greatest Snake, How to Play (/work/shared/rules/the-greatest-snake.md)",
    options=OPTIONS,
    has_chance=True,
    has_hidden_information=True,  # hands and the deck order
    has_simultaneous_moves=False,  # responses are a window answered one at a time
)


@dataclass(frozen=True, slots=True)
class Options:
    """The resolved options of one match, kept in the state."""

    expansion: bool
    first_player: int | None  # None: drawn by chance
    round_limit: int
    feed_sleeping: bool

    @classmethod
    def from_resolved(cls, resolved: Mapping[str, Any], seats: int) -> Options:
        expansion = resolved["expansion"] == ON or (resolved["expansion"] == AUTO and seats == 5)
        if seats == 5 and not expansion:
            raise InvalidOptions("five players need the Expansion Pack", code="options/expansion_needed")
        first = resolved["first_player"]
        first_player = None if first == RANDOM else int(first)
        if first_player is not None and first_player >= seats:
            raise InvalidOptions(
                f"there is no seat {first_player} among {seats}", code="options/out_of_range"
            )
        return cls(
            expansion=expansion,
            first_player=first_player,
            round_limit=resolved["round_limit"],
            feed_sleeping=resolved["feed_sleeping"],
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "expansion": self.expansion,
            "first_player": self.first_player,
            "round_limit": self.round_limit,
            "feed_sleeping": self.feed_sleeping,
        }
