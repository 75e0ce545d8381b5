"""A tournament as a fold of its event log.

The service stores each tournament as an append-only list of event dicts (past-tense facts:
"registered", "started", "round_paired", "game_recorded", "result_reported", ...) and asks this module
what the log means. `apply(state, event)` is the only way a state changes: it returns a new frozen
state or raises `FormatError` with a namespaced code for an event that is illegal now (the state is
unchanged). `replay` folds a whole log; `replay_partial` returns the state reached *and* the first
failure (scalachess's `Replay`). Projections — `pending_tables`, `table`, `standings`, `bracket`,
`summary` — are derived from the state and return JSON values only. `next_round` proposes the next
"round_paired" event without applying it. Pure: no Django, no clock, no global random.

See docs/tournaments.md, "The tournament log", for every event, error code and decision.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Iterable, Mapping
from typing import Any

from .common import FormatError
from .lifecycle_formats import (
    NEXT,
    REMAINING,
    STANDINGS,
    bracket_view,
    compute_playoff_seeds,
    draws_replayed,
    elim_bracket,
    pending,
    pods_advancing,
    winner_of,
)
from .lifecycle_spec import ELIMINATION, FORMATS, TournamentSpec, spec_check, spec_describe
from .lifecycle_state import (
    STATE_JSON_VERSION,
    Entrant,
    Entry,
    Report,
    RoundRec,
    Table,
    TournamentState,
    dense,
    series_ranks,
    state_from_json,
    state_to_json,
)

__all__ = [
    "FORMATS",
    "TournamentSpec",
    "TournamentState",
    "spec_check",
    "spec_describe",
    "new_state",
    "apply",
    "replay",
    "replay_partial",
    "next_round",
    "pending_tables",
    "table",
    "table_result",
    "is_complete",
    "standings",
    "standings_may_change",
    "bracket",
    "summary",
    "state_to_json",
    "state_from_json",
    "STATE_JSON_VERSION",
]

STAGES = ("main", "group", "playoff", "final")
LATE_ENTRY = ("swiss", "pods")
MIN_PLAYERS = {"round_robin": 2, "swiss": 2, "single_elimination": 2, "double_elimination": 2}


def _err(code: str, detail: str) -> FormatError:
    return FormatError(detail, code=code)


def new_state(spec: TournamentSpec) -> TournamentState:
    return TournamentState(spec=spec_check(spec))


def replay_partial(
    spec: TournamentSpec, events: Iterable[Mapping]
) -> tuple[TournamentState, FormatError | None, int | None]:
    """(state after the last good event, the first failure or None, its index or None)."""
    state = new_state(spec)
    for i, event in enumerate(events):
        try:
            state = apply(state, event)
        except FormatError as failure:
            return state, failure, i
    return state, None, None


def replay(spec: TournamentSpec, events: Iterable[Mapping]) -> TournamentState:
    state, failure, index = replay_partial(spec, events)
    if failure is not None:
        raise _err(failure.code, f"event {index}: {failure.detail}")
    return state


# -- event payload helpers ---------------------------------------------------------------------------


def _field(event: Mapping, name: str, *, optional: bool = False):
    if name not in event:
        if optional:
            return None
        raise _err("event/bad_payload", f"{event.get('kind')!r} needs {name!r}")
    return event[name]


def _player(event: Mapping, name: str = "player") -> str:
    p = _field(event, name)
    if not isinstance(p, str) or not p:
        raise _err("event/bad_payload", f"{name} must be a non-empty string, got {p!r}")
    return p


def _ranks(value, n: int) -> tuple[int, ...]:
    if (
        not isinstance(value, (list, tuple))
        or len(value) != n
        or any(isinstance(r, bool) or not isinstance(r, int) or r < 1 for r in value)
    ):
        raise _err(
            "result/bad_ranks",
            f"ranks must be {n} positive integers (1 = best), one per player in table order, got {value!r}",
        )
    return tuple(value)


def _games(value, n: int):
    if value is None:
        return None
    if not isinstance(value, (list, tuple)) or not value:
        raise _err("result/bad_games", "games must be a non-empty list of per-game ranks")
    return tuple(_ranks(g, n) for g in value)


# -- apply -------------------------------------------------------------------------------------------


def apply(state: TournamentState, event: Mapping[str, Any]) -> TournamentState:
    """The state after `event`, or FormatError(code) if the event is illegal now."""
    if not isinstance(event, Mapping) or "kind" not in event:
        raise _err("event/bad_payload", "an event is a mapping with a 'kind'")
    handler = _HANDLERS.get(event["kind"])
    if handler is None:
        raise _err("event/unknown_kind", f"unknown event kind {event['kind']!r}")
    if state.status == "finished" and event["kind"] != "result_corrected":
        raise _err("tournament/finished", "the tournament is finished (only corrections are accepted)")
    new = handler(state, event)
    return dataclasses.replace(new, version=state.version + 1)


def _registered(state, event):
    p = _player(event)
    seed, rating = event.get("seed"), event.get("rating")
    entrant = Entrant(p, seed, None if rating is None else float(rating))
    if state.status == "registration":
        if any(e.player == p for e in state.entrants):
            raise _err("player/already_registered", f"{p!r} is already registered")
        return dataclasses.replace(state, entrants=state.entrants + (entrant,))
    if state.spec.format not in LATE_ENTRY:
        raise _err("player/registration_closed", f"{state.spec.format} takes no late entries")
    if p in state.everyone:
        raise _err("player/already_registered", f"{p!r} is already in the tournament")
    if not REMAINING[state.spec.format](state) or _main_rounds_done(state):
        raise _err("player/registration_closed", "no rounds are left to join")
    entrants = tuple(e for e in state.entrants if e.player != p) + (entrant,)
    return dataclasses.replace(state, entrants=entrants, late=state.late + ((p, len(state.rounds) + 1),))


def _main_rounds_done(state) -> bool:
    if state.spec.format == "pods":
        return sum(1 for r in state.rounds if r.stage == "main") >= state.spec.config["rounds"]
    return False


def _checked_in(state, event):
    p = _player(event)
    if state.status != "registration":
        raise _err("tournament/already_started", "check-in is closed")
    for i, e in enumerate(state.entrants):
        if e.player == p:
            entrants = (
                state.entrants[:i] + (dataclasses.replace(e, checked_in=True),) + state.entrants[i + 1 :]
            )
            return dataclasses.replace(state, entrants=entrants)
    raise _err("player/not_registered", f"{p!r} is not registered")


def _dropped(state, event):
    p = _player(event)
    if state.status == "registration":
        if not any(e.player == p for e in state.entrants):
            raise _err("player/not_registered", f"{p!r} is not registered")
        return dataclasses.replace(state, entrants=tuple(e for e in state.entrants if e.player != p))
    if p not in state.everyone:
        raise _err("player/not_registered", f"{p!r} is not in the tournament")
    if p in state.dropped_set:
        raise _err("player/already_dropped", f"{p!r} has already dropped")
    state = dataclasses.replace(state, dropped=state.dropped + ((p, len(state.rounds)),))
    # A duel the player still sits at is a forfeit at once: nobody waits for a player who left.
    dropped = state.dropped_set
    for t in pending(state):
        if p in t.players and len(t.players) == 2:
            state = _put(state, state.table_index()[t.match_key], _forfeit(state, t, dropped))
    return state


def _started(state, event):
    if state.status != "registration":
        raise _err("tournament/already_started", "the tournament has already started")
    players = _field(event, "players")
    if not isinstance(players, (list, tuple)) or any(not isinstance(p, str) for p in players):
        raise _err("event/bad_payload", "players must be a list of player ids")
    players = tuple(players)
    if len(set(players)) != len(players):
        raise _err("player/duplicate", "a player appears twice in the start list")
    known = {e.player for e in state.entrants}
    for p in players:
        if p not in known:
            raise _err("player/not_registered", f"{p!r} is not registered")
    spec, c = state.spec, state.spec.config
    if spec.format == "pods":
        need = c["min_seats"]
    elif spec.format == "groups_playoffs":
        need = max(2 * c["groups"], 2)
        if c["groups"] * c["advance_per_group"] < 2:
            raise _err(
                "tournament/bad_config", "advance_per_group: fewer than 2 players would reach the playoff"
            )
    else:
        need = MIN_PLAYERS[spec.format]
    if len(players) < need:
        raise _err(
            "tournament/too_few_players", f"{spec.format} needs at least {need} players, got {len(players)}"
        )
    return dataclasses.replace(state, status="running", players=players)


def _round_paired(state, event):
    if state.status != "running":
        raise _err("tournament/not_started", "the tournament has not started")
    n = _field(event, "round")
    if n != len(state.rounds) + 1:
        raise _err("round/out_of_order", f"the next round is {len(state.rounds) + 1}, got {n!r}")
    open_tables = pending(state)
    if open_tables:
        raise _err("round/not_complete", f"{len(open_tables)} table(s) of the current round are undecided")
    stage = _field(event, "stage")
    if stage not in STAGES:
        raise _err("event/bad_payload", f"stage must be one of {STAGES}, got {stage!r}")
    tables_in = _field(event, "tables")
    byes = tuple(_field(event, "byes", optional=True) or ())
    everyone = set(state.everyone)
    late_from = dict(state.late)
    seen: set = set()
    keys = set(state.table_index())
    bracket = None
    if state.spec.format in ELIMINATION and stage == "main":
        bracket = elim_bracket(state)
    elif state.spec.format == "groups_playoffs" and stage == "playoff":
        if state.playoff_seeds is None:  # the playoff is seeded from the group standings, once
            state = dataclasses.replace(state, playoff_seeds=tuple(compute_playoff_seeds(state)))
        bracket = elim_bracket(state)
    bracket_ids = None if bracket is None else {m.id for m in bracket.matches}
    dropped = state.dropped_set
    new_tables = []
    for t in tables_in:
        key = t.get("match_key")
        if not isinstance(key, str) or not key or key in keys:
            raise _err("round/duplicate_match_key", f"match key {key!r} is empty or already used")
        keys.add(key)
        if bracket_ids is not None and key not in bracket_ids:
            raise _err("round/unknown_match", f"{key!r} is not a match of the bracket")
        players = tuple(t.get("players") or ())
        size = state.spec.seats_per_match
        if len(players) < 2 or (size == 2 and len(players) != 2) or len(players) > size:
            raise _err("round/bad_table", f"{key}: {len(players)} players at a table of {size}")
        best_of = t.get("best_of", 1)
        if isinstance(best_of, bool) or not isinstance(best_of, int) or best_of < 1:
            raise _err("round/bad_table", f"{key}: best_of must be a positive integer")
        for p in players:
            _seat(p, everyone, seen, late_from, n)
        table = Table(key, n, stage, t.get("group"), players, best_of)
        if len(players) == 2 and (players[0] in dropped or players[1] in dropped):
            table = _forfeit(state, table, dropped)
        new_tables.append(table)
    for p in byes:
        _seat(p, everyone, seen, late_from, n)
    explanation = json.dumps(event.get("explanation") or {}, sort_keys=True)
    rec = RoundRec(n, stage, tuple(t.match_key for t in new_tables), byes, explanation)
    return dataclasses.replace(state, rounds=state.rounds + (rec,), tables=state.tables + tuple(new_tables))


def _seat(p, everyone, seen, late_from, n):
    if p not in everyone:
        raise _err("round/unknown_player", f"{p!r} is not in the tournament")
    if p in seen:
        raise _err("round/duplicate_player", f"{p!r} is paired twice")
    if late_from.get(p, 0) > n:
        raise _err("round/unknown_player", f"{p!r} joins from round {late_from[p]}")
    seen.add(p)


def _forfeit(state, table: Table, dropped) -> Table:
    """A duel with a dropped player is decided at once: the other player wins by forfeit. Both
    dropped: in elimination the first slot goes through; elsewhere it is no result at all."""
    a, b = (p in dropped for p in table.players)
    if a and b:
        ranks = (1, 2) if draws_replayed(state, table) else (1, 1)
    else:
        ranks = (2, 1) if a else (1, 2)
    entry = Entry("forfeit", ranks=ranks, reason="dropped")
    return dataclasses.replace(
        table, status="decided", ranks=ranks, forfeit=True, decided_by="forfeit", history=(entry,)
    )


def _find(state, event) -> tuple[int, Table]:
    key = _field(event, "match_key")
    index = state.table_index()
    if key not in index:
        raise _err("table/unknown", f"no table {key!r}")
    return index[key], state.tables[index[key]]


def _put(state, i: int, table: Table) -> TournamentState:
    return dataclasses.replace(state, tables=state.tables[:i] + (table,) + state.tables[i + 1 :])


def _check_ranks(state, table: Table, ranks) -> tuple[int, ...]:
    ranks = dense(ranks)
    if draws_replayed(state, table) and len(set(ranks)) != len(ranks):
        raise _err("result/draw_not_allowed", f"{table.match_key} is an elimination match: it needs a winner")
    return ranks


def _check_games(state, table: Table, games, ranks):
    """Reported games must decide the series, and decide it as the ranks say."""
    if games is None:
        return None
    got = series_ranks(games, len(table.players), table.best_of, draws_replayed(state, table))
    if got != ranks:
        raise _err(
            "result/games_mismatch", f"{table.match_key}: the games give {got!r}, the ranks say {ranks!r}"
        )
    return games


def _require_open(table: Table):
    if table.decided:
        raise _err(
            "result/already_recorded", f"{table.match_key} is already decided (the organiser can correct it)"
        )


def _require_player(table: Table, by) -> str:
    if by not in table.players:
        raise _err("result/not_a_player", f"{by!r} does not play at {table.match_key}")
    return by


def _running(state):
    if state.status == "registration":
        raise _err("tournament/not_started", "the tournament has not started")


def _game_recorded(state, event):
    _running(state)
    i, t = _find(state, event)
    _require_open(t)
    ranks = _ranks(_field(event, "ranks"), len(t.players))
    match_id = event.get("match_id")
    games = t.games + (ranks,)
    entry = Entry("game_recorded", ranks=ranks, match_id=match_id)
    t = dataclasses.replace(t, games=games, history=t.history + (entry,))
    result = series_ranks(games, len(t.players), t.best_of, draws_replayed(state, t))
    if result is not None:
        t = dataclasses.replace(
            t, status="decided", ranks=result, result_games=games, decided_by="games", reports=()
        )
    return _put(state, i, t)


def _result_reported(state, event):
    """A participant's report. The first one waits for another participant (or the organiser) to
    confirm it; a report by another participant that agrees confirms it, one that disagrees opens a
    dispute that only the organiser's correction settles."""
    _running(state)
    i, t = _find(state, event)
    _require_open(t)
    by = _require_player(t, _field(event, "by"))
    _require_not_disputed(t)
    ranks = _check_ranks(state, t, _ranks(_field(event, "ranks"), len(t.players)))
    games = _check_games(state, t, _games(event.get("games"), len(t.players)), ranks)
    others = tuple(r for r in t.reports if r.by != by)
    report = Report(by, ranks, games)
    entry = Entry("result_reported", by=by, ranks=ranks, games=games)
    if not others:
        return _put(
            state,
            i,
            dataclasses.replace(t, reports=(report,), status="reported", history=t.history + (entry,)),
        )
    if all(r.ranks == ranks for r in others):
        confirmed = Entry("result_confirmed", by=by, ranks=ranks, reason="agreeing report")
        t = dataclasses.replace(
            t,
            status="decided",
            ranks=ranks,
            result_games=games if games is not None else others[-1].games,
            decided_by="confirmed",
            reports=others + (report,),
            history=t.history + (entry, confirmed),
        )
        return _put(state, i, t)
    opened = Entry("result_disputed", by=by, reason="the reports disagree")
    t = dataclasses.replace(
        t, reports=others + (report,), status="disputed", history=t.history + (entry, opened)
    )
    return _put(state, i, t)


