"""Rattlebones: metadata (rulebook title page, COMPONENTS and GAME END).

There is no option: every reading of an unclear sentence is fixed and written down in
docs/games/rattlebones.md, and the designed board is data in `catalogue.json`.
"""

from __future__ import annotations

from engines.protocol import GameSpec

SPEC = GameSpec(
    key="rattlebones",
    name="Rattlebones",
    version="1.0.0",
    min_players=2,  # "A game for 2 - 4 players"
    max_players=4,
    rulebook="Rattlebones, Stephen Glenn, Rio Grande Games (rules (c) 2013 Rio Grande Games)",
    options=(),
    has_chance=True,  # the board tiles at set-up, every die roll, the Gamble die
    # Everything on the table is public: dice sides, pieces, pawns, the score track. Only future
    # chance is unknown, and that is the service's seed, not the engine's.
    has_hidden_information=False,
    has_simultaneous_moves=False,
)
