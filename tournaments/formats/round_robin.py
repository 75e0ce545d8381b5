"""Round robin / league schedules by the circle method.

Source: the circle (polygon) method, as used for FIDE Berger tables (FIDE Handbook C.05, Annex 1):
one player is fixed and the others rotate one place per round. With n odd a phantom takes the fixed
place and whoever meets it has the bye.

Seat balance: in round r the rotating players are paired (r+k) v (r-k) (mod n-1) for k = 1..n/2-1,
and the one at r meets the fixed player. We give seat 0 to (r+k) when k is odd and to (r-k) when k is
even; then every rotating player gets seat 0 in exactly one of its two games at each distance k, i.e.
m-1 times over the 2(m-1) such games (m = n/2), plus its game with the fixed player. The fixed player
alternates by round. So every player's seat-0 and seat-1 counts differ by at most 1 — the best any
schedule can do, since each player plays n-1 games. (With n odd every player gets exactly (n-1)/2 of
each.) The second leg replays the first with seats swapped.

Standings: `league_standings` is `tiebreaks.standings` with the league's points (default 3/1/0).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .common import FormatError, MatchResult, Pairing, PlayerId, Scoring


@dataclass(frozen=True)
class Round:
    number: int
    pairings: tuple[Pairing, ...]
    bye: PlayerId | None = None


def round_robin_schedule(players: Sequence[PlayerId], *, legs: int = 1) -> tuple[Round, ...]:
    """Every round of a round robin over `players` (in seed order), `legs` times (1 or 2)."""
    players = tuple(players)
    if len(players) < 2:
        raise FormatError("a round robin needs at least 2 players", code="round_robin/too_few_players")
    if len(set(players)) != len(players):
        raise FormatError("a player appears twice", code="round_robin/duplicate_player")
    if legs not in (1, 2):
        raise FormatError("legs must be 1 or 2", code="round_robin/bad_legs")
    slots: list[PlayerId | None] = list(players)
    if len(slots) % 2:
        slots.append(None)  # the phantom: its opponent has the bye
    n = len(slots)
    rotating, fixed = slots[:-1], slots[-1]
    first_leg: list[list[tuple[PlayerId | None, PlayerId | None]]] = []
    for r in range(n - 1):
        games = []
        here = rotating[r]
        # The fixed player alternates seats by round.
        games.append((fixed, here) if r % 2 == 0 else (here, fixed))
        for k in range(1, n // 2):
            a, b = rotating[(r + k) % (n - 1)], rotating[(r - k) % (n - 1)]
            games.append((a, b) if k % 2 else (b, a))
        first_leg.append(games)
    rounds = []
    for leg in range(legs):
        for r, games in enumerate(first_leg):
            number = leg * (n - 1) + r + 1
            pairings, bye, table = [], None, 1
            for a, b in games:
                if leg == 1:
                    a, b = b, a
                if a is None or b is None:
                    bye = b if a is None else a
                    continue
                pairings.append(Pairing(number, table, a, b))
                table += 1
            rounds.append(Round(number, tuple(pairings), bye))
    return tuple(rounds)


def league_standings(
    players: Sequence[PlayerId],
    results: Sequence[MatchResult],
    *,
    scoring: Scoring | None = None,
    tiebreaks=None,
):
    """League table: points (default 3 for a win, 1 for a draw), then `tiebreaks` (default head-to-head,
    Sonneborn-Berger, wins, seed)."""
    from .tiebreaks import StandingsConfig, Tiebreak, standings

    config = StandingsConfig(
        scoring=scoring or Scoring(3.0, 1.0, 0.0),
        tiebreaks=tuple(tiebreaks)
        if tiebreaks is not None
        else (Tiebreak.DIRECT_ENCOUNTER, Tiebreak.SONNEBORN_BERGER, Tiebreak.WINS),
    )
    return standings(players, results, config)
