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
import random
import time
from collections import defaultdict
from dataclasses import dataclass
from typing import Sequence

from .common import CHESS, FormatError, MatchResult, Outcome, PlayerId, Scoring

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
    "PTS": ("scoring", True), "DE": ("FIDE C.07 Art. 6", True), "WIN": ("FIDE C.07 Art. 7.1", True),
    "WON": ("FIDE C.07 Art. 7.2", False), "BPG": ("FIDE C.07 Art. 7.3", False), "BWG": ("FIDE C.07 Art. 7.4", False),
    "PS": ("FIDE C.07 Art. 7.5", False), "GE": ("FIDE C.07 Art. 7.6", False), "BH": ("FIDE C.07 Art. 8.1", True),
    "BH-C1": ("FIDE C.07 Art. 8.1, 14", True), "BH-M1": ("FIDE C.07 Art. 8.1, 14", True),
    "AOB": ("FIDE C.07 Art. 8.2", False), "FB": ("FIDE C.07 Art. 8.3", False), "SB": ("FIDE C.07 Art. 9.1", True),
    "KS": ("FIDE C.07 Art. 9.2", False), "ARO": ("FIDE C.07 Art. 10.1", False), "TPR": ("FIDE C.07 Art. 10.2", False),
    "PTP": ("FIDE C.07 Art. 10.3", False), "APRO": ("FIDE C.07 Art. 10.4", False), "APPO": ("FIDE C.07 Art. 10.5", False),
    "OMW%": ("MTR Appendix C", True), "GW%": ("MTR Appendix C", True), "OGW%": ("MTR Appendix C", True),
    "SEED": ("C.07 Art. 4.2 (instead of lots)", True),
}


@dataclass(frozen=True)
class StandingsConfig:
    scoring: Scoring = CHESS
    tiebreaks: tuple[Tiebreak, ...] = (Tiebreak.DIRECT_ENCOUNTER, Tiebreak.BUCHHOLZ_CUT1, Tiebreak.BUCHHOLZ, Tiebreak.SONNEBORN_BERGER)


#: One number behind a tie-break: (round, opponent, value); opponent None is a dummy opponent
#: (an unplayed round). A plain tuple: standings for 10,000 players build about a million of them.
Term = tuple


@dataclass(frozen=True)
class TiebreakValue:
    code: str
    value: float | None  # None: not applicable (DE among players who did not all meet, or not tied)
    terms: tuple[Term, ...] = ()
    cut: tuple[Term, ...] = ()
    note: str = ""

    def explain(self) -> str:
        if self.value is None:
            return f"{self.code}: n/a ({self.note})" if self.note else f"{self.code}: n/a"
        parts = ", ".join(_term_text(t) for t in self.terms)
        text = f"{self.code} = {self.value:g}"
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


