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
import hmac
import json
import random
import secrets
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.utils import timezone
from django.utils.module_loading import import_string

from core.errors import ApplicationError, Conflict, Forbidden, NotFound, Rejected
from core.quotas import quota_check
from core.slugs import slug_for
from decks.selectors import deck_version_brought, deck_version_for_entry, deck_version_judged_now
from decks.services import deck_version_freeze
from engines.chance import ChanceRequest, draw, seed_commitment
from engines.registry import get_game
from matches.models import Match
from matches.services import SeatSpec, game_setup, match_create, match_forfeit
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
    tournament_projection,
    tournament_standings_stored,
)
from tournaments.webhooks import webhook_add, webhooks_notify

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
        "result/disputed",
        "result/nothing_to_confirm",
        "result/nothing_to_dispute",
        "player/already_dropped",
        "round/already_started",
        "round/not_latest",
        "round/nothing_to_repair",
    }
)


def _refusal(error: FormatError) -> ApplicationError:
    status = 409 if error.code in OUT_OF_ORDER else 422
    return ApplicationError(error.detail, code=error.code, status=status)


def _require_organiser(tournament: Tournament, user) -> None:
    if not (user.is_staff or tournament.organiser_id == user.pk):
        raise Forbidden(
            "only the organiser (or staff) manages this tournament", code="tournament/not_organiser"
        )


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
        event = TournamentEvent.objects.create(
            tournament=self.tournament, seq=self.seq + 1, kind=kind, payload=payload, actor=actor
        )
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
            TournamentTable(tournament=tournament, **_json(table_row(t))) for t in after[len(before) :]
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
                TournamentStanding(
                    tournament=tournament, player=row["player"], rank=row["rank"], row=_unranked(row)
                )
                for row in rewrite
            )
        if rerank:
            _ranks_save(tournament, rerank)
        return rows

    def _snapshot(self) -> None:
        tournament = self.tournament
        TournamentSnapshot.objects.create(
            tournament=tournament,
            seq=self.seq,
            version=lifecycle.STATE_JSON_VERSION,
            state=lifecycle.state_to_json(self.state),
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
    rounds_start: str = Tournament.RoundsStart.AT_ONCE,
) -> Tournament:
    """A draft tournament of any registered game in any format; nothing is open yet."""
    game, resolved, seats = game_setup(game_key=game_key, options=options, seats=seats_per_match)
    if format not in lifecycle.FORMATS:
        raise Rejected(f"format is one of {', '.join(lifecycle.FORMATS)}", code="tournament/unknown_format")
    config = dict(config or {})
    if format == "pods":
        config.setdefault("min_seats", game.spec.min_players)
    try:
        spec = lifecycle.spec_check(
            lifecycle.TournamentSpec(format=format, seats_per_match=seats, config=config)
        )
    except FormatError as error:
        raise _refusal(error) from None
    if result_mode not in Tournament.ResultMode.values:
        raise Rejected(
            f"result mode is one of {', '.join(Tournament.ResultMode.values)}",
            code="tournament/bad_result_mode",
        )
    if seeding not in Tournament.Seeding.values:
        raise Rejected(
            f"seeding is one of {', '.join(Tournament.Seeding.values)}", code="tournament/bad_seeding"
        )
    if rounds_start not in Tournament.RoundsStart.values:
        raise Rejected(
            f"rounds_start is one of {', '.join(Tournament.RoundsStart.values)}",
            code="tournament/bad_rounds_start",
        )
    slug = slug or slug_for(
        name, taken=lambda candidate: Tournament.objects.filter(slug=candidate).exists(), prefix="tournament"
    )
    quota_check(
        organiser,
        name="tournaments",
        what="tournaments not finished",
        current=Tournament.objects.filter(organiser=organiser)
        .exclude(status__in=[Tournament.Status.FINISHED, Tournament.Status.CANCELLED])
        .count(),
    )
    if Tournament.objects.filter(slug=slug).exists():
        raise Conflict(f"a tournament {slug!r} exists already", code="tournament/slug_taken")
    return Tournament.objects.create(
        slug=slug,
        name=name,
        game=game.spec.key,
        options=resolved,
        format=format,
        config=dict(spec.config),
        seats_per_match=seats,
        result_mode=result_mode,
        seeding=seeding,
        registration_cap=registration_cap,
        check_in_required=check_in_required,
        rounds_start=rounds_start,
        organiser=organiser,
    )


CONFIGURABLE = (
    "name",
    "options",
    "config",
    "seats_per_match",
    "result_mode",
    "seeding",
    "registration_cap",
    "check_in_required",
    "check_in_opens_at",
    "check_in_closes_at",
    "rounds_start",
)


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
        late = sorted(
            set(changes)
            - {"registration_cap", "check_in_required", "check_in_opens_at", "check_in_closes_at", "name"}
        )
        if late:
            raise Conflict(
                f"registration is open: {', '.join(late)} can no longer change",
                code="tournament/wrong_status",
            )
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
                lifecycle.TournamentSpec(
                    format=tournament.format,
                    seats_per_match=seats,
                    config=changes.get("config", tournament.config),
                )
            )
        except FormatError as error:
            raise _refusal(error) from None
        changes.update(options=resolved, seats_per_match=seats, config=dict(spec.config))
    if changes.get("rounds_start", tournament.rounds_start) not in Tournament.RoundsStart.values:
        raise Rejected(
            f"rounds_start is one of {', '.join(Tournament.RoundsStart.values)}",
            code="tournament/bad_rounds_start",
        )
    for field, value in changes.items():
        setattr(tournament, field, value)
    if (
        tournament.check_in_opens_at
        and tournament.check_in_closes_at
        and tournament.check_in_closes_at <= tournament.check_in_opens_at
    ):
        raise Rejected("check-in closes after it opens", code="check_in/bad_window")
    tournament.save()
    return tournament


