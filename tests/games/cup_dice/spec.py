"""Cup Dice: metadata and options (the rules are in the package's docstring)."""

from __future__ import annotations

from engines.protocol import GameSpec, OptionSpec

ROUNDS = "rounds"

SPEC = GameSpec(
    key="cup-dice",
    name="Cup Dice",
    version="1.0.0",
    min_players=2,
    max_players=4,
    rulebook="tests/games/cup_dice/__init__.py (a test-only game)",
    options=(
        OptionSpec(
            name=ROUNDS, default=3, doc="Rounds played before the chips are counted.", minimum=1, maximum=9
        ),
    ),
    has_chance=True,  # every die under a cup
    has_hidden_information=True,  # the die under another player's cup, a stake not yet lifted
    has_simultaneous_moves=True,  # every player stakes at once, face down
)