def _require_not_disputed(table: Table):
    if table.status == "disputed":
        raise _err(
            "result/disputed", f"{table.match_key} is disputed: only the organiser's correction settles it"
        )


def _result_confirmed(state, event):
    """Another participant than the reporter, or the organiser (`by_organiser`), confirms the
    pending report. A participant with a report of their own on the table cannot confirm: their
    report either agrees (and decided the table) or disagrees (and opened a dispute)."""
    _running(state)
    i, t = _find(state, event)
    _require_open(t)
    organiser = event.get("by_organiser") is True
    by = None if organiser else _require_player(t, _field(event, "by"))
    if not t.reports:
        raise _err("result/nothing_to_confirm", f"{t.match_key} has no reported result")
    _require_not_disputed(t)
    report = t.reports[-1]
    if any(r.by == by for r in t.reports):
        raise _err(
            "result/cannot_confirm_own",
            f"{by!r} reported this result: another player or the organiser confirms it",
        )
    entry = Entry("result_confirmed", by=by, ranks=report.ranks, reason="organiser" if organiser else None)
    t = dataclasses.replace(
        t,
        status="decided",
        ranks=report.ranks,
        result_games=report.games,
        decided_by="confirmed",
        history=t.history + (entry,),
    )
    return _put(state, i, t)


