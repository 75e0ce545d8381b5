"""Values shared by every format: player ids, reported results, pairings and typed errors.

Pure module: no Django, no clock, no global random. Player ids are opaque hashables; formats only
compare them for equality and never sort them (a seed list gives the order).
"""

from __future__ import annotations

import enum
import random
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from coded_errors import CodedError

PlayerId = Hashable


class FormatError(CodedError):
    """A request a format cannot satisfy. `code` is namespaced and stable (`bracket/unknown_match`)."""

    code = "format/error"


@dataclass(frozen=True)
class Problem:
    """A failure returned as a value (scalachess's `Either` left side), never raised."""

    code: str
    detail: str


class WinDrawLoss(str, enum.Enum):
    """How a two-player match ended, from seat 0's point of view (not `engines.protocol.Outcome`,
    which is a finished match's ranks and scores per seat)."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"


@dataclass(frozen=True)
class MatchResult:
    """One reported two-player match (possibly best-of-N games).

    `seat1 is None` records a pairing-allocated bye for `seat0` (its outcome is ignored: the scoring
    config says what a bye is worth), or, with `forfeit=True`, a round `seat0` missed (a late entry),
    scored by its outcome (a draw: a half-point bye). `games` = (seat0 game wins, seat1 game wins, drawn games), used
    by game-win percentage; (0, 0, 0) means "not recorded". `forfeit=True` means the match was decided
    without play: it scores like the outcome, but FIDE tie-breaks treat it as an unplayed round.
    """

    round: int
    seat0: PlayerId
    seat1: PlayerId | None
    outcome: WinDrawLoss = WinDrawLoss.WIN
    games: tuple[int, int, int] = (0, 0, 0)
    forfeit: bool = False

    @property
    def is_bye(self) -> bool:
        return self.seat1 is None


@dataclass(frozen=True)
class Pairing:
    """Who sits where at one table in one round; `seat1 is None` is a bye for `seat0`."""

    round: int
    table: int
    seat0: PlayerId
    seat1: PlayerId | None

    @property
    def players(self) -> tuple[PlayerId, ...]:
        return (self.seat0,) if self.seat1 is None else (self.seat0, self.seat1)


@dataclass(frozen=True)
class Scoring:
    """Points per result. `bye`, `forfeit_win`, `forfeit_loss` default to win / win / loss."""

    win: float = 1.0
    draw: float = 0.5
    loss: float = 0.0
    bye: float | None = None
    forfeit_win: float | None = None
    forfeit_loss: float | None = None

    @property
    def bye_points(self) -> float:
        return self.win if self.bye is None else self.bye

    def points(self, result: MatchResult, player: PlayerId) -> float:
        """Points `player` earned in `result` (which must involve them)."""
        if result.seat1 is None:
            if result.forfeit:  # an absence (a missed round), not the pairing-allocated bye
                return {WinDrawLoss.WIN: self.win, WinDrawLoss.DRAW: self.draw, WinDrawLoss.LOSS: self.loss}[
                    result.outcome
                ]
            return self.bye_points
        outcome = result.outcome if player == result.seat0 else _flip(result.outcome)
        if result.forfeit:
            if outcome is WinDrawLoss.WIN:
                return self.win if self.forfeit_win is None else self.forfeit_win
            if outcome is WinDrawLoss.LOSS:
                return self.loss if self.forfeit_loss is None else self.forfeit_loss
        return {WinDrawLoss.WIN: self.win, WinDrawLoss.DRAW: self.draw, WinDrawLoss.LOSS: self.loss}[outcome]


CHESS = Scoring(1.0, 0.5, 0.0)
#: Magic: The Gathering Tournament Rules, Appendix C: 3 / 1 / 0 match points, a bye is a match win.
MATCH_POINTS = Scoring(3.0, 1.0, 0.0)


_FLIPPED = {
    WinDrawLoss.WIN: WinDrawLoss.LOSS,
    WinDrawLoss.LOSS: WinDrawLoss.WIN,
    WinDrawLoss.DRAW: WinDrawLoss.DRAW,
}


def _flip(outcome: WinDrawLoss) -> WinDrawLoss:
    return _FLIPPED[outcome]


def outcome_for(result: MatchResult, player: PlayerId) -> WinDrawLoss:
    """The outcome of `result` from `player`'s side."""
    return result.outcome if player == result.seat0 else _flip(result.outcome)


def seed_players(
    players: Sequence[PlayerId],
    method: str = "manual",
    *,
    ratings: dict | None = None,
    rng: random.Random | int | None = None,
) -> tuple[PlayerId, ...]:
    """Seed order (index 0 = seed 1).

    `manual`: the order given. `random`: shuffled by `rng` (a `random.Random` or an int seed; required,
    so that a draw is reproducible). `rating`: highest rating first, the given order breaking ties.
    """
    players = tuple(players)
    if len(set(players)) != len(players):
        raise FormatError("a player appears twice", code="seeding/duplicate_player")
    if method == "manual":
        return players
    if method == "random":
        if rng is None:
            raise FormatError("random seeding needs an explicit seed or random.Random", code="seeding/no_rng")
        rnd = rng if isinstance(rng, random.Random) else random.Random(rng)
        shuffled = list(players)
        rnd.shuffle(shuffled)
        return tuple(shuffled)
    if method == "rating":
        if ratings is None:
            raise FormatError("rating seeding needs ratings", code="seeding/no_ratings")
        order = sorted(range(len(players)), key=lambda i: (-float(ratings.get(players[i], 0)), i))
        return tuple(players[i] for i in order)
    raise FormatError(f"unknown seeding method {method!r}", code="seeding/unknown_method")
