"""Standings and tie-breaks.

| Tie-break                              | Source                                   | Acronym | Here |
|----------------------------------------|------------------------------------------|---------|------|
| Points                                 | the format's scoring (always first)      | PTS     | ✅   |
| Direct Encounter                       | FIDE C.07 (2024-08) Art. 6               | DE      | ✅ (*1) |
| Number of Wins                         | FIDE C.07 Art. 7.1                       | WIN     | ✅ (*2) |
| Number of Games Won (over the board)   | FIDE C.07 Art. 7.2                       | WON     | ❌   |
| Games played with Black (seat 1)       | FIDE C.07 Art. 7.3                       | BPG     | ❌   |
| Games won with Black (seat 1)          | FIDE C.07 Art. 7.4                       | BWG     | ❌   |
| (Sum of) Progressive Scores            | FIDE C.07 Art. 7.5                       | PS      | ❌   |
| Games one Elected to Play              | FIDE C.07 Art. 7.6                       | GE      | ❌   |
| Buchholz                               | FIDE C.07 Art. 8.1                       | BH      | ✅ (*3) |
| Buchholz Cut-1                         | FIDE C.07 Art. 8.1 + Art. 14 (modifier)  | BH-C1   | ✅ (*3) |
| Median Buchholz (Median-1)             | FIDE C.07 Art. 8.1 + Art. 14 (modifier)  | BH-M1   | ✅ (*3) |
| Average of Opponents' Buchholz         | FIDE C.07 Art. 8.2                       | AOB     | ❌   |
| Fore Buchholz                          | FIDE C.07 Art. 8.3                       | FB      | ❌   |
| Sonneborn-Berger                       | FIDE C.07 Art. 9.1                       | SB      | ✅ (*3) |
| Koya System                            | FIDE C.07 Art. 9.2                       | KS      | ❌   |
| Average Rating of Opponents            | FIDE C.07 Art. 10.1                      | ARO     | ❌   |
| Tournament Performance Rating          | FIDE C.07 Art. 10.2                      | TPR     | ❌   |
| Perfect Tournament Performance         | FIDE C.07 Art. 10.3                      | PTP     | ❌   |
| Avg. Performance Rating of Opponents   | FIDE C.07 Art. 10.4                      | APRO    | ❌   |
| Avg. Perfect Performance of Opponents  | FIDE C.07 Art. 10.5                      | APPO    | ❌   |
| Opponents' match-win percentage        | MTG Tournament Rules, Appendix C         | OMW%    | ✅ (*4) |
| Game-win percentage                    | MTG Tournament Rules, Appendix C         | GW%     | ✅ (*4) |
| Opponents' game-win percentage         | MTG Tournament Rules, Appendix C         | OGW%    | ✅ (*4) |
| Seed (pairing number)                  | last resort instead of lots (C.07 4.2)   | SEED    | ✅ (always last) |

FIDE C.07 = FIDE Handbook C.07 "Play-off and Tie-Break Regulations", edition applied from 1 Aug 2024.

(*1) DE is applied to the players still tied when it is reached. If every pair of them has met, the
     points they scored in those games rank them; otherwise DE does not separate them (the Art. 6
     clause about a partial set of games that is already conclusive is not implemented). Forfeits are
     not games between them (the default of C.07; the "/P" option is not implemented).
(*2) WIN counts rounds won, byes and forfeit wins included (Art. 7.1 counts them; WON would not).
(*3) Unplayed rounds (our reading of C.07 Art. 16, 2024 edition): a player's bye or forfeit (won or
     lost) is not a game against that opponent; for BH/SB the round counts as a game against a dummy
     opponent whose score is the player's own final score (SB weights it by the round's result). An
     opponent's score is their final points as recorded (their own byes included). Cut-1 removes the
     lowest value, Median-1 the lowest and the highest (Art. 14); the rule that a voluntarily unplayed
     round is cut first does not apply because we do not record voluntary absences, and the 2026
     amendment capping the dummy's score is not applied.
(*4) MTR Appendix C: a player's match-win percentage is their match points divided by the points
     possible (win points × rounds, byes included as wins), never below 1/3; OMW% averages that over
     the opponents actually paired (byes are not opponents; forfeits are). Game-win percentage is game
     points (3 per game won, 1 per drawn game) over 3 × games, never below 1/3; a bye counts as two game
     wins. A match with no recorded games adds nothing to game-win percentages.

Every row explains itself: each value carries its terms (round, opponent, number) and what was cut.
"""

from __future__ import annotations

import enum
import gc
import math
import random
import threading
import time
from collections import defaultdict, deque
from collections.abc import Iterable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import accumulate, chain, compress, groupby, repeat
from operator import add, attrgetter, ge, itemgetter, mul, neg, sub, truediv

