"""Exports of a tournament (reads only): pairings as CSV, a Swiss in FIDE's TRF, and the whole log as
JSON that `services.tournament_import` replays on another instance to the same standings.

TRF follows the FIDE Tournament Report File format of 2016 (TRF16): a header of three-digit codes
and one fixed-column `001` line per player, whose round blocks are ten characters each from column
92: two spaces, the opponent's start number (4), a space, the colour (w, b or -), a space, the
result: 1 = 0 win, draw, loss; + and - forfeits; U the pairing-allocated bye; H a half-point bye; Z
a zero-point bye (a round missed or after a withdrawal). Seat 0 of a table is White. The rating
column holds, when the players were seeded by rating, the rating the seeding used (the ladders'
ordinal, rounded: not a FIDE Elo); the `132` line dates each round by its start (the organiser's
start of a held round, otherwise its pairing), in UTC.
"""

from __future__ import annotations

import csv
import io
import re
from datetime import UTC, datetime
from typing import Any

from tournaments.formats.lifecycle_formats import swiss_total
from tournaments.models import Tournament
from tournaments.selectors import tournament_head

EXPORT_FORMAT = "snakepit-tournament"
EXPORT_VERSION = 1


def natural_key(match_key: str) -> tuple:
    """`R1-T10` after `R1-T9`: digits compare as numbers."""
    return tuple(
        (0, int(part), "") if part.isdigit() else (1, 0, part)
        for part in re.split(r"(\d+)", match_key)
        if part
    )


def player_names(tournament: Tournament) -> dict[str, str]:
    return {entry.player: entry.label for entry in tournament.entries.select_related("user")}


def pairings_csv(tournament: Tournament) -> str:
    """Every table, round by round, tables in numeric order: who sat where and what it gave."""
    names = player_names(tournament)
    rows = sorted(tournament.tables.all(), key=lambda t: (t.round, natural_key(t.match_key)))
    seats = max((len(t.players) for t in rows), default=2)
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(
        [
            "round",
            "stage",
            "table",
            *(f"seat_{k + 1}" for k in range(seats)),
            "status",
            "ranks",
            "forfeit",
            "decided_by",
        ]
    )
    for t in rows:
        result = t.result or {}
        players = [names.get(p, p) for p in t.players] + [""] * (seats - len(t.players))
        ranks = "-".join(str(r) for r in result.get("ranks", []))
        writer.writerow(
            [
                t.round,
                t.stage,
                t.match_key,
                *players,
                t.status,
                ranks,
                bool(result.get("forfeit")),
                result.get("decided_by") or "",
            ]
        )
    return buffer.getvalue()


def _trf_result(table, player: str) -> tuple[str, str, str]:
    """(opponent, colour, result) of `player` at a duel table, opponent as a player id."""
    me = table.players.index(player)
    opponent = table.players[1 - me]
    colour = "w" if me == 0 else "b"
    if not table.decided:
        return opponent, colour, " "
    mine, theirs = table.ranks[me], table.ranks[1 - me]
    if table.forfeit:
        return opponent, colour, "+" if mine < theirs else "-"
    return opponent, colour, "1" if mine < theirs else "=" if mine == theirs else "0"


def _trf_rating(rating) -> str:
    """A rating as TRF's four digits, blank when there is none or it does not fit."""
    if isinstance(rating, bool) or not isinstance(rating, (int, float)) or not 0 <= round(rating) <= 9999:
        return ""
    return str(round(rating))


def _round_dates(tournament: Tournament) -> dict[int, datetime]:
    """Each main-stage round's start, in UTC: its `round_started` (a held round) or else its first
    pairing (a re-pairing does not move it)."""
    paired: dict[int, datetime] = {}
    started: dict[int, datetime] = {}
    events = tournament.events.filter(kind__in=("round_paired", "round_started")).order_by("seq")
    for kind, payload, created in events.values_list("kind", "payload", "created_at"):
        if kind == "round_started":
            started.setdefault(payload["round"], created)
        elif payload.get("stage", "main") == "main":
            paired.setdefault(payload["round"], created)
    return {n: started.get(n, at).astimezone(UTC) for n, at in paired.items()}


