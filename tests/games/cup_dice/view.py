"""Cup Dice: what a seat sees. A die under a cup is its owner's alone until the cups are lifted,
and of another player's stake a seat sees only that it was made."""

from __future__ import annotations

from engines.protocol import View
from tests.games.cup_dice.state import CupDiceState


def cup_dice_view(state: CupDiceState, seat: int | None) -> View:
    cups = []
    for owner in range(state.seats):
        rolled = owner < len(state.dice)
        stake = state.stakes[owner] if owner < len(state.stakes) else None
        cups.append(
            {
                "seat": owner,
                "die": state.dice[owner] if rolled and owner == seat else None,
                "rolled": rolled,
                "staked": stake is not None,
                "stake": stake if owner == seat else None,
            }
        )
    return {
        "round": min(state.round, state.rounds),
        "rounds": state.rounds,
        "chips": list(state.chips),
        "cups": cups,
        "last_round": [
            {"seat": owner, "die": die, "stake": stake} for owner, (die, stake) in enumerate(state.lifted)
        ],
    }