@dataclass(frozen=True)
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
    """Per-player aggregates, computed in one pass over the results."""

    def __init__(self, players: Sequence[PlayerId], results: Sequence[MatchResult], scoring: Scoring):
        self.players = tuple(players)
        self.index = {p: i for i, p in enumerate(self.players)}
        if len(self.index) != len(self.players):
            raise FormatError("a player appears twice", code="standings/duplicate_player")
        n = len(self.players)
        self.scoring = scoring
        self.points = [0.0] * n
        self.wins = [0] * n
        self.rounds = [0] * n
        # (round, opponent index or -1, points earned, played over the board)
        self.entries: list[list[tuple[int, int, float, bool]]] = [[] for _ in range(n)]
        self.game_points = [0.0] * n
        self.games = [0] * n
        self._mw: list[float] | None = None
        self._gw: list[float] | None = None
        self._bh_cache: dict[int, list[Term]] = {}
        idx = self.index
        for result in results:
            a = idx.get(result.seat0)
            if a is None:
                raise FormatError(f"result names unknown player {result.seat0!r}", code="standings/unknown_player")
            if result.seat1 is None:
                pts = scoring.bye_points
                self._add(a, result.round, -1, pts, False, pts >= scoring.win)
                self.game_points[a] += 6.0  # a bye is two game wins (MTR Appendix C)
                self.games[a] += 2
                continue
            b = idx.get(result.seat1)
            if b is None:
                raise FormatError(f"result names unknown player {result.seat1!r}", code="standings/unknown_player")
            pa, pb = scoring.points(result, result.seat0), scoring.points(result, result.seat1)
            played = not result.forfeit
            self._add(a, result.round, b, pa, played, result.outcome is Outcome.WIN)
            self._add(b, result.round, a, pb, played, result.outcome is Outcome.LOSS)
            g0, g1, gd = result.games
            if g0 or g1 or gd:
                self.game_points[a] += 3 * g0 + gd
                self.game_points[b] += 3 * g1 + gd
                self.games[a] += g0 + g1 + gd
                self.games[b] += g0 + g1 + gd

    def _add(self, i: int, rnd: int, opp: int, pts: float, played: bool, won: bool) -> None:
        self.points[i] += pts
        self.rounds[i] += 1
        self.wins[i] += 1 if won else 0
        self.entries[i].append((rnd, opp, pts, played))

    # -- FIDE opponents' scores ------------------------------------------------------------------
    def _opponent_terms(self, i: int, sb: bool) -> list[Term]:
        if not sb and i in self._bh_cache:
            return self._bh_cache[i]
        players, points, win = self.players, self.points, self.scoring.win or 1.0
        own = points[i]
        terms = []
        for rnd, opp, pts, played in self.entries[i]:
            if played and opp >= 0:
                score = points[opp]
                terms.append((rnd, players[opp], score * pts / win if sb else score))
            else:  # unplayed round: dummy opponent with the player's own score (our reading of Art. 16)
                terms.append((rnd, None, own * pts / win if sb else own))
        if not sb:
            self._bh_cache[i] = terms
        return terms

    def buchholz(self, i: int, cut_low: int = 0, cut_high: int = 0, code: str = "BH") -> TiebreakValue:
        terms = self._opponent_terms(i, sb=False)
        ordered = sorted(terms, key=_by_value)
        lo = min(cut_low, len(ordered))
        hi = min(cut_high, len(ordered) - lo)
        cut = tuple(ordered[:lo]) + tuple(ordered[len(ordered) - hi:])
        kept = ordered[lo:len(ordered) - hi]
        return TiebreakValue(code, float(sum(t[2] for t in kept)), tuple(sorted(kept)), cut)

    def sonneborn_berger(self, i: int) -> TiebreakValue:
        terms = self._opponent_terms(i, sb=True)
        return TiebreakValue("SB", float(sum(t[2] for t in terms)), tuple(terms))

    # -- MTR percentages ------------------------------------------------------------------------
    def match_win(self, i: int) -> float:
        possible = (self.scoring.win or 1.0) * self.rounds[i]
        return max(MTG_FLOOR, self.points[i] / possible) if possible else MTG_FLOOR

    def game_win(self, i: int) -> float:
        return max(MTG_FLOOR, self.game_points[i] / (3.0 * self.games[i])) if self.games[i] else MTG_FLOOR

    def opponents_pct(self, i: int, own_pct: list[float], code: str) -> TiebreakValue:
        terms = tuple((rnd, self.players[opp], own_pct[opp]) for rnd, opp, _pts, _played in self.entries[i] if opp >= 0)
        if not terms:
            return TiebreakValue(code, 0.0, (), (), "no opponents")
        return TiebreakValue(code, sum(t[2] for t in terms) / len(terms), terms, (), "each opponent floored at 1/3")

    def value(self, i: int, tiebreak: Tiebreak) -> TiebreakValue:
        if tiebreak is Tiebreak.BUCHHOLZ:
            return self.buchholz(i)
        if tiebreak is Tiebreak.BUCHHOLZ_CUT1:
            return self.buchholz(i, 1, 0, "BH-C1")
        if tiebreak is Tiebreak.MEDIAN_BUCHHOLZ:
            return self.buchholz(i, 1, 1, "BH-M1")
        if tiebreak is Tiebreak.SONNEBORN_BERGER:
            return self.sonneborn_berger(i)
        if tiebreak is Tiebreak.WINS:
            return TiebreakValue("WIN", float(self.wins[i]))
        if tiebreak is Tiebreak.OPPONENTS_MATCH_WIN:
            if self._mw is None:
                self._mw = [self.match_win(j) for j in range(len(self.players))]
            return self.opponents_pct(i, self._mw, "OMW%")
        if tiebreak is Tiebreak.OPPONENTS_GAME_WIN:
            if self._gw is None:
                self._gw = [self.game_win(j) for j in range(len(self.players))]
            return self.opponents_pct(i, self._gw, "OGW%")
        if tiebreak is Tiebreak.GAME_WIN:
            return TiebreakValue("GW%", self.game_win(i), (), (), f"{self.game_points[i]:g} game points over {self.games[i]} games, floor 1/3")
        raise FormatError(f"unknown tie-break {tiebreak!r}", code="standings/unknown_tiebreak")

    def direct_encounter(self, group: list[int]) -> dict[int, TiebreakValue]:
        members = set(group)
        met: dict[int, set[int]] = {i: set() for i in group}
        scored: dict[int, list[Term]] = {i: [] for i in group}
        for i in group:
            for rnd, opp, pts, played in self.entries[i]:
                if played and opp in members:
                    met[i].add(opp)
                    scored[i].append((rnd, self.players[opp], pts))
        if any(len(met[i]) != len(group) - 1 for i in group):
            return {i: TiebreakValue("DE", None, note="the tied players have not all met") for i in group}
        return {i: TiebreakValue("DE", float(sum(t[2] for t in scored[i])), tuple(scored[i])) for i in group}


