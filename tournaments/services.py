"""Writes for tournaments: set-up, registration, rounds, results. The API and the match_finished
signal call these; nothing else writes a tournament.

Every change is an event appended to the tournament's log under the tournament's row lock, after the
pure reducer (`tournaments.formats.lifecycle`) has accepted it against the current state (cached, or
rebuilt from the latest snapshot: `selectors.tournament_head`); then only the projection rows the
action changed are written (entries, tables, matches, standings). An action out of order (pairing
before a round is complete, reporting a decided table) is refused with a 409 and a code, and writes
nothing.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone
from django.utils.module_loading import import_string

from core.errors import ApplicationError, Conflict, Forbidden, NotFound, Rejected
from core.quotas import quota_check
from core.slugs import slug_for
from decks.selectors import deck_version_brought, deck_version_for_entry
from decks.services import deck_version_freeze
from engines.registry import get_game
from matches.models import Match
from matches.services import SeatSpec, game_setup, match_create
from tournaments.formats import lifecycle
from tournaments.formats.common import FormatError
from tournaments.models import (
    Tournament,
    TournamentEntry,
    TournamentEvent,
    TournamentMatch,
    TournamentSnapshot,
    TournamentStanding,
    TournamentTable,
)
from tournaments.selectors import (
    ENTRY_STATUS,
    SERVICE_KINDS,
    TournamentHead,
    standing_rows,
    table_row,
    tournament_get,
    tournament_head,
    tournament_head_remember,
    tournament_standings_stored,
)

# A snapshot of the reducer's state is saved whenever this many events have passed since the last
# multiple of it, and after every pairing; a process without the state cached folds at most this
# many events (or one round's results) onto the latest one. The latest SNAPSHOTS_KEPT are kept.
SNAPSHOT_EVERY = 100
SNAPSHOTS_KEPT = 2

# Reducer refusals that mean "not now" rather than "never": answered with 409.
OUT_OF_ORDER = frozenset(
    {
        "round/not_complete",
        "result/already_recorded",
        "result/bracket_moved_on",
        "tournament/complete",
        "tournament/not_started",
        "tournament/not_complete",
        "tournament/already_started",
        "player/already_registered",
    }
)


def _refusal(error: FormatError) -> ApplicationError:
    status = 409 if error.code in OUT_OF_ORDER else 422
    return ApplicationError(error.detail, code=error.code, status=status)


def _require_organiser(tournament: Tournament, user) -> None:
    if not (user.is_staff or tournament.organiser_id == user.pk):
        raise Forbidden("only the organiser (or staff) manages this tournament", code="tournament/not_organiser")


def _require_status(tournament: Tournament, *allowed: str) -> None:
    if tournament.status not in allowed:
        raise Conflict(
            f"the tournament is {tournament.status}; this needs it {' or '.join(allowed)}",
            code="tournament/wrong_status",
        )


class _Change:
    """One action on one tournament whose row lock the caller holds: its events, each applied to the
    current state by the reducer (a refusal raises and writes nothing) and appended; then `project`
    writes only the projection rows they changed, saves a snapshot when one is due, and caches the
    new state once the transaction commits."""

    def __init__(self, tournament: Tournament):
        self.tournament = tournament
        self.before = tournament_head(tournament)
        self.state = self.before.state
        self.seq = self.before.seq
        self.events: list[TournamentEvent] = []

    def append(self, payload: dict[str, Any], *, actor=None) -> TournamentEvent:
        kind = payload["kind"]
        state = self.state
        if kind not in SERVICE_KINDS:
            try:
                state = lifecycle.apply(state, payload)
            except FormatError as error:
                raise _refusal(error) from None
        event = TournamentEvent.objects.create(tournament=self.tournament, seq=self.seq + 1, kind=kind, payload=payload, actor=actor)
        self.state, self.seq = state, event.seq
        self.events.append(event)
        return event

    def project(self) -> None:
        tournament, before, state = self.tournament, self.before.state, self.state
        statuses = {e.payload["player"]: ENTRY_STATUS[e.kind] for e in self.events if e.kind in ENTRY_STATUS}
        for player, status in statuses.items():
            tournament.entries.filter(player=player).exclude(status=status).update(status=status)
        self._project_tables(before.tables, state.tables)
        standings = self.before.standings
        if lifecycle.standings_may_change(before, state):
            standings = self._project_standings(standings)
        if self.seq // SNAPSHOT_EVERY > self.before.seq // SNAPSHOT_EVERY or any(
            e.kind in ("started", "round_paired") for e in self.events
        ):
            self._snapshot()
        tournament_head_remember(tournament, TournamentHead(state, self.seq, standings))

    def _project_tables(self, before: tuple, after: tuple) -> None:
        """The reducer appends tables and replaces the ones an event touches, sharing the rest, so
        the tables that are not the very same objects are the ones to write."""
        tournament = self.tournament
        if len(after) < len(before):  # never done by the reducer; rewrite them all rather than guess
            tournament.tables.all().delete()
            before = ()
        for old, new in zip(before, after):
            if new is not old and (row := table_row(new)) != table_row(old):
                row = _json(row)
                key = row.pop("match_key")
                tournament.tables.filter(match_key=key).update(**row)
        TournamentTable.objects.bulk_create(
            TournamentTable(tournament=tournament, **_json(table_row(t))) for t in after[len(before):]
        )

    def _project_standings(self, stored: dict[str, dict] | None) -> dict[str, dict]:
        """Write the standings rows whose values changed; return them all. A result moves many
        players up or down a place and changes the numbers of only a few: a row whose rank alone
        moved gets its rank column set, the others are written anew (the JSON holds no rank)."""
        tournament = self.tournament
        rows = {row["player"]: row for row in standing_rows(self.state)}
        stored = tournament_standings_stored(tournament) if stored is None else stored
        rewrite, rerank = [], {}
        for player, row in rows.items():
            old = stored.get(player)
            if old is None or {**old, "rank": row["rank"]} != row:
                rewrite.append(row)
            elif old["rank"] != row["rank"]:
                rerank[player] = row["rank"]
        gone = [player for player in stored if player not in rows]
        if rewrite or gone:
            tournament.standings.filter(player__in=[row["player"] for row in rewrite] + gone).delete()
            TournamentStanding.objects.bulk_create(
                TournamentStanding(tournament=tournament, player=row["player"], rank=row["rank"], row=_unranked(row))
                for row in rewrite
            )
        if rerank:
            _ranks_save(tournament, rerank)
        return rows

    def _snapshot(self) -> None:
        tournament = self.tournament
        TournamentSnapshot.objects.create(
            tournament=tournament, seq=self.seq, version=lifecycle.STATE_JSON_VERSION, state=lifecycle.state_to_json(self.state)
        )
        old = tournament.snapshots.order_by("-seq").values_list("pk", flat=True)[SNAPSHOTS_KEPT:]
        tournament.snapshots.filter(pk__in=list(old)).delete()


def _json(value):
    return json.loads(json.dumps(value))


def _ranks_save(tournament: Tournament, ranks: dict[str, int]) -> None:
    """One UPDATE per moved row, sent with executemany (psycopg pipelines them). An UPDATE with a
    CASE over hundreds of players costs Django more to build than the rest of the action."""
    table, quote = TournamentStanding._meta.db_table, connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.executemany(
            f"UPDATE {quote(table)} SET rank = %s WHERE tournament_id = %s AND player = %s",
            [(rank, tournament.pk, player) for player, rank in ranks.items()],
        )


def _unranked(row: dict) -> dict:
    """A standings row as its JSON column keeps it: the rank lives in its own column."""
    return {key: value for key, value in row.items() if key != "rank"}


# --- set-up -------------------------------------------------------------------------------------

@transaction.atomic
def tournament_create(
    *,
    organiser,
    name: str,
    game_key: str,
    format: str,
    slug: str | None = None,
    options: dict | None = None,
    config: dict | None = None,
    seats_per_match: int | None = None,
    result_mode: str = Tournament.ResultMode.SNAKEPIT,
    seeding: str = Tournament.Seeding.RANDOM,
    registration_cap: int | None = None,
    check_in_required: bool = False,
) -> Tournament:
    """A draft tournament of any registered game in any format; nothing is open yet."""
    game, resolved, seats = game_setup(game_key=game_key, options=options, seats=seats_per_match)
    if format not in lifecycle.FORMATS:
        raise Rejected(f"format is one of {', '.join(lifecycle.FORMATS)}", code="tournament/unknown_format")
    config = dict(config or {})
    if format == "pods":
        config.setdefault("min_seats", game.spec.min_players)
    try:
        spec = lifecycle.spec_check(lifecycle.TournamentSpec(format=format, seats_per_match=seats, config=config))
    except FormatError as error:
        raise _refusal(error) from None
    if result_mode not in Tournament.ResultMode.values:
        raise Rejected(f"result mode is one of {', '.join(Tournament.ResultMode.values)}", code="tournament/bad_result_mode")
    if seeding not in Tournament.Seeding.values:
        raise Rejected(f"seeding is one of {', '.join(Tournament.Seeding.values)}", code="tournament/bad_seeding")
    slug = slug or slug_for(
        name, taken=lambda candidate: Tournament.objects.filter(slug=candidate).exists(), prefix="tournament"
    )
    quota_check(
        organiser, name="tournaments", what="tournaments not finished",
        current=Tournament.objects.filter(organiser=organiser).exclude(status=Tournament.Status.FINISHED).count(),
    )
    if Tournament.objects.filter(slug=slug).exists():
        raise Conflict(f"a tournament {slug!r} exists already", code="tournament/slug_taken")
    return Tournament.objects.create(
        slug=slug, name=name, game=game.spec.key, options=resolved, format=format, config=dict(spec.config),
        seats_per_match=seats, result_mode=result_mode, seeding=seeding, registration_cap=registration_cap,
        check_in_required=check_in_required, organiser=organiser,
    )


CONFIGURABLE = ("name", "options", "config", "seats_per_match", "result_mode", "seeding", "registration_cap",
                "check_in_required", "check_in_opens_at")


@transaction.atomic
def tournament_configure(*, slug: str, user, **changes) -> Tournament:
    """Change a draft's set-up; everything is checked again as at creation. A tournament whose
    registration is open keeps its format, so that nobody registers for one event and plays another;
    only its cap and check-in may still move."""
    tournament = tournament_get(slug=slug, for_update=True)
    _require_organiser(tournament, user)
    unknown = sorted(set(changes) - set(CONFIGURABLE))
    if unknown:
        raise Rejected(f"cannot change {', '.join(unknown)}", code="tournament/not_configurable")
    if tournament.status == Tournament.Status.REGISTRATION:
        late = sorted(set(changes) - {"registration_cap", "check_in_required", "check_in_opens_at", "name"})
        if late:
            raise Conflict(f"registration is open: {', '.join(late)} can no longer change", code="tournament/wrong_status")
    else:
        _require_status(tournament, Tournament.Status.DRAFT)
    if {"options", "config", "seats_per_match"} & set(changes):
        game, resolved, seats = game_setup(
            game_key=tournament.game,
            options=changes.get("options", tournament.options),
            seats=changes.get("seats_per_match", tournament.seats_per_match),
        )
        try:
            spec = lifecycle.spec_check(
                lifecycle.TournamentSpec(format=tournament.format, seats_per_match=seats, config=changes.get("config", tournament.config))
            )
        except FormatError as error:
            raise _refusal(error) from None
        changes.update(options=resolved, seats_per_match=seats, config=dict(spec.config))
    for field, value in changes.items():
        setattr(tournament, field, value)
    tournament.save()
    return tournament


@transaction.atomic
def tournament_open(*, slug: str, user) -> Tournament:
    """Draft -> registration."""
    tournament = tournament_get(slug=slug, for_update=True)
    _require_organiser(tournament, user)
    _require_status(tournament, Tournament.Status.DRAFT)
    change = _Change(tournament)
    change.append({"kind": "registration_opened"}, actor=user)
    change.project()
    tournament.status = Tournament.Status.REGISTRATION
    tournament.save(update_fields=["status"])
    return tournament


# --- registration -------------------------------------------------------------------------------

@transaction.atomic
def tournament_register(
    *, slug: str, user, bot: str = "", deck_share_id: str | None = None, seed: int | None = None
) -> TournamentEntry:
    """Register `user` (or, by the organiser, a built-in bot). Swiss and pods take late entries."""
    tournament = tournament_get(slug=slug, for_update=True)
    _require_status(tournament, Tournament.Status.REGISTRATION, Tournament.Status.RUNNING)
    game = get_game(tournament.game)
    if bot:
        _require_organiser(tournament, user)
        if bot not in game.bots():
            raise Rejected(f"{game.spec.name} has no bot {bot!r}", code="seat/unknown_bot")
    elif tournament.entries.filter(user=user).exists():
        raise Conflict("you are registered already", code="player/already_registered")
    if seed is not None:
        _require_organiser(tournament, user)
    active = tournament.entries.exclude(status=TournamentEntry.Status.DROPPED).count()
    if tournament.registration_cap is not None and active >= tournament.registration_cap:
        raise Conflict(f"the tournament is full ({tournament.registration_cap})", code="tournament/full")
    deck_version = None
    if game.spec.needs_deck and not bot:
        if not deck_share_id:
            raise Rejected(f"{game.spec.name} entries bring a legal saved deck", code="entry/deck_required")
        deck_version = deck_version_freeze(
            deck_version=deck_version_for_entry(share_id=deck_share_id, user=user),
            purpose=f"tournament {tournament.slug}",
        )
    elif deck_share_id:
        raise Rejected(f"{game.spec.name} is played without decks", code="entry/deck_not_needed")
    player = f"b{tournament.entries.filter(user__isnull=True).count() + 1}" if bot else f"u{user.pk}"
    change = _Change(tournament)
    change.append({"kind": "registered", "player": player, "seed": seed, "rating": None}, actor=user)
    entry = TournamentEntry.objects.create(
        tournament=tournament, player=player, user=None if bot else user, bot=bot, deck_version=deck_version, seed=seed
    )
    change.project()
    return entry


def _entry_for(tournament: Tournament, user, player: str | None) -> TournamentEntry:
    """The entry `user` acts for: their own, or (organisers) any named player."""
    if player is not None:
        entry = tournament.entries.filter(player=player).first()
        if entry is None:
            raise NotFound(f"no player {player!r} in this tournament", code="player/not_found")
        if entry.user_id != user.pk:
            _require_organiser(tournament, user)
        return entry
    entry = tournament.entries.filter(user=user).first()
    if entry is None:
        raise Forbidden("you are not registered in this tournament", code="player/not_registered")
    return entry


@transaction.atomic
def tournament_check_in(*, slug: str, user, player: str | None = None) -> TournamentEntry:
    tournament = tournament_get(slug=slug, for_update=True)
    _require_status(tournament, Tournament.Status.REGISTRATION)
    if not tournament.check_in_required:
        raise Conflict("this tournament has no check-in", code="check_in/not_required")
    if tournament.check_in_opens_at and timezone.now() < tournament.check_in_opens_at:
        raise Conflict(f"check-in opens at {tournament.check_in_opens_at.isoformat()}", code="check_in/not_open")
    entry = _entry_for(tournament, user, player)
    change = _Change(tournament)
    change.append({"kind": "checked_in", "player": entry.player}, actor=user)
    change.project()
    return entry


@transaction.atomic
def tournament_drop(*, slug: str, user, player: str | None = None) -> TournamentEntry:
    """A player drops (or the organiser drops them); after the start they keep their standing."""
    tournament = tournament_get(slug=slug, for_update=True)
    _require_status(tournament, Tournament.Status.REGISTRATION, Tournament.Status.RUNNING)
    entry = _entry_for(tournament, user, player)
    change = _Change(tournament)
    change.append({"kind": "dropped", "player": entry.player}, actor=user)
    change.project()
    return entry


# --- running ------------------------------------------------------------------------------------

def _rng(tournament: Tournament, purpose: str, seq: int) -> random.Random:
    # Reproducible: the same log position of the same tournament always draws the same.
    digest = hashlib.sha256(f"snakepit/tournament/{tournament.slug}/{purpose}/{seq}".encode()).digest()
    return random.Random(int.from_bytes(digest, "big"))


def _seed_order(tournament: Tournament, entries: list[TournamentEntry], seq: int) -> list[TournamentEntry]:
    if tournament.seeding == Tournament.Seeding.RANDOM:
        order = sorted(entries, key=lambda entry: entry.player)
        _rng(tournament, "seeding", seq).shuffle(order)
        return order
    if tournament.seeding == Tournament.Seeding.RATING:
        ratings = _ratings(tournament, entries)
        return sorted(entries, key=lambda entry: (-ratings.get(entry.pk, float("-inf")), entry.seed or 10**9, entry.pk))
    return sorted(entries, key=lambda entry: (entry.seed is None, entry.seed or 0, entry.pk))


def _ratings(tournament: Tournament, entries: list[TournamentEntry]) -> dict[int, float]:
    """Each person's rating in this game, by entry, from the source the settings name
    (`SNAKEPIT_SEEDING_RATINGS`: the ladders' best ordinal by default). Ratings are a sibling app, so
    it is reached through the settings, never imported; bots and unrated people have none."""
    ratings_of = import_string(settings.SNAKEPIT_SEEDING_RATINGS)
    by_user = ratings_of(game_key=tournament.game, user_ids=[entry.user_id for entry in entries if entry.user_id])
    return {entry.pk: by_user[entry.user_id] for entry in entries if entry.user_id in by_user}


@transaction.atomic
def tournament_start(*, slug: str, user) -> Tournament:
    """Registration -> running: seed the players (checked-in ones where check-in is required) and
    pair the first round."""
    tournament = tournament_get(slug=slug, for_update=True)
    _require_organiser(tournament, user)
    _require_status(tournament, Tournament.Status.REGISTRATION)
    entries = list(tournament.entries.exclude(status=TournamentEntry.Status.DROPPED))
    if tournament.check_in_required:
        entries = [entry for entry in entries if entry.status == TournamentEntry.Status.CHECKED_IN]
    change = _Change(tournament)
    players = [entry.player for entry in _seed_order(tournament, entries, change.seq)]
    change.append({"kind": "started", "players": players}, actor=user)
    tournament.status = Tournament.Status.RUNNING
    tournament.started_at = timezone.now()
    tournament.save(update_fields=["status", "started_at"])
    _pair_next_round(change, user)
    change.project()
    return tournament


@transaction.atomic
def tournament_next_round(*, slug: str, user) -> Tournament:
    """Pair the next round (409 `round/not_complete` while a table is undecided), or finish the
    tournament when nothing is left to play."""
    tournament = tournament_get(slug=slug, for_update=True)
    _require_organiser(tournament, user)
    _require_status(tournament, Tournament.Status.RUNNING)
    change = _Change(tournament)
    _pair_next_round(change, user)
    change.project()
    return tournament


def _pair_next_round(change: _Change, user) -> None:
    tournament = change.tournament
    if lifecycle.is_complete(change.state):
        change.append({"kind": "finished"}, actor=user)
        tournament.status = Tournament.Status.FINISHED
        tournament.finished_at = timezone.now()
        tournament.save(update_fields=["status", "finished_at"])
        return
    try:
        paired = lifecycle.next_round(change.state, rng=_rng(tournament, "pairing", change.seq))
    except FormatError as error:
        raise _refusal(error) from None
    change.append(paired, actor=user)
    if tournament.result_mode == Tournament.ResultMode.SNAKEPIT:
        for table in paired["tables"]:
            _start_game(change, table["match_key"], table["players"], game_number=1)


def _start_game(change: _Change, match_key: str, players: list[str], *, game_number: int) -> Match:
    """A Snakepit match for one game of a table, seats in the table's order."""
    tournament = change.tournament
    entries = {entry.player: entry for entry in tournament.entries.filter(player__in=players).select_related("user", "deck_version")}
    match = match_create(
        game_key=tournament.game,
        options=tournament.options,
        seats=[_seat(entries[player]) for player in players],
        created_by=tournament.organiser,
    )
    change.append({"kind": "match_created", "match_key": match_key, "game": game_number, "match_id": match.pk})
    TournamentMatch.objects.create(tournament=tournament, match_key=match_key, game_number=game_number, match=match)
    return match


def _seat(entry: TournamentEntry) -> SeatSpec:
    """A match seat for an entry, bringing its frozen deck where it has one."""
    deck = deck_version_brought(entry.deck_version) if entry.deck_version_id else None
    return SeatSpec(user=entry.user, bot=entry.bot, deck=deck)


def tournament_record_match(*, match_id: int) -> TournamentEvent | None:
    """A Snakepit match of a table finished: record the game once, and start the table's next game
    while its series is undecided. Called by the match_finished signal; safe to call twice."""
    link = TournamentMatch.objects.filter(match_id=match_id).select_related("match").first()
    if link is None or not link.match.is_finished:
        return None
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=link.tournament_id)
        if tournament.events.filter(kind="game_recorded", payload__match_id=match_id).exists():
            return None  # already recorded: a duplicate signal changes nothing
        change = _Change(tournament)
        recorded = {"kind": "game_recorded", "match_key": link.match_key, "ranks": link.match.outcome["ranks"], "match_id": match_id}
        try:
            event = change.append(recorded)
        except ApplicationError as refused:
            if refused.code == "result/already_recorded":  # the organiser settled it meanwhile
                return None
            raise
        table = lifecycle.table(change.state, link.match_key)
        if table["status"] != "decided":
            _start_game(change, link.match_key, table["players"], game_number=link.game_number + 1)
        change.project()
        return event