def tournament_trf(tournament: Tournament, standings: list[dict]) -> str:
    """The Swiss as a TRF16 file (`standings`: the stored rows, ranked)."""
    state = tournament_head(tournament).state
    names = player_names(tournament)
    players = list(state.everyone)
    start = {p: k + 1 for k, p in enumerate(players)}
    row_of = {row["player"]: row for row in standings}
    late_from = dict(state.late)
    dropped_at = dict(state.dropped)
    half_byes = state.spec.config.get("missed_rounds") == "half_point_bye"
    rounds = [r for r in state.rounds if r.stage == "main"]
    index = state.table_index()
    where: dict[tuple[int, str], Any] = {}
    for r in rounds:
        for key in r.match_keys:
            t = state.tables[index[key]]
            for p in t.players:
                where[r.round, p] = t
    started = tournament.events.filter(kind="started").first()
    ratings = (started.payload.get("ratings") or {}) if started else {}
    lines = [
        f"012 {tournament.name}",
        "022 Snakepit",
        f"042 {tournament.started_at:%Y/%m/%d}" if tournament.started_at else "042",
        f"052 {tournament.finished_at:%Y/%m/%d}" if tournament.finished_at else "052",
        f"062 {len(players)}",
        "092 Individual: Swiss-System",
        f"102 {tournament.organiser.get_username()}",
        f"XXR {swiss_total(state)}",
    ]
    if rounds:
        dates = _round_dates(tournament)
        lines.append(
            f"{'132':<89}"
            + "".join(f"  {dates[r.round]:%y/%m/%d}" if r.round in dates else " " * 10 for r in rounds)
        )
    for p in players:
        row = row_of.get(p, {})
        points = float(row.get("points") or 0.0)
        # Sex, title, federation, FIDE id and birth date are not known here: left blank.
        name, rating, rank = names.get(p, p)[:33], _trf_rating(ratings.get(p)), row.get("rank", 0)
        line = f"001 {start[p]:4d} {'':1}{'':3} {name:<33} {rating:>4} {'':3} {'':11} {'':10} "
        line += f"{points:4.1f} {rank:4d}"
        for r in rounds:
            block = "0000 - Z"
            table = where.get((r.round, p))
            if table is not None and len(table.players) == 2:
                opponent, colour, result = _trf_result(table, p)
                block = f"{start[opponent]:4d} {colour} {result}"
            elif p in r.byes:
                block = "0000 - U"
            elif late_from.get(p, 0) > r.round:
                block = "0000 - H" if half_byes else "0000 - Z"
            elif p in dropped_at and dropped_at[p] < r.round:
                block = "0000 - Z"
            line += f"  {block}"
        lines.append(line)
    return "\n".join(lines) + "\n"


def tournament_export(tournament: Tournament, standings: list[dict]) -> dict[str, Any]:
    """The whole tournament: its set-up, its players' names and its log, enough for another
    instance to replay it to the same `standings` (included, to compare). The secret behind the
    seeding appears only once the log has revealed it."""
    events = tournament.events.select_related("actor").order_by("seq")
    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "tournament": {
            "slug": tournament.slug,
            "name": tournament.name,
            "game": tournament.game,
            "options": tournament.options,
            "format": tournament.format,
            "config": tournament.config,
            "seats_per_match": tournament.seats_per_match,
            "result_mode": tournament.result_mode,
            "seeding": tournament.seeding,
            "status": tournament.status,
            "seed_commitment": tournament.seed_commitment,
        },
        "players": player_names(tournament),
        "events": [
            {
                "seq": e.seq,
                "kind": e.kind,
                "payload": e.payload,
                "created_at": e.created_at.isoformat(),
                "actor": e.actor.get_username() if e.actor_id else None,
            }
            for e in events
        ],
        "standings": standings,
    }