@transaction.atomic
def tournament_open(*, slug: str, user) -> Tournament:
    """Draft -> registration. The secret behind random seeding and any lots is drawn now and its
    SHA-256 published in the log; the secret itself is revealed in the `started` event, so anyone
    can check the seeding afterwards (as a match's seed is committed, then revealed)."""
    tournament = tournament_get(slug=slug, for_update=True)
    _require_organiser(tournament, user)
    _require_status(tournament, Tournament.Status.DRAFT)
    tournament.seed = secrets.token_bytes(32)
    tournament.seed_commitment = seed_commitment(tournament.seed)
    change = _Change(tournament)
    change.append({"kind": "registration_opened", "seed_commitment": tournament.seed_commitment}, actor=user)
    change.project()
    tournament.status = Tournament.Status.REGISTRATION
    tournament.save(update_fields=["status", "seed", "seed_commitment"])
    return tournament


@transaction.atomic
def tournament_cancel(*, slug: str, user, reason: str) -> Tournament:
    """Cancel at any point before the end: an event, and the log stays. Nothing is paired, reported
    or registered afterwards (every write needs another status)."""
    tournament = tournament_get(slug=slug, for_update=True)
    _require_organiser(tournament, user)
    _require_status(
        tournament, Tournament.Status.DRAFT, Tournament.Status.REGISTRATION, Tournament.Status.RUNNING
    )
    change = _Change(tournament)
    change.append({"kind": "cancelled", "reason": reason}, actor=user)
    change.project()
    tournament.status = Tournament.Status.CANCELLED
    tournament.finished_at = timezone.now()
    tournament.save(update_fields=["status", "finished_at"])
    return tournament


@transaction.atomic
def tournament_delete(*, slug: str, user) -> None:
    """Delete a draft that never opened: it has no log to keep."""
    tournament = tournament_get(slug=slug, for_update=True)
    _require_organiser(tournament, user)
    if tournament.status != Tournament.Status.DRAFT or tournament.events.exists():
        raise Conflict(
            "only a draft that never opened can be deleted; cancel it instead",
            code="tournament/not_deletable",
        )
    tournament.delete()


# --- registration -------------------------------------------------------------------------------