from .common import CHESS, FormatError, MatchResult, PlayerId, Scoring, WinDrawLoss

MTG_FLOOR = 1.0 / 3.0


class Tiebreak(str, enum.Enum):
    DIRECT_ENCOUNTER = "DE"
    WINS = "WIN"
    BUCHHOLZ = "BH"
    BUCHHOLZ_CUT1 = "BH-C1"
    MEDIAN_BUCHHOLZ = "BH-M1"
    SONNEBORN_BERGER = "SB"
    OPPONENTS_MATCH_WIN = "OMW%"
    GAME_WIN = "GW%"
    OPPONENTS_GAME_WIN = "OGW%"


#: Acronym → (source, implemented). The machine-readable copy of the table above (tested).
TIEBREAK_TABLE: dict[str, tuple[str, bool]] = {
    "PTS": ("scoring", True),
    "DE": ("FIDE C.07 Art. 6", True),
    "WIN": ("FIDE C.07 Art. 7.1", True),
    "WON": ("FIDE C.07 Art. 7.2", False),
    "BPG": ("FIDE C.07 Art. 7.3", False),
    "BWG": ("FIDE C.07 Art. 7.4", False),
    "PS": ("FIDE C.07 Art. 7.5", False),
    "GE": ("FIDE C.07 Art. 7.6", False),
    "BH": ("FIDE C.07 Art. 8.1", True),
    "BH-C1": ("FIDE C.07 Art. 8.1, 14", True),
    "BH-M1": ("FIDE C.07 Art. 8.1, 14", True),
    "AOB": ("FIDE C.07 Art. 8.2", False),
    "FB": ("FIDE C.07 Art. 8.3", False),
    "SB": ("FIDE C.07 Art. 9.1", True),
    "KS": ("FIDE C.07 Art. 9.2", False),
    "ARO": ("FIDE C.07 Art. 10.1", False),
    "TPR": ("FIDE C.07 Art. 10.2", False),
    "PTP": ("FIDE C.07 Art. 10.3", False),
    "APRO": ("FIDE C.07 Art. 10.4", False),
    "APPO": ("FIDE C.07 Art. 10.5", False),
    "OMW%": ("MTR Appendix C", True),
    "GW%": ("MTR Appendix C", True),
    "OGW%": ("MTR Appendix C", True),
    "SEED": ("C.07 Art. 4.2 (instead of lots)", True),
}


#: Acronym → the name FIDE C.07 (or the MTR) gives it, modifier included, as people read it.
TIEBREAK_NAMES: dict[str, str] = {
    "PTS": "Points",
    "DE": "Direct Encounter",
    "WIN": "Number of Wins",
    "BH": "Buchholz",
    "BH-C1": "Buchholz Cut-1",
    "BH-M1": "Buchholz Median-1",
    "SB": "Sonneborn-Berger",
    "OMW%": "Opponents' Match-Win Percentage",
    "GW%": "Game-Win Percentage",
    "OGW%": "Opponents' Game-Win Percentage",
    "SEED": "Seed (instead of drawing lots)",
}


@dataclass(frozen=True)
class StandingsConfig:
    scoring: Scoring = CHESS
    tiebreaks: tuple[Tiebreak, ...] = (
        Tiebreak.DIRECT_ENCOUNTER,
        Tiebreak.BUCHHOLZ_CUT1,
        Tiebreak.BUCHHOLZ,
        Tiebreak.SONNEBORN_BERGER,
    )


#: One number behind a tie-break: (round, opponent, value); opponent None is a dummy opponent
#: (an unplayed round). A plain tuple: standings for 10,000 players build about a million of them.
Term = tuple


@dataclass(frozen=True, slots=True)
class TiebreakValue:
    code: str
    value: float | None  # None: not applicable (DE among players who did not all meet, or not tied)
    terms: tuple[Term, ...] = ()
    cut: tuple[Term, ...] = ()
    note: str = ""

    def explain(self) -> str:
        name = f"{TIEBREAK_NAMES[self.code]} ({self.code})" if self.code in TIEBREAK_NAMES else self.code
        if self.value is None:
            return f"{name}: n/a ({self.note})" if self.note else f"{name}: n/a"
        parts = ", ".join(_term_text(t) for t in self.terms)
        text = f"{name} = {self.value:g}"
        if parts:
            text += f" from {parts}"
        if self.cut:
            text += "; cut " + ", ".join(_term_text(t) for t in self.cut)
        if self.note:
            text += f" ({self.note})"
        return text


