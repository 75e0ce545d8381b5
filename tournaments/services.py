"""Writes for tournaments: set-up, registration, rounds, results. The API and the match_finished
signal call these; nothing else writes a tournament.

Every change is an event appended to the tournament's log under the tournament's row lock, after the
pure reducer (`tournaments.formats.lifecycle`) has accepted it against the current state; then the
projections (entries, tables, matches, standings) are refreshed from the log. An action out of order
(pairing before a round is complete, reporting a decided table) is refused with a 409 and a code,
and writes nothing.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.module_loading import import_string
from django.utils.text import slugify

from core.errors import ApplicationError, Conflict, Forbidden, NotFound, Rejected
from decks.selectors import deck_version_for_entry
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
    TournamentStanding,
    TournamentTable,
)
from tournaments.selectors import (
    SERVICE_KINDS,
    tournament_get,
    tournament_log,
    tournament_projection,
    tournament_state,
)

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


def _append(tournament: Tournament, payload: dict[str, Any], *, actor=None, state=None) -> TournamentEvent:
    """Append one event (the caller holds the tournament lock). Reducer events are checked first."""
    kind = payload["kind"]
    if kind not in SERVICE_KINDS:
        try:
            lifecycle.apply(state if state is not None else tournament_state(tournament), payload)
        except FormatError as error:
            raise _refusal(error) from None
    last = tournament.events.order_by("-seq").values_list("seq", flat=True).first() or 0
    return TournamentEvent.objects.create(tournament=tournament, seq=last + 1, kind=kind, payload=payload, actor=actor)


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
    slug = slug or slugify(name)
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
    _append(tournament, {"kind": "registration_opened"}, actor=user)
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
    _append(
        tournament, {"kind": "registered", "player": player, "seed": seed, "rating": None}, actor=user
    )
    entry = TournamentEntry.objects.create(
        tournament=tournament, player=player, user=None if bot else user, bot=bot, deck_version=deck_version, seed=seed
    )
    _project(tournament)
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
    _append(tournament, {"kind": "checked_in", "player": entry.player}, actor=user)
    _project(tournament)
    return entry


@transaction.atomic
def tournament_drop(*, slug: str, user, player: str | None = None) -> TournamentEntry:
    """A player drops (or the organiser drops them); after the start they keep their standing."""
    tournament = tournament_get(slug=slug, for_update=True)
    _require_status(tournament, Tournament.Status.REGISTRATION, Tournament.Status.RUNNING)
    entry = _entry_for(tournament, user, player)
    _append(tournament, {"kind": "dropped", "player": entry.player}, actor=user)
    _project(tournament)
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
    seq = tournament.events.count()
    players = [entry.player for entry in _seed_order(tournament, entries, seq)]
    _append(tournament, {"kind": "started", "players": players}, actor=user)
    tournament.status = Tournament.Status.RUNNING
    tournament.started_at = timezone.now()
    tournament.save(update_fields=["status", "started_at"])
    _pair_next_round(tournament, user)
    return tournament


@transaction.atomic
def tournament_next_round(*, slug: str, user) -> Tournament:
    """Pair the next round (409 `round/not_complete` while a table is undecided), or finish the
    tournament when nothing is left to play."""
    tournament = tournament_get(slug=slug, for_update=True)
    _require_organiser(tournament, user)
    _require_status(tournament, Tournament.Status.RUNNING)
    _pair_next_round(tournament, user)
    return tournament


def _pair_next_round(tournament: Tournament, user) -> None:
    events = tournament_log(tournament)
    state = tournament_state(tournament, events)
    if lifecycle.is_complete(state):
        _append(tournament, {"kind": "finished"}, actor=user, state=state)
        tournament.status = Tournament.Status.FINISHED
        tournament.finished_at = timezone.now()
        tournament.save(update_fields=["status", "finished_at"])
        _project(tournament)
        return
    try:
        paired = lifecycle.next_round(state, rng=_rng(tournament, "pairing", len(events)))
    except FormatError as error:
        raise _refusal(error) from None
    _append(tournament, paired, actor=user, state=state)
    if tournament.result_mode == Tournament.ResultMode.SNAKEPIT:
        for table in paired["tables"]:
            _start_game(tournament, table["match_key"], table["players"], game_number=1)
    _project(tournament)


def _start_game(tournament: Tournament, match_key: str, players: list[str], *, game_number: int) -> Match:
    """A Snakepit match for one game of a table, seats in the table's order."""
    entries = {entry.player: entry for entry in tournament.entries.filter(player__in=players)}
    match = match_create(
        game_key=tournament.game,
        options=tournament.options,
        seats=[SeatSpec(user=entries[player].user, bot=entries[player].bot) for player in players],
        created_by=tournament.organiser,
    )
    _append(tournament, {"kind": "match_created", "match_key": match_key, "game": game_number, "match_id": match.pk})
    TournamentMatch.objects.create(tournament=tournament, match_key=match_key, game_number=game_number, match=match)
    return match


def tournament_record_match(*, match_id: int) -> TournamentEvent | None:
    """A Snakepit match of a table finished: record the game once, and start the table's next game
    while its series is undecided. Called by the match_finished signal; safe to call twice."""
    link = TournamentMatch.objects.filter(match_id=match_id).select_related("match").first()
    if link is None or not link.match.is_finished:
        return None
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=link.tournament_id)
        events = tournament_log(tournament)
        if any(e.kind == "game_recorded" and e.payload.get("match_id") == match_id for e in events):
            return None  # already recorded: a duplicate signal changes nothing
        state = tournament_state(tournament, events)
        recorded = {"kind": "game_recorded", "match_key": link.match_key, "ranks": link.match.outcome["ranks"], "match_id": match_id}
        try:
            event = _append(tournament, recorded, state=state)
        except ApplicationError as refused:
            if refused.code == "result/already_recorded":  # the organiser settled it meanwhile
                return None
            raise
        table = lifecycle.table(lifecycle.apply(state, recorded), link.match_key)  # one event, not a replay
        if table["status"] != "decided":
            _start_game(tournament, link.match_key, table["players"], game_number=link.game_number + 1)
        _project(tournament)
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
        event = _append(tournament, payload, actor=user)
        _project(tournament)
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


# --- projections --------------------------------------------------------------------------------

def _project(tournament: Tournament) -> None:
    projection = tournament_projection(tournament)
    for player, status in projection["entries"].items():
        tournament.entries.filter(player=player).exclude(status=status).update(status=status)
    tournament.tables.all().delete()
    TournamentTable.objects.bulk_create(TournamentTable(tournament=tournament, **row) for row in projection["tables"])
    tournament.standings.all().delete()
    TournamentStanding.objects.bulk_create(
        TournamentStanding(tournament=tournament, player=row["player"], rank=row["rank"], row=row)
        for row in projection["standings"]
    )