# --- results at a table ---------------------------------------------------------------------------

def _result_event(slug: str, user, payload: dict[str, Any], *, organiser: bool = False, player: str | None = None):
    with transaction.atomic():
        tournament = tournament_get(slug=slug, for_update=True)
        _require_status(tournament, Tournament.Status.RUNNING, Tournament.Status.FINISHED)
        if organiser:
            _require_organiser(tournament, user)
        else:
            _require_status(tournament, Tournament.Status.RUNNING)
            if tournament.result_mode == Tournament.ResultMode.SNAKEPIT:
                raise Conflict("results of this tournament come from its Snakepit matches", code="result/played_on_snakepit")
            payload["by"] = _entry_for(tournament, user, player).player
        change = _Change(tournament)
        event = change.append(payload, actor=user)
        change.project()
        return event


def tournament_report(*, slug: str, user, match_key: str, ranks: list[int], games: list | None = None, player=None):
    return _result_event(
        slug, user, {"kind": "result_reported", "match_key": match_key, "ranks": ranks, "games": games}, player=player
    )


def tournament_confirm(*, slug: str, user, match_key: str, player=None):
    return _result_event(slug, user, {"kind": "result_confirmed", "match_key": match_key}, player=player)


def tournament_dispute(*, slug: str, user, match_key: str, reason: str, player=None):
    return _result_event(
        slug, user, {"kind": "result_disputed", "match_key": match_key, "reason": reason}, player=player
    )


def tournament_correct(*, slug: str, user, match_key: str, ranks: list[int], reason: str, games: list | None = None):
    """The organiser settles a dispute or corrects any result; the earlier reports stay in the log."""
    return _result_event(
        slug, user,
        {"kind": "result_corrected", "match_key": match_key, "ranks": ranks, "games": games, "reason": reason},
        organiser=True,
    )