def _term_text(term: Term) -> str:
    rnd, opponent, value = term
    who = "dummy" if opponent is None else repr(opponent)
    return f"r{rnd} {who} {value:g}"


@dataclass(frozen=True, slots=True)
class StandingRow:
    rank: int
    player: PlayerId
    seed: int
    points: float
    values: tuple[TiebreakValue, ...]
    tied: int = 1  # how many players (this one included) have these points

    def value(self, code: str | Tiebreak) -> float | None:
        code = code.value if isinstance(code, Tiebreak) else code
        for value in self.values:
            if value.code == code:
                return value.value
        raise KeyError(code)

    def explain(self) -> str:
        lines = [f"#{self.rank} {self.player!r}: {self.points:g} points (seed {self.seed})"]
        lines += ["  " + value.explain() for value in self.values]
        return "\n".join(lines)


class _Tables:
    """Per-player aggregates from one pass over the results, then each tie-break as a column (one
    value per player) computed for everyone at once, over flat per-entry arrays that C-level `map`,
    `zip` and `sum` walk (10,000 players and 14 rounds are 140,000 entries). The numbers are those
    of the per-player definitions to the last bit; a test compares the two on random tournaments."""

    def __init__(self, players: Sequence[PlayerId], results: Sequence[MatchResult], scoring: Scoring):
        self.players = tuple(players)
        idx = {p: i for i, p in enumerate(self.players)}
        if len(idx) != len(self.players):
            raise FormatError("a player appears twice", code="standings/duplicate_player")
        n = len(self.players)
        self.scoring = scoring
        # Per player, in the order of the results, _FIELDS values an entry: round, opponent index or
        # -1, points earned, won, whose score a Buchholz term takes (the opponent's, or the player's
        # own for an unplayed round), whose name it shows (-1: the dummy of an unplayed round), game
        # points, games. Kept flat (no tuple per entry), so that the columns are strided slices.
        entries: list[list] = [[] for _ in range(n)]
        add = [player_entries.extend for player_entries in entries]
        bye_points = scoring.bye_points
        bye_won = bye_points >= scoring.win
        # (seat 0's points, seat 1's) per outcome, played and forfeited apart: a lookup by the outcome
        # alone costs less than building an (outcome, forfeit) key for each of 70,000 results.
        earned = _earned(scoring)
        played = {outcome: earned[outcome, False] for outcome in WinDrawLoss}
        forfeited = {outcome: earned[outcome, True] for outcome in WinDrawLoss}
        win, loss = WinDrawLoss.WIN, WinDrawLoss.LOSS
        fields = attrgetter("round", "seat0", "seat1", "outcome", "forfeit", "games")
        try:
            for rnd, seat0, seat1, outcome, forfeit, (g0, g1, gd) in map(fields, results):
                a = idx[seat0]
                if seat1 is None:
                    if forfeit:  # a missed round scored by its outcome (a half-point bye): no games
                        missed = scoring.points(MatchResult(rnd, seat0, None, outcome, forfeit=True), seat0)
                        add[a]((rnd, -1, missed, outcome is win, a, -1, 0.0, 0))
                        continue
                    add[a](
                        (rnd, -1, bye_points, bye_won, a, -1, 6.0, 2)
                    )  # a bye is two game wins (MTR Appendix C)
                    continue
                b = idx[seat1]
                pa, pb = forfeited[outcome] if forfeit else played[outcome]
                if b == a:  # Scoring.points reads a player who holds both seats as seat 0
                    pb = pa
                count = g0 + g1 + gd  # no recorded games add nothing
                if forfeit:
                    add[a]((rnd, b, pa, outcome is win, a, -1, 3 * g0 + gd, count))
                    add[b]((rnd, a, pb, outcome is loss, b, -1, 3 * g1 + gd, count))
                else:
                    add[a]((rnd, b, pa, outcome is win, b, b, 3 * g0 + gd, count))
                    add[b]((rnd, a, pb, outcome is loss, a, a, 3 * g1 + gd, count))
        except KeyError:
            for result in results:  # name the first unknown player, as a one-by-one pass would
                if result.seat0 not in idx:
                    raise FormatError(
                        f"result names unknown player {result.seat0!r}", code="standings/unknown_player"
                    ) from None
                if result.seat1 is not None and result.seat1 not in idx:
                    raise FormatError(
                        f"result names unknown player {result.seat1!r}", code="standings/unknown_player"
                    ) from None
            raise
        self.rounds = rounds = [len(e) // _FIELDS for e in entries]
        # Flat columns, player after player: player i's entries are spans[i] = [start, end).
        start = [0, *accumulate(rounds)]
        self.spans = list(zip(start, start[1:]))
        # The same as slices, so that C-level `map`s cut every player's entries out of a column.
        self.windows = windows = list(map(slice, start, start[1:]))
        flat = list(chain.from_iterable(entries))
        del entries, add
        self.rnd, self.opp, self.pts, won, self.score_ref, self.name_ref, game_points, games = (
            flat[k::_FIELDS] for k in range(_FIELDS)
        )
        del flat
        # Sums in the order the results came, from 0.0, as adding them one by one would.
        self.points = list(map(sum, map(self.pts.__getitem__, windows), repeat(0.0)))
        self.wins = list(map(sum, map(won.__getitem__, windows)))
        self.game_points = list(map(sum, map(game_points.__getitem__, windows), repeat(0.0)))
        self.games = list(map(sum, map(games.__getitem__, windows)))
        self.byes = list(map(list.count, map(self.opp.__getitem__, windows), repeat(-1)))
        self._paired: tuple | None = None
        self._scores: list[float] | None = None
        self._names: list | None = None
        self.exact = _exact_sums(scoring, max(rounds, default=0))

    # -- FIDE opponents' scores ------------------------------------------------------------------
    def buchholz_columns(self, cuts: dict[str, tuple[int, int]]) -> dict[str, list[TiebreakValue]]:
        """BH and its modifiers ({code: (cut lowest, cut highest)}) for every player. A term is the
        opponent's score; an unplayed round is a dummy opponent with the player's own score (our
        reading of Art. 16). Kept terms are listed in order, cut ones lowest first: with the lowest
        term taken first and, among equal terms, the earliest round (a stable sort by value)."""
        scores = self.opponent_scores()
        terms = tuple(zip(self.rnd, self.opponent_names(), scores))
        exact, in_order = self.exact, self.rounds_in_order()
        if exact and min(self.rounds, default=0) >= 2:
            return self._exact_buchholz_columns(cuts, scores, terms, in_order)
        # (value, terms, cut) per player and code; the TiebreakValues are made a column at a time.
        parts: dict[str, list[tuple]] = {code: [] for code in cuts}
        plan = [(parts[code].append, code, lo, hi) for code, (lo, hi) in cuts.items()]
        for s, e in self.spans:
            mine = terms[s:e]
            by_round = mine if in_order else tuple(sorted(mine))
            size = e - s
            if exact and size >= 2:
                # As _exact_buchholz_columns, for one player.
                total = sum(scores[s:e])
                lowest = min(mine, key=_third)
                highest = max(reversed(mine), key=_third)
                for keep, code, cut_low, cut_high in plan:
                    if not cut_low and not cut_high:
                        keep((float(total), by_round, ()))
                    elif not cut_high:
                        keep((float(total - lowest[2]), _without(by_round, lowest), (lowest,)))
                    elif not cut_low:
                        keep((float(total - highest[2]), _without(by_round, highest), (highest,)))
                    else:
                        kept = _without(_without(by_round, lowest), highest)
                        keep((float(total - lowest[2] - highest[2]), kept, (lowest, highest)))
                continue
            ordered = sorted(mine, key=_third)
            for keep, code, cut_low, cut_high in plan:
                lo = min(cut_low, size)
                hi = min(cut_high, size - lo)
                kept = ordered[lo : size - hi]
                keep(
                    (
                        float(sum(t[2] for t in kept)),
                        tuple(sorted(kept)),
                        tuple(ordered[:lo] + ordered[size - hi :]),
                    )
                )
        out = {}
        for code, rows in parts.items():
            values, kept_terms, cut_terms = zip(*rows) if rows else ((), (), ())
            out[code] = _values(code, values, kept_terms, cut_terms)
        return out

    def _exact_buchholz_columns(
        self, cuts: dict[str, tuple[int, int]], scores: list[float], terms: tuple, in_order: bool
    ) -> dict[str, list[TiebreakValue]]:
        """buchholz_columns when every player has two terms or more and every sum is exact.

        Every score is a small multiple of 1/1024, so every sum is exact in any order: the total
        less the cut terms is the sum of the kept ones, with no sort by value. A stable sort by value
        puts first the earliest of the lowest terms, and last the latest of the highest. Each step
        is one C-level `map` over the players, instead of a Python loop with a dozen calls per player."""
        windows = self.windows
        mine = list(map(terms.__getitem__, windows))
        by_round = mine if in_order else list(map(tuple, map(sorted, mine)))
        own_scores = list(map(scores.__getitem__, windows))
        totals = list(map(sum, own_scores))
        # The first lowest term is at the first index of the lowest score; the last highest at the
        # last index of the highest, found as the first in the scores reversed (cheaper than
        # min(..., key=) over the terms; the same terms, as scores compare as their terms do).
        low, high = list(map(min, own_scores)), list(map(max, own_scores))
        starts, ends = [s for s, _ in self.spans], [e for _, e in self.spans]
        lowest = list(map(terms.__getitem__, map(scores.index, low, starts, ends)))
        size = len(scores)
        backwards = scores[::-1]
        last_high = map(backwards.index, high, map(sub, repeat(size), ends), map(sub, repeat(size), starts))
        highest = list(map(terms.__getitem__, map(sub, repeat(size - 1), last_high)))
        without_lowest: list[tuple] | None = None  # shared by Cut-1 and Median-1
        out = {}
        for code, (cut_low, cut_high) in cuts.items():
            if not cut_low and not cut_high:
                out[code] = _values(code, list(map(float, totals)), by_round, repeat(()))
            elif not cut_high:
                without_lowest = without_lowest or list(map(_without, by_round, lowest))
                out[code] = _values(
                    code, list(map(float, map(sub, totals, low))), without_lowest, zip(lowest)
                )
            elif not cut_low:
                out[code] = _values(
                    code,
                    list(map(float, map(sub, totals, high))),
                    list(map(_without, by_round, highest)),
                    zip(highest),
                )
            else:
                without_lowest = without_lowest or list(map(_without, by_round, lowest))
                kept = list(map(_without, without_lowest, highest))
                out[code] = _values(
                    code, list(map(float, map(sub, map(sub, totals, low), high))), kept, zip(lowest, highest)
                )
        return out

    def sonneborn_berger_column(self) -> list[TiebreakValue]:
        """SB: each opponent's score weighted by the result against them; an unplayed round is a
        dummy with the player's own score, weighted by that round's result."""
        win = self.scoring.win or 1.0
        values = list(map(mul, self.opponent_scores(), self.pts))
        if win != 1.0:  # x / 1.0 is x exactly
            values = list(map(truediv, values, repeat(win, len(values))))
        terms = tuple(zip(self.rnd, self.opponent_names(), values))
        windows = self.windows
        totals = list(map(float, map(sum, map(values.__getitem__, windows))))
        return _values("SB", totals, list(map(terms.__getitem__, windows)), repeat(()))

    def opponent_scores(self) -> list[float]:
        """Per entry, the score a Buchholz term takes: the opponent's, or the player's own for an
        unplayed round (a dummy opponent, our reading of Art. 16)."""
        if self._scores is None:
            self._scores = list(map(self.points.__getitem__, self.score_ref))
        return self._scores

    def opponent_names(self) -> list:
        """Per entry, the opponent a FIDE term names: None for the dummy of an unplayed round."""
        if self._names is None:
            names = [*self.players, None]
            self._names = list(map(names.__getitem__, self.name_ref))
        return self._names

    def rounds_in_order(self) -> bool:
        """Whether each player's rounds strictly increase (as when results come round by round), so
        that their terms are already sorted: every step down is where one player's entries end."""
        rnd = self.rnd
        steps_down = compress(range(1, len(rnd)), map(ge, rnd[:-1], rnd[1:]))
        return {s for s, _ in self.spans}.issuperset(steps_down)

    # -- MTR percentages ------------------------------------------------------------------------
    def match_wins(self) -> list[float]:
        """Every player's match-win percentage."""
        win = self.scoring.win or 1.0
        return [
            max(MTG_FLOOR, points / possible) if (possible := win * rounds) else MTG_FLOOR
            for points, rounds in zip(self.points, self.rounds)
        ]

    def game_wins(self) -> list[float]:
        """Every player's game-win percentage."""
        return [_game_win(key) for key in zip(self.game_points, self.games)]

    def opponents_pct_column(self, own_pct: list[float], code: str) -> list[TiebreakValue]:
        """The mean of the opponents' percentages over the rounds actually paired (byes are not
        opponents; forfeits are)."""
        if self._paired is None:  # shared by OMW% and OGW%: the entries that had an opponent
            paired = list(map((-1).__ne__, self.opp))
            opp = list(compress(self.opp, paired))
            counts = list(map(sub, self.rounds, self.byes))
            ends = list(accumulate(counts))
            windows = list(map(slice, [0, *ends], ends))
            self._paired = (
                opp,
                list(compress(self.rnd, paired)),
                list(map(self.players.__getitem__, opp)),
                windows,
                counts,
            )
        opp, rounds, names, windows, counts = self._paired
        values = list(map(own_pct.__getitem__, opp))
        terms = tuple(zip(rounds, names, values))
        if 0 in counts:  # someone has no opponents
            means = [sum(values[w]) / count if count else 0.0 for w, count in zip(windows, counts)]
        else:
            means = list(map(truediv, map(sum, map(values.__getitem__, windows)), counts))
        column = _values(
            code, means, list(map(terms.__getitem__, windows)), repeat(()), "each opponent floored at 1/3"
        )
        if 0 in counts:
            alone = _value(code, 0.0, (), (), "no opponents")
            for i in [i for i, count in enumerate(counts) if not count]:
                column[i] = alone
        return column

    def columns(self, tiebreaks: Sequence[Tiebreak]) -> dict[Tiebreak, list[TiebreakValue]]:
        """Every order-independent tie-break's value for every player (DE depends on who is tied)."""
        out: dict[Tiebreak, list[TiebreakValue]] = {}
        cuts = {Tiebreak.BUCHHOLZ: (0, 0), Tiebreak.BUCHHOLZ_CUT1: (1, 0), Tiebreak.MEDIAN_BUCHHOLZ: (1, 1)}
        wanted = {t.value: cuts[t] for t in tiebreaks if t in cuts}
        if wanted:
            by_code = self.buchholz_columns(wanted)
            out.update({t: by_code[t.value] for t in tiebreaks if t in cuts})
        for tiebreak in tiebreaks:
            if tiebreak in out or tiebreak is Tiebreak.DIRECT_ENCOUNTER:
                continue
            if tiebreak is Tiebreak.SONNEBORN_BERGER:
                out[tiebreak] = self.sonneborn_berger_column()
            elif tiebreak is Tiebreak.WINS:
                shared = {w: _value("WIN", float(w)) for w in set(self.wins)}  # values are immutable
                out[tiebreak] = [shared[w] for w in self.wins]
            elif tiebreak is Tiebreak.OPPONENTS_MATCH_WIN:
                out[tiebreak] = self.opponents_pct_column(self.match_wins(), "OMW%")
            elif tiebreak is Tiebreak.OPPONENTS_GAME_WIN:
                out[tiebreak] = self.opponents_pct_column(self.game_wins(), "OGW%")
            elif tiebreak is Tiebreak.GAME_WIN:
                keys = list(zip(self.game_points, self.games))
                shared = {  # one value per (game points, games): many players share them
                    key: _value(
                        "GW%",
                        _game_win(key),
                        (),
                        (),
                        f"{key[0]:g} game points over {key[1]} games, floor 1/3",
                    )
                    for key in set(keys)
                }
                out[tiebreak] = list(map(shared.__getitem__, keys))
            else:
                raise FormatError(f"unknown tie-break {tiebreak!r}", code="standings/unknown_tiebreak")
        return out

    def direct_encounter(self, group: list[int]) -> dict[int, TiebreakValue]:
        rounds = self.rounds
        if any(rounds[i] < len(group) - 1 for i in group):  # someone has too few games to have met them all
            return dict.fromkeys(group, _value("DE", None, note="the tied players have not all met"))
        members = set(group)
        met: dict[int, set[int]] = {i: set() for i in group}
        scored: dict[int, list[Term]] = {i: [] for i in group}
        for i in group:
            s, e = self.spans[i]
            for rnd, opp, pts, name in zip(self.rnd[s:e], self.opp[s:e], self.pts[s:e], self.name_ref[s:e]):
                if name >= 0 and opp in members:  # played over the board
                    met[i].add(opp)
                    scored[i].append((rnd, self.players[opp], pts))
        if any(len(met[i]) != len(group) - 1 for i in group):
            return {i: TiebreakValue("DE", None, note="the tied players have not all met") for i in group}
        return {i: TiebreakValue("DE", float(sum(t[2] for t in scored[i])), tuple(scored[i])) for i in group}


_FIELDS = 8  # values per entry in _Tables


def _earned(scoring: Scoring) -> dict[tuple[WinDrawLoss, bool], tuple[float, float]]:
    """(seat 0's points, seat 1's points) for each outcome, played or forfeited, as Scoring.points says."""
    table = {}
    for outcome in WinDrawLoss:
        for forfeit in (False, True):
            result = MatchResult(0, 0, 1, outcome, forfeit=forfeit)
            table[outcome, forfeit] = (scoring.points(result, 0), scoring.points(result, 1))
    return table


def _exact_sums(scoring: Scoring, most_rounds: int) -> bool:
    """Whether every points total, and every sum of totals a Buchholz adds, is exact in floating
    point whatever the order: each result is worth a multiple of 1/1024 no larger than 2**20, and
    nobody plays more than 2**11 rounds, so sums stay multiples of 1/1024 below 2**42 < 2**53 / 1024.
    True for every scoring in use (1 / ½ / 0, 3 / 1 / 0)."""
    values = {scoring.bye_points, *(v for pair in _earned(scoring).values() for v in pair)}
    return most_rounds <= 2**11 and all(
        isinstance(v, (int, float)) and math.isfinite(v) and abs(v) <= 2**20 and float(v * 1024).is_integer()
        for v in values
    )


def _without(terms: tuple, term: Term) -> tuple:
    k = terms.index(term)
    return terms[:k] + terms[k + 1 :]


# Frozen dataclasses set each field through object.__setattr__; standings for 10,000 players make
# 80,000 values and 10,000 rows, so these fill the slots directly (the same fields, in order).
_NEW = object.__new__
_VALUE_SLOTS = tuple(getattr(TiebreakValue, f).__set__ for f in ("code", "value", "terms", "cut", "note"))
_ROW_SLOTS = tuple(
    getattr(StandingRow, f).__set__ for f in ("rank", "player", "seed", "points", "values", "tied")
)


def _value(
    code: str, value: float | None, terms: tuple = (), cut: tuple = (), note: str = ""
) -> TiebreakValue:
    """TiebreakValue(code, value, terms, cut, note)."""
    made = _NEW(TiebreakValue)
    set_code, set_value, set_terms, set_cut, set_note = _VALUE_SLOTS
    set_code(made, code)
    set_value(made, value)
    set_terms(made, terms)
    set_cut(made, cut)
    set_note(made, note)
    return made


_third = itemgetter(2)  # a term's value

# Runs an iterator to its end, keeping nothing (the itertools "consume" recipe).
_consume = deque(maxlen=0).extend


def _values(
    code: str, values: Sequence, terms: Iterable, cuts: Iterable, note: str = ""
) -> list[TiebreakValue]:
    """[TiebreakValue(code, v, t, c, note) for v, t, c in zip(values, terms, cuts)]."""
    return _made(TiebreakValue, _VALUE_SLOTS, len(values), (repeat(code), values, terms, cuts, repeat(note)))


def _made(cls: type, slots: tuple, n: int, columns: tuple[Iterable, ...]) -> list:
    """n instances of cls, slot k of instance i set to the i-th item of columns[k]. Made a column at
    a time: each slot of every instance is filled by one C-level `map`, instead of a Python call per
    instance that calls every slot's setter (standings for 10,000 players make 70,000 values and rows)."""
    made = list(map(_NEW, repeat(cls, n)))
    for set_slot, column in zip(slots, columns, strict=True):
        _consume(map(set_slot, made, column))
    return made


def _game_win(key: tuple[float, int]) -> float:
    """Game-win percentage from (game points, games)."""
    game_points, games = key
    return max(MTG_FLOOR, game_points / (3.0 * games)) if games else MTG_FLOOR


def standings(
    players: Sequence[PlayerId], results: Sequence[MatchResult], config: StandingsConfig | None = None
) -> list[StandingRow]:
    """Rank `players` (given in seed order) by points, then `config.tiebreaks` in order, then seed.

    Each tie-break only separates players still tied on everything before it (C.07 Art. 4.2).
    """
    config = config or StandingsConfig()
    if len(results) < _COLLECTOR_HELD_FROM:
        return _standings(players, results, config)
    with _collector_held():
        return _standings(players, results, config)


# Below this many results the collector's work is negligible, and it is left alone.
_COLLECTOR_HELD_FROM = 2_000


_COLLECTOR_LOCK = threading.Lock()
_collector_holds = 0
_collector_was_enabled = False


@contextmanager
def _collector_held():
    """Standings for 10,000 players make about 750,000 small objects (the terms behind every value)
    that live until the rows are returned, none of them in a reference cycle. The cyclic collector
    would examine each of them at least twice meanwhile, and again in every full pass it makes over
    the process (it took over half the time). It is held while they are made; then every object
    tracked joins the oldest generation unexamined (gc.freeze() and gc.unfreeze(), unless someone
    keeps objects frozen), so the rows are freed by reference counting when their reader drops them
    and a full pass examines them only if it comes first. Callers in other threads share the hold."""
    global _collector_holds, _collector_was_enabled
    with _COLLECTOR_LOCK:
        if _collector_holds == 0:
            _collector_was_enabled = gc.isenabled()
            gc.disable()
        _collector_holds += 1
    try:
        yield
    finally:
        with _COLLECTOR_LOCK:
            _collector_holds -= 1
            if _collector_holds == 0:
                if gc.get_freeze_count() == 0:
                    gc.freeze()
                    gc.unfreeze()
                if _collector_was_enabled:
                    gc.enable()


def _standings(
    players: Sequence[PlayerId], results: Sequence[MatchResult], config: StandingsConfig
) -> list[StandingRow]:
    tables = _Tables(players, results, config.scoring)
    n = len(tables.players)
    # Values of the order-independent tie-breaks, for every player (rows explain all of them).
    computed = tables.columns(config.tiebreaks)
    direct: dict[int, TiebreakValue] = {}
    by_points: dict[float, list[int]] = defaultdict(list)
    rounded = list(map(round, tables.points, repeat(9)))
    for i, points in enumerate(rounded):
        by_points[points].append(i)
    groups = [by_points[p] for p in sorted(by_points, reverse=True)]
    point_group = list(map(len, map(by_points.__getitem__, rounded)))  # how many share each one's points
    # Every group lists its players by seed (index), and so does every run split from it.
    for tiebreak in config.tiebreaks:
        if len(groups) == n:  # everyone is apart (DE values not computed stay "not needed")
            break
        refined = []
        for group in groups:
            if len(group) == 1:
                refined.append(group)
                continue
            if tiebreak is Tiebreak.DIRECT_ENCOUNTER:
                values = tables.direct_encounter(group)
                direct.update(values)
                if values[group[0]].value is None:  # n/a for one is n/a for all: the group stays as it is
                    refined.append(group)
                    continue
                ranked = sorted(zip([_rank_key(values[i]) for i in group], group))
            else:
                # _rank_key of each value, by C-level maps (these values are never None); the first
                # tie-breaks reach all 10,000 players, one Python call each.
                values = map(_VALUE_OF, map(computed[tiebreak].__getitem__, group))
                ranked = sorted(zip(map(neg, map(round, values, repeat(9))), group))
            refined += (list(map(_second, run)) for _, run in groupby(ranked, key=_first))
        groups = refined
    order = [i for group in groups for i in group]  # seed breaks what is left
    not_needed = TiebreakValue("DE", None, note="not needed")
    columns = [
        list(map(direct.get, order, repeat(not_needed)))
        if tiebreak is Tiebreak.DIRECT_ENCOUNTER
        else list(map(computed[tiebreak].__getitem__, order))
        for tiebreak in config.tiebreaks
    ]
    values = zip(*columns) if columns else repeat((), n)
    players, points = tables.players, tables.points
    # StandingRow(rank, player, seed, points, values, tied), in order
    fields = (
        range(1, n + 1),
        map(players.__getitem__, order),
        map(add, order, repeat(1)),
        map(points.__getitem__, order),
        values,
        map(point_group.__getitem__, order),
    )
    return _made(StandingRow, _ROW_SLOTS, n, fields)


_VALUE_OF = attrgetter("value")


def _rank_key(value: TiebreakValue) -> float:
    """Higher values rank first; "not applicable" last (the sort is ascending)."""
    return 1e18 if value.value is None else -round(value.value, 9)


_first, _second = itemgetter(0), itemgetter(1)  # a (key, player) pair's key and player


def bench_standings(n_players: int, rounds: int = 14, seed: int = 0) -> float:
    """Seconds to compute standings with every implemented tie-break for a Swiss-like event of
    `n_players` and `rounds` rounds (pairings simulated: sort by score, pair neighbours)."""
    rnd = random.Random(seed)
    players = list(range(n_players))
    score = [0.0] * n_players
    results: list[MatchResult] = []
    for r in range(1, rounds + 1):
        order = sorted(players, key=lambda p: (-score[p], p))
        if len(order) % 2:
            bye = order.pop()
            results.append(MatchResult(r, bye, None))
            score[bye] += 1
        for k in range(0, len(order), 2):
            a, b = order[k], order[k + 1]
            outcome = rnd.choice((WinDrawLoss.WIN, WinDrawLoss.DRAW, WinDrawLoss.LOSS))
            results.append(
                MatchResult(
                    r,
                    a,
                    b,
                    outcome,
                    games=(2, rnd.randint(0, 1), 0)
                    if outcome is WinDrawLoss.WIN
                    else (rnd.randint(0, 1), 2, 0)
                    if outcome is WinDrawLoss.LOSS
                    else (1, 1, 1),
                )
            )
            score[a] += {WinDrawLoss.WIN: 1, WinDrawLoss.DRAW: 0.5, WinDrawLoss.LOSS: 0}[outcome]
            score[b] += {WinDrawLoss.WIN: 0, WinDrawLoss.DRAW: 0.5, WinDrawLoss.LOSS: 1}[outcome]
    config = StandingsConfig(tiebreaks=tuple(Tiebreak))
    start = time.perf_counter()
    standings(players, results, config)
    return time.perf_counter() - start
