"""Rattlesnake, the two-player card shootout (rulebook: Michael Hardacre, Osprey Games 2026).

`GAME` is the engine the registry loads; see docs/games/rattlesnake.md for every reading of the rules.
"""

from engines.rattlesnake.rules import Rattlesnake

GAME = Rattlesnake()

__all__ = ["GAME", "Rattlesnake"]