@transaction.atomic
def tournament_register(
    *,
    slug: str,
    user,
    bot: str = "",
    deck_share_id: str | None = None,
    seed: int | None = None,
    username: str | None = None,
) -> TournamentEntry:
    """Register `user`; or, by the organiser, the person named `username` or a built-in bot. Swiss
    and pods take late entries."""
    tournament = tournament_get(slug=slug, for_update=True)
    _require_status(tournament, Tournament.Status.REGISTRATION, Tournament.Status.RUNNING)
    game = get_game(tournament.game)
    actor = user
    if username is not None and not bot and username != user.get_username():
        _require_organiser(tournament, user)
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise NotFound(f"no user {username!r}", code="user/not_found")
    if bot:
        _require_organiser(tournament, user)
        if bot not in game.bots():
            raise Rejected(f"{game.spec.name} has no bot {bot!r}", code="seat/unknown_bot")
    elif tournament.entries.filter(user=user).exists():
        raise Conflict(f"{user.get_username()} is registered already", code="player/already_registered")
    if seed is not None:
        _require_organiser(tournament, actor)
    active = tournament.entries.exclude(status=TournamentEntry.Status.DROPPED).count()
    if tournament.registration_cap is not None and active >= tournament.registration_cap:
        raise Conflict(f"the tournament is full ({tournament.registration_cap})", code="tournament/full")
    deck_version = None
    if game.spec.needs_deck and not bot:
        if not deck_share_id:
            raise Rejected(f"{game.spec.name} entries bring a legal saved deck", code="entry/deck_required")
        # Legal in the tournament's own deck format, under the ban list in effect now.
        legal = deck_version_for_entry(
            share_id=deck_share_id, user=user, format_key=tournament.options.get("format")
        )
        deck_version = deck_version_freeze(deck_version=legal, purpose=f"tournament {tournament.slug}")
    elif deck_share_id:
        raise Rejected(f"{game.spec.name} is played without decks", code="entry/deck_not_needed")
    player = f"b{tournament.entries.filter(user__isnull=True).count() + 1}" if bot else f"u{user.pk}"
    change = _Change(tournament)
    change.append({"kind": "registered", "player": player, "seed": seed, "rating": None}, actor=actor)
    entry = TournamentEntry.objects.create(
        tournament=tournament,
        player=player,
        user=None if bot else user,
        bot=bot,
        deck_version=deck_version,
        seed=seed,
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
    """Check in (or, by the organiser, check a player in) within the check-in window. Every check-in
    goes through `check_in_refusal`, the one place that says why an entry may not check in."""
    tournament = tournament_get(slug=slug, for_update=True)
    _require_status(tournament, Tournament.Status.REGISTRATION)
    entry = _entry_for(tournament, user, player)
    refusal = check_in_refusal(tournament=tournament, entry=entry, now=timezone.now())
    if refusal is not None:
        raise refusal
    change = _Change(tournament)
    change.append({"kind": "checked_in", "player": entry.player}, actor=user)
    change.project()
    return entry


def check_in_refusal(
    *, tournament: Tournament, entry: TournamentEntry, now: datetime
) -> ApplicationError | None:
    """Why `entry` may not check in now, or None. The window's bounds are inclusive of its opening
    and exclusive of its closing."""
    if not tournament.check_in_required:
        return Conflict("this tournament has no check-in", code="check_in/not_required")
    if tournament.check_in_opens_at and now < tournament.check_in_opens_at:
        return Conflict(
            f"check-in opens at {tournament.check_in_opens_at.isoformat()}", code="check_in/not_open"
        )
    if tournament.check_in_closes_at and now >= tournament.check_in_closes_at:
        return Conflict(
            f"check-in closed at {tournament.check_in_closes_at.isoformat()}", code="check_in/closed"
        )
    if entry.status == TournamentEntry.Status.DROPPED:
        return Conflict(f"{entry.label} has dropped", code="player/already_dropped")
    if entry.deck_version_id is not None:
        judged = deck_version_judged_now(entry.deck_version, format_key=tournament.options.get("format"))
        if not judged.legal:  # a ban list took effect since registration
            return Rejected(
                f"{entry.label}'s deck is not legal under the ban list in effect: bring a legal one "
                "(POST .../deck/) and check in again",
                code="check_in/deck_illegal",
                violations=judged.violations,
            )
    return None


@transaction.atomic
def tournament_deck_change(
    *, slug: str, user, deck_share_id: str, player: str | None = None
) -> TournamentEntry:
    """Before the start, a player brings another deck (a ban list made theirs illegal, or they
    changed their mind): legal in the tournament's deck format now, frozen in this transaction, so a
    refusal freezes nothing. The version it replaces stays frozen: it was entered."""
    tournament = tournament_get(slug=slug, for_update=True)
    _require_status(tournament, Tournament.Status.REGISTRATION)
    entry = _entry_for(tournament, user, player)
    if entry.deck_version_id is None:
        raise Rejected("this entry plays without a deck", code="entry/deck_not_needed")
    legal = deck_version_for_entry(
        share_id=deck_share_id, user=entry.user, format_key=tournament.options.get("format")
    )
    entry.deck_version = deck_version_freeze(deck_version=legal, purpose=f"tournament {tournament.slug}")
    entry.save(update_fields=["deck_version"])
    return entry


@transaction.atomic
def tournament_drop(*, slug: str, user, player: str | None = None) -> TournamentEntry:
    """A player drops (or the organiser drops them); after the start they keep their standing."""
    tournament = tournament_get(slug=slug, for_update=True)
    _require_status(tournament, Tournament.Status.REGISTRATION, Tournament.Status.RUNNING)
    entry = _entry_for(tournament, user, player)
    change = _Change(tournament)
    seated = {
        t["match_key"]: t["players"]
        for t in lifecycle.pending_tables(change.state)
        if entry.player in t["players"]
    }
    change.append({"kind": "dropped", "player": entry.player}, actor=user)
    change.project()
    _matches_forfeit(tournament, seated, entry.player)
    return entry


def _matches_forfeit(tournament: Tournament, seated: dict[str, list[str]], player: str) -> None:
    """The dropped player forfeits their seat in the unfinished Snakepit matches of the tables they
    sat at: a duel the drop decided ends, so nobody plays on for a result the log no longer takes; a
    pod's game goes on without them and ranks them last."""
    links = tournament.matches.filter(match_key__in=list(seated)).exclude(match__status=Match.Status.FINISHED)
    for link in links:
        try:
            match_forfeit(
                match_id=link.match_id,
                seat=seated[link.match_key].index(player),
                reason="dropped from the tournament",
            )
        except ApplicationError:
            continue  # the match ended meanwhile, or the game had already put the seat out


# --- running ------------------------------------------------------------------------------------


def _rng(tournament: Tournament, purpose: str, seq: int) -> random.Random:
    # Reproducible from the committed secret (revealed at the start); a tournament opened before
    # secrets existed falls back to its slug.
    message = f"snakepit/tournament/{purpose}/{seq}".encode()
    if tournament.seed:
        digest = hmac.digest(bytes(tournament.seed), message, "sha256")
    else:
        digest = hashlib.sha256(f"snakepit/tournament/{tournament.slug}/{purpose}/{seq}".encode()).digest()
    return random.Random(int.from_bytes(digest, "big"))


def random_seed_order(seed: bytes, players: list[str]) -> list[str]:
    """Random seeding, checkable by anyone once the secret is revealed: the player ids sorted as
    strings, then shuffled by `engines.chance.draw(seed, 0, shuffle)` (docs/tournaments.md)."""
    ordered = sorted(players)
    permutation = draw(seed, 0, ChanceRequest.shuffle("seeding", size=len(ordered)))["permutation"]
    return [ordered[i] for i in permutation]


def _seed_order(tournament: Tournament, entries: list[TournamentEntry], seq: int) -> list[TournamentEntry]:
    if tournament.seeding == Tournament.Seeding.RANDOM:
        if not tournament.seed:
            order = sorted(entries, key=lambda entry: entry.player)
            _rng(tournament, "seeding", seq).shuffle(order)
            return order
        by_player = {entry.player: entry for entry in entries}
        return [by_player[p] for p in random_seed_order(bytes(tournament.seed), list(by_player))]
    if tournament.seeding == Tournament.Seeding.REGISTRATION:
        return sorted(entries, key=lambda entry: entry.pk)
    if tournament.seeding == Tournament.Seeding.RATING:
        ratings = _ratings(tournament, entries)
        return sorted(
            entries, key=lambda entry: (-ratings.get(entry.pk, float("-inf")), entry.seed or 10**9, entry.pk)
        )
    return sorted(entries, key=lambda entry: (entry.seed is None, entry.seed or 0, entry.pk))


def _ratings(tournament: Tournament, entries: list[TournamentEntry]) -> dict[int, float]:
    """Each person's rating in this game, by entry, from the source the settings name
    (`SNAKEPIT_SEEDING_RATINGS`: the ladders' best ordinal by default). Ratings are a sibling app, so
    it is reached through the settings, never imported; bots and unrated people have none."""
    ratings_of = import_string(settings.SNAKEPIT_SEEDING_RATINGS)
    by_user = ratings_of(
        game_key=tournament.game, user_ids=[entry.user_id for entry in entries if entry.user_id]
    )
    return {entry.pk: by_user[entry.user_id] for entry in entries if entry.user_id in by_user}


@transaction.atomic
def tournament_start(
    *, slug: str, user, ends_at: datetime | None = None, starts_at: datetime | None = None
) -> Tournament:
    """Registration -> running: seed the players (checked-in ones where check-in is required) and
    pair the first round."""
    tournament = tournament_get(slug=slug, for_update=True)
    _require_organiser(tournament, user)
    _require_status(tournament, Tournament.Status.REGISTRATION)
    registered = set(tournament.entries.values_list("player", flat=True))
    unknown = sorted({p for pair in tournament.config.get("forbidden_pairs", []) for p in pair} - registered)
    if unknown:
        raise Rejected(
            f"config.forbidden_pairs names players not registered here: {', '.join(unknown[:10])} (the forbidden-pairs route takes usernames)",
            code="player/not_found",
        )
    entries = list(tournament.entries.exclude(status=TournamentEntry.Status.DROPPED))
    if tournament.check_in_required:
        entries = [entry for entry in entries if entry.status == TournamentEntry.Status.CHECKED_IN]
    change = _Change(tournament)
    players = [entry.player for entry in _seed_order(tournament, entries, change.seq)]
    started = {"kind": "started", "players": players, "seeding": tournament.seeding}
    if tournament.seeding == Tournament.Seeding.RATING:
        # The ratings the order came from, kept with it: they move afterwards, and the TRF export
        # reports the ones the seeding used.
        by_entry = _ratings(tournament, entries)
        started["ratings"] = {
            entry.player: round(by_entry[entry.pk], 2) for entry in entries if entry.pk in by_entry
        }
    if tournament.seed:
        started["seed"] = bytes(tournament.seed).hex()  # the reveal: SHA-256 of it is the commitment
    change.append(started, actor=user)
    tournament.status = Tournament.Status.RUNNING
    tournament.started_at = timezone.now()
    tournament.save(update_fields=["status", "started_at"])
    _pair_next_round(change, user, ends_at=ends_at, starts_at=starts_at)
    change.project()
    return tournament


@transaction.atomic
def tournament_next_round(
    *, slug: str, user, ends_at: datetime | None = None, starts_at: datetime | None = None
) -> Tournament:
    """Pair the next round (409 `round/not_complete` while a table is undecided), or finish the
    tournament when nothing is left to play."""
    tournament = tournament_get(slug=slug, for_update=True)
    _require_organiser(tournament, user)
    _require_status(tournament, Tournament.Status.RUNNING)
    change = _Change(tournament)
    _pair_next_round(change, user, ends_at=ends_at, starts_at=starts_at)
    change.project()
    return tournament


def _pair_next_round(
    change: _Change, user, *, ends_at: datetime | None = None, starts_at: datetime | None = None
) -> None:
    tournament = change.tournament
    if starts_at is not None and not _waits_for_organiser(tournament):
        raise Rejected(
            "starts_at schedules a held round: it needs Snakepit play with rounds_start on_organiser",
            code="round/not_held",
        )
    if starts_at is not None and ends_at is not None and ends_at <= starts_at:
        raise Rejected("the round ends after it starts", code="round/bad_times")
    if lifecycle.is_complete(change.state):
        change.append({"kind": "finished"}, actor=user)
        tournament.status = Tournament.Status.FINISHED
        tournament.finished_at = timezone.now()
        tournament.save(update_fields=["status", "finished_at"])
        webhooks_notify(
            tournament,
            "tournament_finished",
            {"standings_url": f"/api/tournaments/{tournament.slug}/standings/"},
        )
        return
    try:
        paired = lifecycle.next_round(change.state, rng=_rng(tournament, "pairing", change.seq))
    except FormatError as error:
        raise _refusal(error) from None
    if ends_at is not None:
        paired["ends_at"] = ends_at.isoformat()
    if starts_at is not None:
        paired["starts_at"] = starts_at.isoformat()
    change.append(paired, actor=user)
    if _waits_for_organiser(tournament) is False:
        _round_matches_start(change, paired["round"])
    webhooks_notify(
        tournament,
        "round_paired",
        {
            "round": paired["round"],
            "stage": paired["stage"],
            "tables": paired["tables"],
            "byes": paired["byes"],
            "ends_at": paired.get("ends_at"),
        },
    )


def _waits_for_organiser(tournament: Tournament) -> bool | None:
    """Whether a paired round's Snakepit matches wait for the organiser's start; None when the
    tournament is played at tables (no matches at all)."""
    if tournament.result_mode != Tournament.ResultMode.SNAKEPIT:
        return None
    return tournament.rounds_start == Tournament.RoundsStart.ON_ORGANISER


def _round_started(tournament: Tournament, round_number: int) -> bool:
    return tournament.events.filter(kind="round_started", payload__round=round_number).exists()


def _round_matches_start(change: _Change, round_number: int) -> None:
    """Start the first game of each of the round's tables as they stand now (after any re-pairing).
    A table already decided (a dropped player's forfeit) plays no match; a player who dropped from
    a pod before the start forfeits their seat at once, as they would have mid-game."""
    dropped = change.state.dropped_set
    for table in lifecycle.pending_tables(change.state):
        if table["round"] != round_number:
            continue
        match = _start_game(change, table["match_key"], table["players"], game_number=1)
        for seat, player in enumerate(table["players"]):
            if player in dropped:
                match_forfeit(match_id=match.pk, seat=seat, reason="dropped from the tournament")


@transaction.atomic
def tournament_round_start(*, slug: str, user, round_number: int) -> list[str]:
    """The organiser starts a paired round of a tournament whose rounds wait for them
    (`rounds_start` "on_organiser"): its Snakepit matches are created now, so until this moment
    the round can still be re-paired. Returns the keys of the tables whose matches started."""
    tournament = tournament_get(slug=slug, for_update=True)
    _require_organiser(tournament, user)
    return _round_start(tournament, round_number, actor=user)


def _round_start(tournament: Tournament, round_number: int, *, actor) -> list[str]:
    _require_status(tournament, Tournament.Status.RUNNING)
    if not _waits_for_organiser(tournament):
        raise Conflict(
            "this tournament's rounds start as they are paired (rounds_start at_once, or played at tables)",
            code="round/starts_when_paired",
        )
    change = _Change(tournament)
    rounds = change.state.rounds
    if not rounds or rounds[-1].round != round_number:
        raise Conflict(
            f"only the latest round ({rounds[-1].round if rounds else 0}) can be started",
            code="round/not_latest",
        )
    if _round_started(tournament, round_number):
        raise Conflict(f"round {round_number} has started already", code="round/already_started")
    change.append({"kind": "round_started", "round": round_number}, actor=actor)
    _round_matches_start(change, round_number)
    change.project()
    return [link.match_key for link in change.tournament.matches.filter(match_key__in=rounds[-1].match_keys)]


def tournament_rounds_start_due(*, now: datetime | None = None) -> int:
    """Start every held round whose scheduled `starts_at` has come (beat runs this each minute);
    the organiser may still start one earlier. Returns how many rounds started."""
    now = now or timezone.now()
    started = 0
    held = Tournament.objects.filter(
        status=Tournament.Status.RUNNING,
        result_mode=Tournament.ResultMode.SNAKEPIT,
        rounds_start=Tournament.RoundsStart.ON_ORGANISER,
    ).values_list("pk", flat=True)
    for pk in held:
        with transaction.atomic():
            tournament = Tournament.objects.select_for_update().get(pk=pk)
            paired = tournament.events.filter(kind="round_paired").order_by("-seq").first()
            starts_at = paired.payload.get("starts_at") if paired else None
            if (
                tournament.status != Tournament.Status.RUNNING
                or starts_at is None
                or datetime.fromisoformat(starts_at) > now
            ):
                continue
            if _round_started(tournament, paired.payload["round"]):
                continue
            _round_start(tournament, paired.payload["round"], actor=None)
            started += 1
    return started


def _start_game(change: _Change, match_key: str, players: list[str], *, game_number: int) -> Match:
    """A Snakepit match for one game of a table, seats in the table's order."""
    tournament = change.tournament
    entries = {
        entry.player: entry
        for entry in tournament.entries.filter(player__in=players).select_related("user", "deck_version")
    }
    match = match_create(
        game_key=tournament.game,
        options=tournament.options,
        seats=[_seat(entries[player]) for player in players],
        created_by=tournament.organiser,
    )
    change.append(
        {"kind": "match_created", "match_key": match_key, "game": game_number, "match_id": match.pk}
    )
    TournamentMatch.objects.create(
        tournament=tournament, match_key=match_key, game_number=game_number, match=match
    )
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
        if tournament.status == Tournament.Status.CANCELLED:
            return None
        if tournament.events.filter(kind="game_recorded", payload__match_id=match_id).exists():
            return None  # already recorded: a duplicate signal changes nothing
        change = _Change(tournament)
        recorded = {
            "kind": "game_recorded",
            "match_key": link.match_key,
            "ranks": link.match.outcome["ranks"],
            "match_id": match_id,
        }
        try:
            event = change.append(recorded)
        except ApplicationError as refused:
            # The organiser settled the table meanwhile, a drop forfeited it, or the tournament
            # ended: the game is no longer the table's to decide.
            if refused.code in ("result/already_recorded", "tournament/finished"):
                return None
            raise
        table = lifecycle.table(change.state, link.match_key)
        if table["status"] != "decided":
            _start_game(change, link.match_key, table["players"], game_number=link.game_number + 1)
        change.project()
        return event


# --- results at a table ---------------------------------------------------------------------------


def _result_event(
    slug: str, user, payload: dict[str, Any], *, organiser: bool = False, player: str | None = None
):
    """One step of a table's reporting, by a participant of the table (the organiser may act for
    one by naming `player`), or by the organiser as such (`organiser`: corrections; a confirmation
    by an organiser who does not play there). Reports and confirmations are refused once the table
    is disputed: only the organiser's correction settles a dispute."""
    with transaction.atomic():
        tournament = tournament_get(slug=slug, for_update=True)
        _require_status(tournament, Tournament.Status.RUNNING, Tournament.Status.FINISHED)
        if not organiser:
            _require_status(tournament, Tournament.Status.RUNNING)
            if tournament.result_mode == Tournament.ResultMode.SNAKEPIT:
                raise Conflict(
                    "results of this tournament come from its Snakepit matches",
                    code="result/played_on_snakepit",
                )
        change = _Change(tournament)
        key = payload["match_key"]
        try:
            before = lifecycle.table(change.state, key)
        except FormatError as error:
            raise NotFound(error.detail, code=error.code) from None
        if organiser:
            _require_organiser(tournament, user)
        elif (
            player is None
            and payload["kind"] == "result_confirmed"
            and _organises(tournament, user)
            and not (tournament.entries.filter(user=user, player__in=before["players"]).exists())
        ):
            payload["by_organiser"] = True
        else:
            payload["by"] = _entry_for(tournament, user, player).player
        event = change.append(payload, actor=user)
        change.project()
        after = lifecycle.table(change.state, key)
        if payload["kind"] == "result_reported":
            webhooks_notify(
                tournament, "result_reported", {"table": _table_public(after), "by": payload["by"]}
            )
        if after["status"] == "disputed" and before["status"] != "disputed":
            webhooks_notify(tournament, "dispute_opened", {"table": _table_public(after)})
        return event


def _organises(tournament: Tournament, user) -> bool:
    return bool(user.is_staff or tournament.organiser_id == user.pk)


def _table_public(table: dict) -> dict:
    return {
        key: table[key] for key in ("match_key", "round", "stage", "players", "status", "result", "reports")
    }


def tournament_report(
    *, slug: str, user, match_key: str, ranks: list[int], games: list | None = None, player=None
):
    return _result_event(
        slug,
        user,
        {"kind": "result_reported", "match_key": match_key, "ranks": ranks, "games": games},
        player=player,
    )


def tournament_confirm(*, slug: str, user, match_key: str, player=None):
    return _result_event(slug, user, {"kind": "result_confirmed", "match_key": match_key}, player=player)


def tournament_dispute(*, slug: str, user, match_key: str, reason: str, player=None):
    return _result_event(
        slug, user, {"kind": "result_disputed", "match_key": match_key, "reason": reason}, player=player
    )


def tournament_correct(
    *,
    slug: str,
    user,
    match_key: str,
    ranks: list[int],
    reason: str,
    games: list | None = None,
    forfeit: bool = False,
):
    """The organiser settles a dispute or corrects any result, possibly as a forfeit; the earlier
    reports stay in the log."""
    payload = {
        "kind": "result_corrected",
        "match_key": match_key,
        "ranks": ranks,
        "games": games,
        "reason": reason,
    }
    if forfeit:
        payload["forfeit"] = True
    return _result_event(slug, user, payload, organiser=True)


# --- the organiser's control over seeds and pairings -----------------------------------------------


def _players_named(tournament: Tournament, names: list[str]) -> list[str]:
    """Player ids for usernames (or player ids, as the log and the listings show them); an unknown
    name is a 422 that names it."""
    entries = list(tournament.entries.select_related("user"))
    # A username wins over a player id that happens to be spelt the same.
    by_name = {entry.player: entry.player for entry in entries} | {
        entry.label: entry.player for entry in entries
    }
    unknown = [name for name in names if name not in by_name]
    if unknown:
        raise Rejected(f"not registered here: {', '.join(map(repr, unknown[:10]))}", code="player/not_found")
    return [by_name[name] for name in names]


@transaction.atomic
def tournament_seeds_set(*, slug: str, user, order: list[str]) -> list[TournamentEntry]:
    """Manual seeding: the organiser orders the players (usernames or player ids), rated or not;
    whoever is left out follows in registration order."""
    tournament = tournament_get(slug=slug, for_update=True)
    _require_organiser(tournament, user)
    _require_status(tournament, Tournament.Status.DRAFT, Tournament.Status.REGISTRATION)
    players = _players_named(tournament, order)
    if len(set(players)) != len(players):
        raise Rejected("a player appears twice in the order", code="player/duplicate")
    change = _Change(tournament)
    change.append({"kind": "seeds_set", "order": players}, actor=user)
    seeds = {player: number for number, player in enumerate(players, start=1)}
    for entry in tournament.entries.all():
        if entry.seed != seeds.get(entry.player):
            entry.seed = seeds.get(entry.player)
            entry.save(update_fields=["seed"])
    change.project()
    return sorted(
        tournament.entries.select_related("user"),
        key=lambda entry: (entry.seed is None, entry.seed or 0, entry.pk),
    )


@transaction.atomic
def tournament_forbidden_pairs_set(*, slug: str, user, pairs: list[list[str]]) -> list[list[str]]:
    """Pairs (by username) who must never meet, replacing the earlier list; binding every round
    paired after this, editable until then."""
    tournament = tournament_get(slug=slug, for_update=True)
    _require_organiser(tournament, user)
    _require_status(tournament, Tournament.Status.REGISTRATION, Tournament.Status.RUNNING)
    if any(len(pair) != 2 for pair in pairs):
        raise Rejected("a forbidden pair is two players", code="pairing/bad_pair")
    ids = [_players_named(tournament, list(pair)) for pair in pairs]
    change = _Change(tournament)
    change.append({"kind": "forbidden_pairs_set", "pairs": ids}, actor=user)
    change.project()
    return ids


@transaction.atomic
def tournament_round_repair(
    *, slug: str, user, round_number: int, tables: list[list[str]], byes: list[str], reason: str
):
    """The organiser re-pairs (or swaps players of) the latest round before it starts, with a
    reason; the tables keep their keys, in order. At a table the round starts with its first
    report; on Snakepit it starts with its matches, which is at pairing unless the tournament's
    rounds wait for the organiser (`rounds_start` "on_organiser")."""
    tournament = tournament_get(slug=slug, for_update=True)
    _require_organiser(tournament, user)
    _require_status(tournament, Tournament.Status.RUNNING)
    waits = _waits_for_organiser(tournament)
    if waits is False:
        raise Conflict(
            "this round's Snakepit matches started when it was paired; set rounds_start to on_organiser to re-pair before starting",
            code="round/already_started",
        )
    if waits and _round_started(tournament, round_number):
        raise Conflict(
            f"round {round_number} has started: its Snakepit matches are under way",
            code="round/already_started",
        )
    change = _Change(tournament)
    rounds = change.state.rounds
    if not rounds or rounds[-1].round != round_number:
        raise Conflict(
            f"only the latest round ({rounds[-1].round if rounds else 0}) can be re-paired",
            code="round/not_latest",
        )
    keys = rounds[-1].match_keys
    if len(tables) != len(keys):
        raise Rejected(f"round {round_number} has {len(keys)} tables", code="round/bad_table")
    payload = {
        "kind": "round_repaired",
        "round": round_number,
        "reason": reason,
        "tables": [
            {"match_key": key, "players": _players_named(tournament, players)}
            for key, players in zip(keys, tables)
        ],
        "byes": _players_named(tournament, byes),
    }
    event = change.append(payload, actor=user)
    change.project()
    return event


@transaction.atomic
def tournament_round_close(*, slug: str, user, round_number: int, rule: str, now: datetime | None = None):
    """Close the tables of a round still open after its end time, by rule: "draw" or "both_lose"
    (a double forfeit: nobody scores). One `round_closed` event, then a correction per table."""
    tournament = tournament_get(slug=slug, for_update=True)
    _require_organiser(tournament, user)
    _require_status(tournament, Tournament.Status.RUNNING)
    if rule not in ("draw", "both_lose"):
        raise Rejected('rule is "draw" or "both_lose"', code="round/bad_rule")
    paired = tournament.events.filter(kind="round_paired", payload__round=round_number).first()
    if paired is None:
        raise NotFound(f"no round {round_number}", code="round/not_found")
    ends_at = paired.payload.get("ends_at")
    now = now or timezone.now()
    if ends_at is None or now < datetime.fromisoformat(ends_at):
        raise Conflict(
            f"round {round_number} has not reached its end time ({ends_at or 'none set'})",
            code="round/not_over",
        )
    change = _Change(tournament)
    open_tables = [t for t in lifecycle.pending_tables(change.state) if t["round"] == round_number]
    if not open_tables:
        raise Conflict(f"round {round_number} has no open table", code="round/nothing_open")
    reason = f"round {round_number} ran past its end time: closed by rule ({rule.replace('_', ' ')})"
    change.append(
        {
            "kind": "round_closed",
            "round": round_number,
            "rule": rule,
            "tables": [t["match_key"] for t in open_tables],
        },
        actor=user,
    )
    for t in open_tables:
        correction = {
            "kind": "result_corrected",
            "match_key": t["match_key"],
            "ranks": [1] * len(t["players"]),
            "games": None,
            "reason": reason,
        }
        if rule == "both_lose":
            correction["forfeit"] = True
        change.append(correction, actor=user)
    change.project()
    return [t["match_key"] for t in open_tables]


@transaction.atomic
def tournament_webhook_add(*, slug: str, user, url: str, events: list[str]):
    tournament = tournament_get(slug=slug, for_update=True)
    return webhook_add(tournament=tournament, user=user, url=url, events=events)


# --- import ---------------------------------------------------------------------------------------

IMPORT_EVENTS_MAX = 200_000


@transaction.atomic
def tournament_import(*, user, data: dict[str, Any]) -> Tournament:
    """A tournament exported by another instance (`exports.tournament_export`), replayed here: its
    set-up, its players under their names there (not bound to anyone's account here), and its log,
    which must replay without a refusal. The links to Snakepit matches stay behind (the games they
    recorded are in the log), so the copy takes further results at tables. The importer organises it."""
    if not isinstance(data, dict) or data.get("format") != "snakepit-tournament" or data.get("version") != 1:
        raise Rejected(
            "not a Snakepit tournament export (format snakepit-tournament, version 1)",
            code="import/bad_format",
        )
    setup, players, events = data.get("tournament"), data.get("players"), data.get("events")
    if not isinstance(setup, dict) or not isinstance(players, dict) or not isinstance(events, list):
        raise Rejected("an export has tournament, players and events", code="import/bad_format")
    if len(events) > IMPORT_EVENTS_MAX or len(players) > 100_000:
        raise Rejected(f"at most {IMPORT_EVENTS_MAX} events", code="import/too_large")
    if any(
        not isinstance(e, dict)
        or not isinstance(e.get("kind"), str)
        or not isinstance(e.get("payload"), dict)
        for e in events
    ):
        raise Rejected("each event has a kind and a payload object", code="import/bad_format")
    expected = {"name": str, "game": str, "format": str, "options": dict, "config": dict, "seeding": str}
    wrong = sorted(key for key, kind in expected.items() if key in setup and not isinstance(setup[key], kind))
    seats = setup.get("seats_per_match")
    if wrong or (seats is not None and (isinstance(seats, bool) or not isinstance(seats, int))):
        raise Rejected(
            f"the set-up's {', '.join(wrong) or 'seats_per_match'} has the wrong type",
            code="import/bad_format",
        )
    if setup.get("seeding", Tournament.Seeding.MANUAL) not in Tournament.Seeding.values:
        raise Rejected("unknown seeding", code="import/bad_format")
    tournament = tournament_create(
        organiser=user,
        name=str(setup.get("name") or "Imported tournament")[:120],
        game_key=str(setup.get("game")),
        format=str(setup.get("format")),
        options=setup.get("options") or {},
        config=setup.get("config") or {},
        seats_per_match=setup.get("seats_per_match"),
        result_mode=Tournament.ResultMode.TABLE,
        seeding=setup.get("seeding", Tournament.Seeding.MANUAL),
    )
    kept = [e for e in events if e["kind"] != "match_created"]
    try:
        state = lifecycle.replay(
            lifecycle.TournamentSpec(
                format=tournament.format, seats_per_match=tournament.seats_per_match, config=tournament.config
            ),
            [e["payload"] for e in kept if e["kind"] not in SERVICE_KINDS],
        )
    except FormatError as error:
        raise Rejected(
            f"the log does not replay: {error.code}: {error.detail}", code="import/bad_log"
        ) from None
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as error:
        # A payload of the right kind with fields of the wrong shape, which only a forged file has.
        raise Rejected(
            f"the log does not replay: a malformed payload ({type(error).__name__})", code="import/bad_log"
        ) from None
    if any(e["payload"].get("kind") != e["kind"] for e in kept):
        raise Rejected("an event's kind differs from its payload's", code="import/bad_log")
    registered = {e["payload"]["player"] for e in kept if e["kind"] == "registered"}
    TournamentEvent.objects.bulk_create(
        TournamentEvent(tournament=tournament, seq=seq, kind=e["kind"], payload=e["payload"])
        for seq, e in enumerate(kept, start=1)
    )
    TournamentEntry.objects.bulk_create(
        TournamentEntry(tournament=tournament, player=p, name=str(players.get(p, p))[:150])
        for p in sorted(registered)
    )
    kinds = {e["kind"] for e in kept}
    if "cancelled" in kinds:
        tournament.status = Tournament.Status.CANCELLED
    elif state.status == "finished":
        tournament.status = Tournament.Status.FINISHED
    elif state.status == "running":
        tournament.status = Tournament.Status.RUNNING
    elif "registration_opened" in kinds:
        tournament.status = Tournament.Status.REGISTRATION
    tournament.seed_commitment = str(setup.get("seed_commitment") or "")[:64]
    tournament.save(update_fields=["status", "seed_commitment"])
    projection = tournament_projection(tournament)
    for player, status in projection["entries"].items():
        tournament.entries.filter(player=player).update(status=status)
    TournamentTable.objects.bulk_create(
        TournamentTable(tournament=tournament, **row) for row in projection["tables"]
    )
    TournamentStanding.objects.bulk_create(
        TournamentStanding(tournament=tournament, player=row["player"], rank=row["rank"], row=_unranked(row))
        for row in projection["standings"]
    )
    return tournament