def _by_value(term: Term) -> float:
    return term[2]


def _key(value: TiebreakValue) -> float:
    return -1e18 if value.value is None else round(value.value, 9)


def standings(players: Sequence[PlayerId], results: Sequence[MatchResult], config: StandingsConfig | None = None) -> list[StandingRow]:
    """Rank `players` (given in seed order) by points, then `config.tiebreaks` in order, then seed.

    Each tie-break only separates players still tied on everything before it (C.07 Art. 4.2).
    """
    config = config or StandingsConfig()
    tables = _Tables(players, results, config.scoring)
    n = len(tables.players)
    # Values of the order-independent tie-breaks, for every player (rows explain all of them).
    computed: dict[Tiebreak, list[TiebreakValue]] = {}
    for tiebreak in config.tiebreaks:
        if tiebreak is not Tiebreak.DIRECT_ENCOUNTER and tiebreak not in computed:
            computed[tiebreak] = [tables.value(i, tiebreak) for i in range(n)]
    direct: dict[int, TiebreakValue] = {}
    by_points: dict[float, list[int]] = defaultdict(list)
    for i in range(n):
        by_points[round(tables.points[i], 9)].append(i)
    groups = [by_points[p] for p in sorted(by_points, reverse=True)]
    point_group = {i: len(g) for g in groups for i in g}
    for tiebreak in config.tiebreaks:
        refined = []
        for group in groups:
            if len(group) == 1:
                refined.append(group)
                continue
            if tiebreak is Tiebreak.DIRECT_ENCOUNTER:
                values = tables.direct_encounter(group)
                direct.update(values)
                key = {i: _key(values[i]) for i in group}
            else:
                column = computed[tiebreak]
                key = {i: _key(column[i]) for i in group}
            ordered = sorted(group, key=lambda i: (-key[i], i))
            run = [ordered[0]]
            for i in ordered[1:]:
                if key[i] == key[run[-1]]:
                    run.append(i)
                else:
                    refined.append(run)
                    run = [i]
            refined.append(run)
        groups = refined
    order = [i for group in groups for i in sorted(group)]  # seed breaks what is left
    rows = []
    for rank, i in enumerate(order, start=1):
        values = []
        for tiebreak in config.tiebreaks:
            if tiebreak is Tiebreak.DIRECT_ENCOUNTER:
                values.append(direct.get(i, TiebreakValue("DE", None, note="not needed")))
            else:
                values.append(computed[tiebreak][i])
        rows.append(StandingRow(rank, tables.players[i], i + 1, tables.points[i], tuple(values), point_group[i]))
    return rows


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
            outcome = rnd.choice((Outcome.WIN, Outcome.DRAW, Outcome.LOSS))
            results.append(MatchResult(r, a, b, outcome, games=(2, rnd.randint(0, 1), 0) if outcome is Outcome.WIN else (rnd.randint(0, 1), 2, 0) if outcome is Outcome.LOSS else (1, 1, 1)))
            score[a] += {Outcome.WIN: 1, Outcome.DRAW: 0.5, Outcome.LOSS: 0}[outcome]
            score[b] += {Outcome.WIN: 0, Outcome.DRAW: 0.5, Outcome.LOSS: 1}[outcome]
    config = StandingsConfig(tiebreaks=tuple(Tiebreak))
    start = time.perf_counter()
    standings(players, results, config)
    return time.perf_counter() - start