def _result_disputed(state, event):
    _running(state)
    i, t = _find(state, event)
    _require_open(t)
    by = _require_player(t, _field(event, "by"))
    if not t.reports:
        raise _err("result/nothing_to_dispute", f"{t.match_key} has no reported result")
    _require_not_disputed(t)
    if all(r.by == by for r in t.reports):
        raise _err("result/cannot_dispute_own", f"{by!r} reported this result: report again to change it")
    entry = Entry("result_disputed", by=by, reason=str(event.get("reason") or ""))
    return _put(state, i, dataclasses.replace(t, status="disputed", history=t.history + (entry,)))


def _result_corrected(state, event):
    _running(state)
    i, t = _find(state, event)
    ranks = _check_ranks(state, t, _ranks(_field(event, "ranks"), len(t.players)))
    games = _check_games(state, t, _games(event.get("games"), len(t.players)), ranks)
    forfeit = bool(event.get("forfeit", False))
    entry = Entry("result_corrected", ranks=ranks, games=games, reason=str(event.get("reason") or ""))
    new_t = dataclasses.replace(
        t,
        status="decided",
        ranks=ranks,
        result_games=games,
        forfeit=forfeit,
        decided_by="corrected",
        reports=(),
        history=t.history + (entry,),
    )
    new = _put(state, i, new_t)
    _check_moved_on(state, new, t, new_t)
    return new


