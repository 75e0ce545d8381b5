"""Rattlebones: metadata and options (rulebook title page, COMPONENTS, x2 and GAME END).

Every other reading of an unclear sentence is fixed and written down in docs/games/rattlebones.md,
and the designed board is data in `catalogue.json`. The one option is a real choice between two
readings of the x2 rule.
"""

from __future__ import annotations

from engines.protocol import GameSpec, OptionSpec

DIE_ACTIONS = "die_actions"
POINTS_SIDES = "points_sides"

OPTIONS = (
    OptionSpec(
        name="x2_points",
        default=DIE_ACTIONS,
        choices=(DIE_ACTIONS, POINTS_SIDES),
        doc=(
            "Which points an x2 doubles: 'the number of gold, stars or points earned is doubled. This "
            "does NOT include the Gamble Die.' die_actions (the default): points any die's own action "
            "earned (POINTS, TRAIN, 1234), since the rulebook needs to except the Gamble die; "
            "points_sides: only the POINTS (1-5) sides."
        ),
    ),
)

SPEC = GameSpec(
    key="rattlebones",
    name="Rattlebones",
    version="1.0.0",
    min_players=2,  # "A game for 2 - 4 players"
    max_players=4,
    rulebook="Rattlebones, Stephen Glenn, Rio Grande Games (rules (c) 2013 Rio Grande Games)",
    options=OPTIONS,
    has_chance=True,  # the board tiles at set-up, every die roll, the Gamble die
    # Everything on the table is public: dice sides, pieces, pawns, the score track. Only future
    # chance is unknown, and that is the service's seed, not the engine's.
    has_hidden_information=False,
    has_simultaneous_moves=False,
)
