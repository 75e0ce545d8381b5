"""The Greatest Snake, a card game of snake bodybuilding for 3 to 5 players (rulebook: How to Play,
/work/shared/rules/the-greatest-snake.md).

`GAME` is the engine the registry loads; docs/games/the-greatest-snake.md gives every design choice.
"""

from engines.greatestsnake.rules import GreatestSnake

GAME = GreatestSnake()

__all__ = ["GAME", "GreatestSnake"]