def _check_moved_on(old, new, t: Table, new_t: Table):
    """A correction may not change what a later stage was already built on."""
    moved = None
    bracket = elim_bracket(old)
    if (
        bracket is not None
        and t.stage in ("main", "playoff")
        and t.decided
        and winner_of(t) != winner_of(new_t)
    ):
        index = old.table_index()
        for m in bracket.matches:
            if any(src.kind != "seed" and src.ref == t.match_key for src in m.slots) and m.id in index:
                moved = f"{m.id} was already paired from {t.match_key}'s result"
                break
    if old.spec.format == "groups_playoffs" and t.stage == "group" and old.playoff_seeds is not None:
        if tuple(compute_playoff_seeds(new)) != old.playoff_seeds:
            moved = "the playoff was already seeded from the group standings"
    if old.spec.format == "pods" and t.stage == "main":
        finals = [x for x in old.tables if x.stage == "final"]
        if finals and set(pods_advancing(new)) != set(finals[0].players):
            moved = "the final pod was already seated from the standings"
    if moved is None and old.status == "finished" and REMAINING[old.spec.format](new):
        moved = "the tournament is finished and this would reopen it"
    if moved is not None:
        raise _err("result/bracket_moved_on", f"correction of {t.match_key} refused: {moved}")


def _finished(state, event):
    if state.status != "running":
        raise _err("tournament/not_started", "the tournament has not started")
    if not is_complete(state):
        raise _err("tournament/not_complete", "rounds remain to be played or paired")
    return dataclasses.replace(state, status="finished")


