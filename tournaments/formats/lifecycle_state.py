"""The tournament state: frozen values folded from the event log (see lifecycle.py), and its JSON form.

Everything inside is a frozen dataclass, a tuple, a str/int/float/bool/None, or the spec's config (a
JSON-only dict); a round's explanation is kept as canonical JSON text. `state_to_json` /
`state_from_json` are exact inverses through `json.dumps` / `json.loads`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from .lifecycle_spec import TournamentSpec


@dataclass(frozen=True)
class Entrant:
    """A registration (before the start, or a late entry)."""

    player: str
    seed: int | None = None
    rating: float | None = None
    checked_in: bool = False


@dataclass(frozen=True)
class Report:
    """A player's pending report: the table's ranks (and optionally the games)."""

    by: str
    ranks: tuple[int, ...]
    games: tuple[tuple[int, ...], ...] | None = None


@dataclass(frozen=True)
class Entry:
    """One line of a table's history: the event kind and what it said."""

    kind: str
    by: str | None = None
    ranks: tuple[int, ...] | None = None
    games: tuple[tuple[int, ...], ...] | None = None
    reason: str | None = None
    match_id: int | None = None


@dataclass(frozen=True)
class Table:
    match_key: str
    round: int
    stage: str
    group: str | None
    players: tuple[str, ...]
    best_of: int
    games: tuple[tuple[int, ...], ...] = ()  # games recorded by game_recorded, in order
    reports: tuple[Report, ...] = ()  # pending reports, one per player, the latest last
    status: str = "open"  # open | reported | disputed | decided
    ranks: tuple[int, ...] | None = None  # the decided result, per player in table order, 1 = best
    result_games: tuple[tuple[int, ...], ...] | None = None  # the games behind the result, if known
    forfeit: bool = False
    decided_by: str | None = None  # games | confirmed | corrected | forfeit
    history: tuple[Entry, ...] = ()

    @property
    def decided(self) -> bool:
        return self.status == "decided"


@dataclass(frozen=True)
class RoundRec:
    round: int
    stage: str
    match_keys: tuple[str, ...]
    byes: tuple[str, ...]
    explanation: str  # canonical JSON text of the event's explanation


@dataclass(frozen=True)
class TournamentState:
    spec: TournamentSpec
    status: str = "registration"  # registration | running | finished
    entrants: tuple[Entrant, ...] = ()  # registrations (dropped ones removed before the start)
    players: tuple[str, ...] = ()  # the "started" list, in seed order
    late: tuple[tuple[str, int], ...] = ()  # (late entrant, first round they can be paired in)
    dropped: tuple[tuple[str, int], ...] = ()  # (player, rounds paired when they dropped)
    rounds: tuple[RoundRec, ...] = ()
    tables: tuple[Table, ...] = ()
    playoff_seeds: tuple[str, ...] | None = None  # groups_playoffs: fixed when the playoff is paired
    forbidden: tuple[tuple[str, str], ...] = ()  # swiss: pairs forbidden by "forbidden_pairs_set"
    version: int = 0  # events applied

    # -- small derived helpers (not state) ---------------------------------------------------------
    @property
    def everyone(self) -> tuple[str, ...]:
        """Every player in the tournament, seed order, late entrants appended."""
        return self.players + tuple(p for p, _ in self.late)

    @property
    def dropped_set(self) -> frozenset[str]:
        return frozenset(p for p, _ in self.dropped)

    def table_index(self) -> dict[str, int]:
        return {t.match_key: i for i, t in enumerate(self.tables)}


# -- JSON ------------------------------------------------------------------------------------------

#: The JSON form's version. Stored beside saved states (the service's snapshots): raise it whenever
#: the state's shape, or what an event does to it, changes, so that older saved states are ignored
#: and rebuilt from the log rather than trusted.
STATE_JSON_VERSION = 2


def _plain(value):
    if hasattr(value, "__dataclass_fields__"):
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _tt(value):
    """Nested lists → nested tuples (None stays None)."""
    if value is None:
        return None
    return tuple(_tt(v) if isinstance(v, list) else v for v in value)


def state_to_json(state: TournamentState) -> dict:
    """The state as JSON values; `state_from_json(json.loads(json.dumps(...)))` gives it back."""
    return _plain(state)


def state_from_json(data: dict) -> TournamentState:
    spec = TournamentSpec(data["spec"]["format"], data["spec"]["seats_per_match"], data["spec"]["config"])
    tables = tuple(
        Table(
            t["match_key"],
            t["round"],
            t["stage"],
            t["group"],
            tuple(t["players"]),
            t["best_of"],
            _tt(t["games"]),
            tuple(Report(r["by"], _tt(r["ranks"]), _tt(r["games"])) for r in t["reports"]),
            t["status"],
            _tt(t["ranks"]),
            _tt(t["result_games"]),
            t["forfeit"],
            t["decided_by"],
            tuple(
                Entry(e["kind"], e["by"], _tt(e["ranks"]), _tt(e["games"]), e["reason"], e["match_id"])
                for e in t["history"]
            ),
        )
        for t in data["tables"]
    )
    return TournamentState(
        spec=spec,
        status=data["status"],
        entrants=tuple(Entrant(**e) for e in data["entrants"]),
        players=tuple(data["players"]),
        late=tuple((p, r) for p, r in data["late"]),
        dropped=tuple((p, r) for p, r in data["dropped"]),
        rounds=tuple(
            RoundRec(r["round"], r["stage"], tuple(r["match_keys"]), tuple(r["byes"]), r["explanation"])
            for r in data["rounds"]
        ),
        tables=tables,
        playoff_seeds=None if data["playoff_seeds"] is None else tuple(data["playoff_seeds"]),
        forbidden=tuple((a, b) for a, b in data["forbidden"]),
        version=data["version"],
    )


# -- series ----------------------------------------------------------------------------------------


def series_ranks(games, players: int, best_of: int, draws_replayed: bool) -> tuple[int, ...] | None:
    """The table's ranks once `games` decide it, else None.

    Pods (3+ players) play one game: its ranks are the result. Duels: a game's lower rank wins it,
    equal ranks are a drawn game. The series is won by the first to win a majority of `best_of`
    (best_of // 2 + 1). In elimination (`draws_replayed`) a drawn game does not count and is replayed,
    so only a win ends the series. Elsewhere a drawn game counts as played: after `best_of` games
    the side with more game wins takes the match, equal game wins draw it.
    """
    if not games:
        return None
    if players != 2:
        return dense(games[0])
    w0 = sum(1 for g in games if g[0] < g[1])
    w1 = sum(1 for g in games if g[1] < g[0])
    need = best_of // 2 + 1
    if w0 >= need:
        return (1, 2)
    if w1 >= need:
        return (2, 1)
    if not draws_replayed and len(games) >= best_of:
        return (1, 2) if w0 > w1 else (2, 1) if w1 > w0 else (1, 1)
    return None


def dense(ranks) -> tuple[int, ...]:
    """Competition ranking ("1224") of any rank values: 1 + how many finished strictly ahead."""
    return tuple(1 + sum(1 for o in ranks if o < r) for r in ranks)


def game_counts(games) -> tuple[int, int, int]:
    """(seat-0 game wins, seat-1 game wins, drawn games) of a duel's games."""
    if not games:
        return (0, 0, 0)
    return (
        sum(1 for g in games if g[0] < g[1]),
        sum(1 for g in games if g[1] < g[0]),
        sum(1 for g in games if g[0] == g[1]),
    )
