"""Cup Dice, a test-only game (tests/games/__init__.py says why it exists). `GAME` is the engine
the test suite registers.

The rules, whole: 2 to 4 players, `rounds` rounds (3 unless set). Each round every player's die is
rolled under their cup, seen by that player alone. Then every player, face down and all at once,
folds or stakes 1 to 3 chips. The cups are lifted: of the players who staked, those with the highest
die win their stake and the others lose theirs. After the last round the most chips ranks first;
a player who forfeits ranks last.
"""

from tests.games.cup_dice.rules import CupDice

GAME = CupDice()

__all__ = ["GAME", "CupDice"]