def _forbidden_pairs_set(state, event):
    """The organiser's forbidden pairs, replacing the earlier ones; they bind every round paired after."""
    if state.spec.format != "swiss":
        raise _err(
            "pairing/no_forbidden_pairs",
            f"{state.spec.format} pairs by a fixed schedule or bracket: forbidden pairs do not apply",
        )
    pairs = _field(event, "pairs")
    if not isinstance(pairs, (list, tuple)):
        raise _err("event/bad_payload", "pairs must be a list of [player, player]")
    known = {e.player for e in state.entrants} | set(state.everyone)
    out = []
    for pair in pairs:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2 or pair[0] == pair[1]:
            raise _err("pairing/bad_pair", f"a forbidden pair is two different players, got {pair!r}")
        for p in pair:
            if p not in known:
                raise _err("player/not_registered", f"{p!r} is not registered")
        out.append((pair[0], pair[1]))
    return dataclasses.replace(state, forbidden=tuple(out))


def _round_repaired(state, event):
    """The organiser re-pairs the latest round before any of its tables has a result or a report:
    the same players (byes included) at new tables, under the same keys."""
    if state.status != "running" or not state.rounds:
        raise _err("round/nothing_to_repair", "no round has been paired")
    rec = state.rounds[-1]
    if _field(event, "round") != rec.round:
        raise _err("round/not_latest", f"only the latest round ({rec.round}) can be re-paired")
    if state.spec.format not in ("swiss", "pods") or rec.stage != "main":
        raise _err(
            "round/fixed_by_format",
            f"{state.spec.format} seats players by its schedule, bracket or standings, not by hand",
        )
    index = state.table_index()
    old = [state.tables[index[k]] for k in rec.match_keys]
    if any(t.history or t.games for t in old):
        raise _err("round/already_started", f"round {rec.round} has results or reports already")
    tables_in = _field(event, "tables")
    byes = tuple(_field(event, "byes", optional=True) or ())
    if not isinstance(tables_in, (list, tuple)) or len(tables_in) != len(old):
        raise _err("round/bad_table", f"round {rec.round} has {len(old)} tables")
    before = sorted([p for t in old for p in t.players] + list(rec.byes))
    new_players = [tuple(t.get("players") or ()) if isinstance(t, Mapping) else () for t in tables_in]
    if sorted([p for ps in new_players for p in ps] + list(byes)) != before:
        raise _err("round/bad_table", "a re-pairing seats exactly the round's players, each once")
    size = state.spec.seats_per_match
    if any(len(ps) < 2 or len(ps) > size or (size == 2 and len(ps) != 2) for ps in new_players):
        raise _err("round/bad_table", f"tables of 2 to {size} players")
    dropped = state.dropped_set
    for t, players in zip(old, new_players):
        table = dataclasses.replace(t, players=players, status="open")
        if len(players) == 2 and (players[0] in dropped or players[1] in dropped):
            table = _forfeit(state, table, dropped)
        state = _put(state, index[t.match_key], table)
    rounds = state.rounds[:-1] + (dataclasses.replace(rec, byes=byes),)
    return dataclasses.replace(state, rounds=rounds)


