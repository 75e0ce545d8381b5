"""Rattlebones, the dice-customising race against the Rattlebones pawn (rulebook: Stephen Glenn,
Rio Grande Games). `GAME` is the engine the registry loads; docs/games/rattlebones.md gives every
reading of the rules and every designed part of the board.
"""

from engines.rattlebones.rules import Rattlebones

GAME = Rattlebones()

__all__ = ["GAME", "Rattlebones"]
