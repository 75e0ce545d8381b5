"""What each format makes of a tournament state: the next round, completion, standings, the bracket.

Every function reads a `TournamentState` and calls the pure format modules (round_robin, swiss,
elimination, pods, groups, tiebreaks); nothing here changes the state. See lifecycle.py.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math

from .common import FormatError, MatchResult, WinDrawLoss
from .elimination import Bracket, Report, bracket_progress, double_elimination, single_elimination
from .groups import playoff_seeds, snake_groups
from .lifecycle_spec import ELIMINATION, scoring_of, tiebreaks_of
from .lifecycle_state import Table, TournamentState, game_counts
from .pods import (
    PodConfig,
    PodResult,
    PodRound,
    make_pod_round,
    placement_points,
    pod_standings,
    pods_final_placements,
)
from .round_robin import round_robin_schedule
from .swiss import SwissConfig, swiss_pair_round, swiss_rounds
from .tiebreaks import StandingsConfig
from .tiebreaks import standings as library_standings

FINAL_KEY = "FINAL"


# -- shared helpers ----------------------------------------------------------------------------------


def pending(state: TournamentState) -> list[Table]:
    return [t for t in state.tables if not t.decided]


def draws_replayed(state: TournamentState, table: Table) -> bool:
    """Elimination series replay drawn games; league / Swiss / group series count them."""
    return state.spec.format in ELIMINATION or table.stage == "playoff"


def winner_of(table: Table) -> str | None:
    if not table.decided or len(table.players) != 2 or table.ranks[0] == table.ranks[1]:
        return None
    return table.players[0] if table.ranks[0] < table.ranks[1] else table.players[1]


def _rounds(state: TournamentState, stage: str):
    return [r for r in state.rounds if r.stage == stage]


def duel_results(
    state: TournamentState, *, stages=("main",), group: str | None = None, byes_scored: bool = True
) -> list[MatchResult]:
    """Decided duels (and, if scored, byes) as library `MatchResult`s. A double forfeit (both
    players dropped) is no result."""
    out = []
    members = None if group is None else set(group_members(state)[group])
    for t in state.tables:
        if (
            t.stage not in stages
            or (group is not None and t.group != group)
            or not t.decided
            or len(t.players) != 2
        ):
            continue
        a, b = t.ranks
        if t.forfeit and a == b:
            continue
        outcome = WinDrawLoss.WIN if a < b else WinDrawLoss.LOSS if a > b else WinDrawLoss.DRAW
        out.append(
            MatchResult(t.round, t.players[0], t.players[1], outcome, game_counts(t.result_games), t.forfeit)
        )
    if byes_scored:
        for r in state.rounds:
            if r.stage in stages:
                out += [MatchResult(r.round, p, None) for p in r.byes if members is None or p in members]
    return out


def _rows_from_library(rows, results, scoring, dropped) -> list[dict]:
    terms: dict = {}
    for r in results:
        for p, opp in ((r.seat0, r.seat1), (r.seat1, r.seat0)):
            if p is not None:
                terms.setdefault(p, []).append([r.round, opp, scoring.points(r, p)])
    out = []
    for row in rows:
        explain = {"PTS": sorted(terms.get(row.player, []), key=lambda t: t[0])}
        for v in row.values:
            explain[v.code] = [list(t) for t in v.terms]
        out.append(
            {
                "rank": row.rank,
                "player": row.player,
                "points": row.points,
                "seed": row.seed,
                "tiebreaks": {v.code: v.value for v in row.values},
                "explain": explain,
                "dropped": row.player in dropped,
            }
        )
    return out


# -- round robin -------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def _schedule(players: tuple, legs: int):
    return round_robin_schedule(players, legs=legs)


def _rr_tables(rnd, prefix: str, best_of: int, group: str | None, dropped) -> tuple[list[dict], list[str]]:
    tables = [
        {
            "match_key": f"{prefix}R{rnd.number}-T{p.table}",
            "players": [p.seat0, p.seat1],
            "best_of": best_of,
            "group": group,
        }
        for p in rnd.pairings
        if not (p.seat0 in dropped and p.seat1 in dropped)
    ]
    byes = [rnd.bye] if rnd.bye is not None and rnd.bye not in dropped else []
    return tables, byes


def _rr_next(state):
    c = state.spec.config
    sched = _schedule(state.players, c["legs"])
    n = len(state.rounds) + 1
    if n > len(sched):
        return None
    tables, byes = _rr_tables(sched[n - 1], "", c["best_of"], None, state.dropped_set)
    return _event(
        state,
        n,
        "main",
        tables,
        byes,
        {"method": "circle method (Berger tables), fixed at the start", "rounds": len(sched)},
    )


def _rr_remaining(state):
    return len(state.rounds) < len(_schedule(state.players, state.spec.config["legs"]))


def _league_standings(state):
    c = state.spec.config
    scoring = scoring_of(c["scoring"])
    # A round-robin bye is a rest round (everyone has one with an odd field), not a win.
    results = duel_results(state, byes_scored=False)
    rows = library_standings(state.players, results, StandingsConfig(scoring, tiebreaks_of(c["tiebreaks"])))
    return _rows_from_library(rows, results, scoring, state.dropped_set)


# -- swiss -------------------------------------------------------------------------------------------


def swiss_total(state) -> int:
    r = state.spec.config["rounds"]
    return swiss_rounds(len(state.players)) if r == "auto" else r


def _active(state, members=None) -> list[str]:
    dropped = state.dropped_set
    return [p for p in (state.everyone if members is None else members) if p not in dropped]


# Above this many active players a legal pairing always exists in practice (the pairing's repair
# step ends in an exact matching), so the feasibility check below is skipped to keep is_complete cheap.
_FEASIBILITY_CHECK_MAX = 256


def _swiss_pairable(players, results, n, scoring, withdrawn, forbidden) -> bool:
    """Whether round n can be paired legally at all. When it cannot (a small field whose remaining
    players have all met, or are forbidden from meeting), the Swiss ends early instead of pairing a
    rematch: the rules promise no rematches, not a number of rounds."""
    active = [p for p in players if p not in withdrawn]
    if len(active) < 2:
        return False
    if len(active) > _FEASIBILITY_CHECK_MAX:
        return True
    pairing = swiss_pair_round(
        players,
        results,
        round=n,
        config=SwissConfig(scoring=scoring),
        withdrawn=withdrawn,
        forbidden=forbidden,
    )
    return pairing.failure is None


def _swiss_forbidden(state) -> list[tuple]:
    return [tuple(p) for p in state.spec.config["forbidden_pairs"]] + list(state.forbidden)


def swiss_results(state) -> list[MatchResult]:
    """The Swiss's results, byes included, and each late entrant's missed rounds as the config says:
    nothing ("zero") or a half-point bye each ("half_point_bye"), recorded as an absence (a bye with
    `forfeit`), which is not the pairing-allocated bye."""
    results = duel_results(state)
    if state.spec.config.get("missed_rounds") == "half_point_bye":
        paired = len(state.rounds)
        for p, first in state.late:
            results += [
                MatchResult(r, p, None, WinDrawLoss.DRAW, forfeit=True)
                for r in range(1, min(first, paired + 1))
            ]
    return results


def baku_adjustments(state, n: int, scoring) -> dict | None:
    """Baku acceleration (FIDE C.04.5.1, our reading): the top 2 x ceil(players / 4) of the start
    list (group A) pair as if they had a win more in the first half of the first half of the rounds
    and a draw more in the rest of the first half; the virtual points never reach the standings."""
    if state.spec.config.get("acceleration") != "baku":
        return None
    half = math.ceil(swiss_total(state) / 2)
    if n > half:
        return None
    extra = scoring.win if n <= math.ceil(half / 2) else scoring.draw
    group_a = state.players[: 2 * math.ceil(len(state.players) / 4)]
    return {p: extra for p in group_a}


def _swiss_remaining(state):
    """Rounds remain while the count is not reached and the field can be paired without a rematch
    (a small field whose players have all met ends early). Forbidden pairs never end it: a round
    they alone make unpairable is an error for the organiser to fix (`_swiss_next`)."""
    if len(state.rounds) >= swiss_total(state):
        return False
    c = state.spec.config
    n = len(state.rounds) + 1
    not_yet = {p for p, first in state.late if first > n}
    results, scoring, withdrawn = swiss_results(state), scoring_of(c["scoring"]), state.dropped_set | not_yet
    forbidden = _swiss_forbidden(state)
    if _swiss_pairable(state.everyone, results, n, scoring, withdrawn, forbidden):
        return True
    return bool(forbidden) and _swiss_pairable(state.everyone, results, n, scoring, withdrawn, ())


def _explanation_json(explanation) -> dict:
    data = dataclasses.asdict(explanation)
    data["text"] = explanation.text()
    return data


def _swiss_pair(players, results, n, scoring, withdrawn, forbidden, best_of, prefix, group, adjustments=None):
    sr = swiss_pair_round(
        players,
        results,
        round=n,
        config=SwissConfig(scoring=scoring),
        withdrawn=withdrawn,
        forbidden=forbidden,
        score_adjustments=adjustments,
    )
    if sr.failure is not None:
        detail = sr.failure.detail
        if forbidden:
            detail += (
                f"; round {n} cannot be paired with the forbidden pairs in force: change them, or finish here"
            )
        raise FormatError(detail, code=sr.failure.code)
    tables = [
        {
            "match_key": f"{prefix}R{n}-T{p.table}",
            "players": [p.seat0, p.seat1],
            "best_of": best_of,
            "group": group,
        }
        for p in sr.pairings
        if p.seat1 is not None
    ]
    return tables, ([sr.bye] if sr.bye is not None else []), _explanation_json(sr.explanation)


def _swiss_next(state):
    if not _swiss_remaining(state):
        return None
    c = state.spec.config
    n = len(state.rounds) + 1
    not_yet = {p for p, first in state.late if first > n}
    scoring = scoring_of(c["scoring"])
    adjustments = baku_adjustments(state, n, scoring)
    tables, byes, explanation = _swiss_pair(
        state.everyone,
        swiss_results(state),
        n,
        scoring,
        state.dropped_set | not_yet,
        _swiss_forbidden(state),
        c["best_of"],
        "",
        None,
        adjustments,
    )
    explanation["rounds"] = swiss_total(state)
    if adjustments:
        explanation["acceleration"] = {"method": "Baku", "virtual_points": adjustments}
    return _event(state, n, "main", tables, byes, explanation)


def _swiss_standings(state):
    c = state.spec.config
    scoring = scoring_of(c["scoring"])
    results = swiss_results(state)
    rows = library_standings(state.everyone, results, StandingsConfig(scoring, tiebreaks_of(c["tiebreaks"])))
    return _rows_from_library(rows, results, scoring, state.dropped_set)


# -- elimination -------------------------------------------------------------------------------------


def _hashable(v):
    return tuple(v) if isinstance(v, list) else v


@functools.lru_cache(maxsize=256)
def _bracket(kind: str, seeds: tuple, best_of, third_place: bool, bracket_reset: bool) -> Bracket:
    if kind == "single_elimination":
        return single_elimination(seeds, best_of=best_of, third_place=third_place)
    return double_elimination(seeds, best_of=best_of, bracket_reset=bracket_reset)


def elim_bracket(state) -> Bracket | None:
    c = state.spec.config
    if state.spec.format in ELIMINATION:
        if state.status == "registration":
            return None
        return _bracket(
            state.spec.format,
            state.players,
            _hashable(c["best_of"]),
            c.get("third_place", False),
            c.get("bracket_reset", True),
        )
    if state.spec.format == "groups_playoffs" and state.playoff_seeds is not None:
        return _bracket(
            c["playoff"], state.playoff_seeds, _hashable(c["best_of"]), c["third_place"], c["bracket_reset"]
        )
    return None


def elim_progress(state, bracket: Bracket):
    stage = "playoff" if state.spec.format == "groups_playoffs" else "main"
    reports = {t.match_key: Report(winner_of(t)) for t in state.tables if t.stage == stage and t.decided}
    return bracket_progress(bracket, reports)


def _elim_wave(state, bracket, stage):
    progress = elim_progress(state, bracket)
    if progress.finished:
        return None
    paired = state.table_index()
    ready = [k for k in progress.ready if k not in paired]
    if not ready:
        return None
    by_id = {m.id: m for m in bracket.matches}
    dropped = state.dropped_set
    tables = [
        {"match_key": k, "players": list(progress.slots[k]), "best_of": by_id[k].best_of, "group": None}
        for k in ready
    ]
    forfeits = {}
    for t in tables:
        a, b = t["players"]
        if a in dropped or b in dropped:
            forfeits[t["match_key"]] = b if (a in dropped and b not in dropped) else a
    explanation = {"method": "every bracket match whose players are known", "forfeits": forfeits}
    return _event(state, len(state.rounds) + 1, stage, tables, [], explanation)


def _elim_next(state):
    return _elim_wave(state, elim_bracket(state), "main")


def _elim_remaining(state):
    return not elim_progress(state, elim_bracket(state)).finished


_BRACKET_NAMES = {
    "winners": "winners",
    "losers": "losers",
    "grand_final": "final",
    "third_place": "third_place",
}


def bracket_view(state) -> dict | None:
    bracket = elim_bracket(state)
    if bracket is None:
        return None
    progress = elim_progress(state, bracket)
    index = state.table_index()
    matches = []
    for m in bracket.matches:
        t = state.tables[index[m.id]] if m.id in index else None
        status = t.status if t is not None and not t.decided else progress.status[m.id]
        name = "final" if m.id in bracket.deciders else _BRACKET_NAMES[m.bracket]
        matches.append(
            {
                "match_key": m.id,
                "round": m.round,
                "bracket": name,
                "slots": [
                    {"source": str(src), "player": progress.slots[m.id][k]} for k, src in enumerate(m.slots)
                ],
                "winner_to": m.winner_to[0] if m.winner_to else None,
                "loser_to": m.loser_to[0] if m.loser_to else None,
                "best_of": m.best_of,
                "status": status,
                "winner": progress.winners.get(m.id),
                "conditional": m.conditional,
                "played_in_round": None if t is None else t.round,
                "forfeit": bool(t is not None and t.forfeit),
            }
        )
    return {
        "kind": bracket.kind,
        "seeds": list(bracket.seeds),
        "matches": matches,
        "champion": progress.champion,
        "finished": progress.finished,
    }


def _placement_rows(state, bracket: Bracket, players) -> list[dict]:
    """Elimination standings: final placements (ties share a place); players still in the bracket
    share rank 1 until they are placed."""
    progress = elim_progress(state, bracket)
    place = dict((p, k) for k, p in progress.placements)
    wins: dict = {}
    for t in state.tables:
        w = winner_of(t)
        if w is not None and t.stage in ("main", "playoff"):
            wins[w] = wins.get(w, 0) + 1
    where = {}
    for t in state.tables:
        if t.decided and t.stage in ("main", "playoff") and len(t.players) == 2:
            w = winner_of(t)
            for p in t.players:
                if p != w:
                    where[p] = f"lost {t.match_key} to {w}" + (" (forfeit)" if t.forfeit else "")
    seed = {p: i for i, p in enumerate(players)}
    dropped = state.dropped_set
    rows = []
    for p in players:
        if p in place:
            text = "champion" if place[p] == 1 else f"place {place[p]}: {where.get(p, '')}"
            rows.append((place[p], seed[p], p, text))
        else:
            rows.append((1, seed[p], p, "still in the bracket"))
    rows.sort()
    return [
        {
            "rank": r,
            "player": p,
            "points": float(wins.get(p, 0)),
            "seed": s + 1,
            "tiebreaks": {},
            "explain": {"placement": [text]},
            "dropped": p in dropped,
        }
        for r, s, p, text in rows
    ]


def _elim_standings(state):
    return _placement_rows(state, elim_bracket(state), state.players)


# -- pods --------------------------------------------------------------------------------------------


def pod_config(state) -> PodConfig:
    c = state.spec.config
    return PodConfig(
        state.spec.seats_per_match, c["min_seats"], tuple(c["placement_points"]), c["bye_points"]
    )


def _pod_finish(table: Table) -> PodResult:
    groups: dict = {}
    for p, r in zip(table.players, table.ranks):
        groups.setdefault(r, []).append(p)
    return PodResult(table.round, tuple(tuple(groups[r]) for r in sorted(groups)))


def _pod_standings(state):
    rounds = [
        PodRound(r.round, tuple(state.tables[i].players for i in _keys(state, r)), r.byes)
        for r in _rounds(state, "main")
    ]
    results = [_pod_finish(t) for t in state.tables if t.stage == "main" and t.decided]
    return pod_standings(state.everyone, rounds, results, pod_config(state))


def _keys(state, rnd):
    index = state.table_index()
    return [index[k] for k in rnd.match_keys]


def pods_advancing(state) -> tuple[str, ...]:
    """Who plays the final pod. best_overall: the best `advance_count` players still in. pod_winners:
    the winner of each last-round pod (a shared first place: the better ranked overall), still in;
    more than a pod: the best ranked of them; fewer than the game's minimum: filled up from the
    standings."""
    c = state.spec.config
    table = _pod_standings(state)
    dropped = state.dropped_set
    ranked = [s.player for s in table if s.player not in dropped]
    size = state.spec.seats_per_match
    if c["advance"] == "best_overall":
        return tuple(ranked[: c["advance_count"]])
    rank = {s.player: s.rank for s in table}
    main = _rounds(state, "main")
    winners = []
    if main:
        for i in _keys(state, main[-1]):
            t = state.tables[i]
            if t.decided:
                first = [p for p, r in zip(t.players, t.ranks) if r == min(t.ranks) and p not in dropped]
                if first:
                    winners.append(min(first, key=rank.__getitem__))
    winners = sorted(winners, key=rank.__getitem__)[:size]
    for p in ranked:
        if len(winners) >= c["min_seats"]:
            break
        if p not in winners:
            winners.append(p)
    return tuple(sorted(winners, key=rank.__getitem__))


def _pods_state(state):
    """(main rounds paired, rounds wanted, final paired)."""
    main = len(_rounds(state, "main"))
    return main, state.spec.config["rounds"], bool(_rounds(state, "final"))


def _pods_remaining(state):
    main, total, final = _pods_state(state)
    c = state.spec.config
    if main < total:
        return len(_active(state)) >= c["min_seats"]
    return c["final_pod"] and not final and len(pods_advancing(state)) >= c["min_seats"]


def _pods_next(state):
    if not _pods_remaining(state):
        return None
    main, total, _ = _pods_state(state)
    n = len(state.rounds) + 1
    if main < total:
        active = set(_active(state))
        ranked = [s.player for s in _pod_standings(state) if s.player in active]
        pr = make_pod_round(ranked, n, pod_config(state))
        tables = [
            {"match_key": f"R{n}-T{k}", "players": list(pod), "best_of": 1, "group": None}
            for k, pod in enumerate(pr.pods, start=1)
        ]
        how = "by seed" if main == 0 else "by standings"
        return _event(
            state,
            n,
            "main",
            tables,
            list(pr.byes),
            {"method": f"snake seeding {how}", "pod_sizes": [len(p) for p in pr.pods], "rounds": total},
        )
    final = list(pods_advancing(state))
    explanation = {"method": f"final pod: {state.spec.config['advance']}", "advancing": final}
    return _event(
        state,
        n,
        "final",
        [{"match_key": FINAL_KEY, "players": final, "best_of": 1, "group": None}],
        [],
        explanation,
    )


def _pods_rows(state):
    c = state.spec.config
    table = _pod_standings(state)
    dropped = state.dropped_set
    terms: dict = {p: [] for p in state.everyone}
    for r in _rounds(state, "main"):
        for p in r.byes:
            terms[p].append([r.round, None, c["bye_points"]])
    for t in state.tables:
        if t.stage == "main" and t.decided:
            for p, pts in placement_points(_pod_finish(t), c["placement_points"]).items():
                terms[p].append([t.round, t.match_key, pts])
    finals = [t for t in state.tables if t.stage == "final" and t.decided]
    rank = {s.player: s.rank for s in table}
    final_place = {}
    if finals:
        for place, p in pods_final_placements(table, _pod_finish(finals[0])):
            rank[p] = place
        for place, p in pods_final_placements(table, _pod_finish(finals[0]))[: len(finals[0].players)]:
            final_place[p] = place
    rows = []
    for s in sorted(table, key=lambda s: (rank[s.player], s.rank)):
        explain = {"PTS": sorted(terms[s.player], key=lambda t: t[0]), "pod_wins": [s.pod_wins]}
        if s.player in final_place:
            explain["final"] = [final_place[s.player]]
        rows.append(
            {
                "rank": rank[s.player],
                "player": s.player,
                "points": float(s.points),
                "seed": state.everyone.index(s.player) + 1,
                "tiebreaks": {"pod_wins": s.pod_wins},
                "explain": explain,
                "dropped": s.player in dropped,
            }
        )
    return rows


# -- groups then playoffs ----------------------------------------------------------------------------


def group_name(k: int) -> str:
    return chr(ord("A") + k) if k < 26 else f"G{k + 1}"


@functools.lru_cache(maxsize=256)
def _groups(players: tuple, n_groups: int) -> dict:
    return {group_name(k): g for k, g in enumerate(snake_groups(players, n_groups))}


def group_members(state) -> dict:
    return _groups(state.players, state.spec.config["groups"])


def _group_rounds(state, members) -> int:
    c = state.spec.config
    if c["group_format"] == "round_robin":
        return len(_schedule(tuple(members), 1))
    return swiss_rounds(len(members)) if c["group_rounds"] == "auto" else c["group_rounds"]


def _group_plays_round(state, name, members, n) -> bool:
    """Whether group `name` has a round n to play (a Swiss group ends early when it cannot pair)."""
    c = state.spec.config
    if n > _group_rounds(state, members):
        return False
    if c["group_format"] == "round_robin":
        return True
    return _swiss_pairable(
        list(members),
        duel_results(state, stages=("group",), group=name),
        n,
        scoring_of(c["scoring"]),
        state.dropped_set & set(members),
        (),
    )


def _group_stage_remaining(state) -> bool:
    n = len(_rounds(state, "group")) + 1
    return any(_group_plays_round(state, name, members, n) for name, members in group_members(state).items())


def group_rows(state) -> dict:
    """Per group, its standings rows (best first)."""
    c = state.spec.config
    scoring = scoring_of(c["scoring"])
    byes = c["group_format"] == "swiss"
    out = {}
    for name, members in group_members(state).items():
        results = duel_results(state, stages=("group",), group=name, byes_scored=byes)
        rows = library_standings(members, results, StandingsConfig(scoring, tiebreaks_of(c["tiebreaks"])))
        out[name] = _rows_from_library(rows, results, scoring, state.dropped_set)
    return out


def compute_playoff_seeds(state) -> tuple[str, ...]:
    """Seeds from the group standings, skipping players who had dropped when the playoff was seeded
    (or now, if it is not seeded yet): a later drop does not reseed it."""
    seeded_at = next((r.round for r in state.rounds if r.stage == "playoff"), None)
    dropped = {p for p, at in state.dropped if seeded_at is None or at < seeded_at}
    ranked = [
        [r["player"] for r in rows if r["player"] not in dropped] for rows in group_rows(state).values()
    ]
    return playoff_seeds(ranked, state.spec.config["advance_per_group"])


def _groups_next(state):
    c = state.spec.config
    if _group_stage_remaining(state):
        n = len(_rounds(state, "group")) + 1
        rnd = len(state.rounds) + 1
        tables, byes, explanation = [], [], {"method": f"groups: {c['group_format']}", "groups": {}}
        dropped = state.dropped_set
        for name, members in group_members(state).items():
            if not _group_plays_round(state, name, members, n):
                continue
            if c["group_format"] == "round_robin":
                sched = _schedule(tuple(members), 1)
                t, b = _rr_tables(sched[n - 1], f"{name}-", c["group_best_of"], name, dropped)
                explanation["groups"][name] = {"method": "circle method", "round": n}
            else:
                results = duel_results(state, stages=("group",), group=name)
                t, b, ex = _swiss_pair(
                    list(members),
                    results,
                    n,
                    scoring_of(c["scoring"]),
                    dropped & set(members),
                    (),
                    c["group_best_of"],
                    f"{name}-",
                    name,
                )
                explanation["groups"][name] = ex
            tables += t  # the table's round is the global round; its key names the group round
            byes += b
        return _event(state, rnd, "group", tables, byes, explanation)
    seeds = state.playoff_seeds if state.playoff_seeds is not None else compute_playoff_seeds(state)
    bracket = _bracket(
        c["playoff"], tuple(seeds), _hashable(c["best_of"]), c["third_place"], c["bracket_reset"]
    )
    event = _elim_wave(dataclasses.replace(state, playoff_seeds=tuple(seeds)), bracket, "playoff")
    if event is not None and state.playoff_seeds is None:
        event["explanation"]["playoff_seeds"] = list(seeds)
    return event


def _groups_remaining(state):
    if _group_stage_remaining(state):
        return True
    if state.playoff_seeds is None:
        return True
    return not elim_progress(state, elim_bracket(state)).finished


def _groups_standings(state):
    groups = group_rows(state)
    position = {}
    for name, rows in groups.items():
        for k, row in enumerate(rows):
            position[row["player"]] = (k, name, row)
    out = []
    qualified = []
    if state.playoff_seeds is not None:
        for row in _placement_rows(state, elim_bracket(state), state.playoff_seeds):
            k, name, grow = position[row["player"]]
            merged = dict(grow, rank=row["rank"], group=name, group_rank=k + 1)
            merged["explain"] = dict(grow["explain"], placement=row["explain"]["placement"])
            out.append(merged)
            qualified.append(row["player"])
    rest = [p for p in state.players if p not in set(qualified)]
    seed = {p: i for i, p in enumerate(state.players)}
    rest.sort(key=lambda p: (position[p][0], -position[p][2]["points"], seed[p]))
    base = len(qualified)
    for i, p in enumerate(rest):
        k, name, grow = position[p]
        out.append(dict(grow, rank=base + i + 1, group=name, group_rank=k + 1))
    return out


# -- dispatch ----------------------------------------------------------------------------------------


def _event(state, n, stage, tables, byes, explanation) -> dict:
    return {
        "kind": "round_paired",
        "round": n,
        "stage": stage,
        "tables": tables,
        "byes": byes,
        "explanation": json.loads(json.dumps(explanation)),
    }


NEXT = {
    "round_robin": _rr_next,
    "swiss": _swiss_next,
    "single_elimination": _elim_next,
    "double_elimination": _elim_next,
    "pods": _pods_next,
    "groups_playoffs": _groups_next,
}
REMAINING = {
    "round_robin": _rr_remaining,
    "swiss": _swiss_remaining,
    "single_elimination": _elim_remaining,
    "double_elimination": _elim_remaining,
    "pods": _pods_remaining,
    "groups_playoffs": _groups_remaining,
}
STANDINGS = {
    "round_robin": _league_standings,
    "swiss": _swiss_standings,
    "single_elimination": _elim_standings,
    "double_elimination": _elim_standings,
    "pods": _pods_rows,
    "groups_playoffs": _groups_standings,
}