_HANDLERS = {
    "forbidden_pairs_set": _forbidden_pairs_set,
    "round_repaired": _round_repaired,
    "registered": _registered,
    "checked_in": _checked_in,
    "dropped": _dropped,
    "started": _started,
    "round_paired": _round_paired,
    "game_recorded": _game_recorded,
    "result_reported": _result_reported,
    "result_confirmed": _result_confirmed,
    "result_disputed": _result_disputed,
    "result_corrected": _result_corrected,
    "finished": _finished,
}


# -- the next round ----------------------------------------------------------------------------------


def next_round(state: TournamentState, *, rng: random.Random | None = None) -> dict:
    """The "round_paired" event to append next (not applied). `rng` is accepted for formats that
    draw lots; every current format pairs deterministically, so it is unused."""
    if state.status == "registration":
        raise _err("tournament/not_started", "the tournament has not started")
    open_tables = pending(state)
    if open_tables:
        raise _err(
            "round/not_complete",
            f"{len(open_tables)} table(s) of round {len(state.rounds)} are undecided: "
            + ", ".join(t.match_key for t in open_tables[:8]),
        )
    if state.status == "finished" or not REMAINING[state.spec.format](state):
        raise _err("tournament/complete", "nothing is left to pair")
    event = NEXT[state.spec.format](state)
    if event is None:
        raise _err("tournament/complete", "nothing is left to pair")
    return event


