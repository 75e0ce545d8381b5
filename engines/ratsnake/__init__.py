"""Rat-Snake, the Lankhmar wagering game with dice (rulebook: Goodman Games GMG5207).

`GAME` is the engine the registry loads; see docs/games/rat-snake.md for every reading of the rules.
"""

from engines.ratsnake.rules import RatSnake

GAME = RatSnake()

__all__ = ["GAME", "RatSnake"]