def is_complete(state: TournamentState) -> bool:
    if state.status == "finished":
        return True
    if state.status != "running" or pending(state):
        return False
    return not REMAINING[state.spec.format](state)


# -- projections -------------------------------------------------------------------------------------


def pending_tables(state: TournamentState) -> list[dict]:
    return [
        {
            "match_key": t.match_key,
            "round": t.round,
            "stage": t.stage,
            "group": t.group,
            "players": list(t.players),
            "best_of": t.best_of,
            "games_played": len(t.games),
            "status": t.status,
        }
        for t in pending(state)
    ]


def _lists(value):
    if value is None:
        return None
    return [list(v) if isinstance(v, tuple) else v for v in value]


def table_result(t: Table) -> dict | None:
    """A decided table's result: `ranks`, `winner`, `forfeit`, `decided_by`, `games`; else None."""
    if not t.decided:
        return None
    return {
        "ranks": list(t.ranks),
        "winner": winner_of(t),
        "forfeit": t.forfeit,
        "decided_by": t.decided_by,
        "games": _lists(t.result_games),
    }


def table(state: TournamentState, match_key: str) -> dict:
    index = state.table_index()
    if match_key not in index:
        raise _err("table/unknown", f"no table {match_key!r}")
    t = state.tables[index[match_key]]
    result = table_result(t)
    return {
        "match_key": t.match_key,
        "round": t.round,
        "stage": t.stage,
        "group": t.group,
        "players": list(t.players),
        "best_of": t.best_of,
        "games_played": len(t.games),
        "games": _lists(t.games),
        "status": t.status,
        "result": result,
        "reports": [{"by": r.by, "ranks": list(r.ranks), "games": _lists(r.games)} for r in t.reports],
        "history": [
            {
                k: (_lists(v) if k == "games" else list(v) if isinstance(v, tuple) else v)
                for k, v in dataclasses.asdict(e).items()
                if v is not None
            }
            for e in t.history
        ],
    }


def standings(state: TournamentState) -> list[dict]:
    if state.status == "registration":
        return []
    return STANDINGS[state.spec.format](state)


def standings_may_change(before: TournamentState, after: TournamentState) -> bool:
    """False when `after` (folded from `before`) certainly has the same standings, so that a caller
    keeping them need not compute them again. Standings read the start list, late entries, drops,
    rounds (byes), playoff seeds and each table's decided result, nothing else: a report, a
    dispute, a check-in or a game that leaves its series undecided changes none of these. States
    share every unchanged part (`apply` replaces only what an event touches), so identity tells."""
    if (before.status == "registration") != (after.status == "registration"):
        return True
    for part in ("spec", "players", "late", "dropped", "rounds", "playoff_seeds"):
        old, new = getattr(before, part), getattr(after, part)
        if old is not new and old != new:
            return True
    if len(before.tables) != len(after.tables):
        return True
    return any(
        old is not new and _standing_facts(old) != _standing_facts(new)
        for old, new in zip(before.tables, after.tables)
    )


def _standing_facts(t: Table) -> tuple:
    """What standings read of a table."""
    return (t.match_key, t.round, t.stage, t.group, t.players, t.decided, t.ranks, t.result_games, t.forfeit)


def bracket(state: TournamentState) -> dict | None:
    return bracket_view(state)


def summary(state: TournamentState) -> dict:
    if state.status == "registration":
        players = len(state.entrants)
        active = players
    else:
        players = len(state.everyone)
        active = players - len(state.dropped)
    return {
        "status": state.status,
        "format": state.spec.format,
        "round": len(state.rounds),
        "stage": state.rounds[-1].stage if state.rounds else None,
        "players": players,
        "active": active,
        "checked_in": sum(1 for e in state.entrants if e.checked_in),
        "pending": len(pending(state)),
        "complete": is_complete(state),
        "events": state.version,
    }
