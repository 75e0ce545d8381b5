"""Running a tournament: the start, pairing each round, the Snakepit matches of its tables (held
rounds started by the organiser or at their time), the games those matches record, and the
organiser's controls over pairings (forbidden pairs, re-pairing, closing a round past its end)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from core.errors import ApplicationError, Conflict, NotFound, Rejected
from decks.selectors import deck_version_brought
from matches.models import Match
from matches.services import SeatSpec, match_create, match_forfeit
from tournaments.formats import lifecycle
from tournaments.formats.common import FormatError
from tournaments.models import Tournament, TournamentEntry, TournamentEvent, TournamentMatch
from tournaments.selectors import tournament_get
from tournaments.services.change import (
    TournamentChange,
    players_named,
    reducer_refusal,
    require_organiser,
    require_status,
)
from tournaments.services.seeding import entries_ratings, seed_order, tournament_rng
from tournaments.webhooks import webhooks_notify


@transaction.atomic
def tournament_start(
    *,
    slug: str,
    user,
    ends_at: datetime | None = None,
    starts_at: datetime | None = None,
    ratings_by_user: Mapping[int, float] | None = None,
) -> Tournament:
    """Registration -> running: seed the players (checked-in ones where check-in is required) and
    pair the first round. A tournament seeded by rating is given each person's rating by user id
    (`ratings_by_user`, bots and unrated people left out): ratings are a sibling app, read by
    `flows.tournament_start`, which the API calls."""
    tournament = tournament_get(slug=slug, for_update=True)
    require_organiser(tournament, user)
    require_status(tournament, Tournament.Status.REGISTRATION)
    if tournament.seeding == Tournament.Seeding.RATING and ratings_by_user is None:
        raise ValueError("a tournament seeded by rating starts with ratings_by_user (flows.tournament_start)")
    registered = set(tournament.entries.values_list("player", flat=True))
    unknown = sorted({p for pair in tournament.config.get("forbidden_pairs", []) for p in pair} - registered)
    if unknown:
        raise Rejected(
            f"config.forbidden_pairs names players not registered here: {', '.join(unknown[:10])} "
            "(the forbidden-pairs route takes usernames)",
            code="player/not_found",
        )
    entries = list(tournament.entries.exclude(status=TournamentEntry.Status.DROPPED))
    if tournament.check_in_required:
        entries = [entry for entry in entries if entry.status == TournamentEntry.Status.CHECKED_IN]
    change = TournamentChange(tournament)
    by_entry = entries_ratings(entries, ratings_by_user or {})
    players = [entry.player for entry in seed_order(tournament, entries, change.seq, ratings=by_entry)]
    started = {"kind": "started", "players": players, "seeding": tournament.seeding}
    if tournament.seeding == Tournament.Seeding.RATING:
        # The ratings the order came from, kept with it: they move afterwards, and the TRF export
        # reports the ones the seeding used.
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
    require_organiser(tournament, user)
    require_status(tournament, Tournament.Status.RUNNING)
    change = TournamentChange(tournament)
    _pair_next_round(change, user, ends_at=ends_at, starts_at=starts_at)
    change.project()
    return tournament


def _pair_next_round(
    change: TournamentChange, user, *, ends_at: datetime | None = None, starts_at: datetime | None = None
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
        paired = lifecycle.next_round(change.state, rng=tournament_rng(tournament, "pairing", change.seq))
    except FormatError as error:
        raise reducer_refusal(error) from None
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


def _round_matches_start(change: TournamentChange, round_number: int) -> None:
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
    require_organiser(tournament, user)
    return _round_start(tournament, round_number, actor=user)


def _round_start(tournament: Tournament, round_number: int, *, actor) -> list[str]:
    require_status(tournament, Tournament.Status.RUNNING)
    if not _waits_for_organiser(tournament):
        raise Conflict(
            "this tournament's rounds start as they are paired (rounds_start at_once, or played at tables)",
            code="round/starts_when_paired",
        )
    change = TournamentChange(tournament)
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


def _start_game(change: TournamentChange, match_key: str, players: list[str], *, game_number: int) -> Match:
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
        change = TournamentChange(tournament)
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


@transaction.atomic
def tournament_forbidden_pairs_set(*, slug: str, user, pairs: list[list[str]]) -> list[list[str]]:
    """Pairs (by username) who must never meet, replacing the earlier list; binding every round
    paired after this, editable until then."""
    tournament = tournament_get(slug=slug, for_update=True)
    require_organiser(tournament, user)
    require_status(tournament, Tournament.Status.REGISTRATION, Tournament.Status.RUNNING)
    if any(len(pair) != 2 for pair in pairs):
        raise Rejected("a forbidden pair is two players", code="pairing/bad_pair")
    ids = [players_named(tournament, list(pair)) for pair in pairs]
    change = TournamentChange(tournament)
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
    require_organiser(tournament, user)
    require_status(tournament, Tournament.Status.RUNNING)
    waits = _waits_for_organiser(tournament)
    if waits is False:
        raise Conflict(
            "this round's Snakepit matches started when it was paired; set rounds_start to on_organiser "
            "to re-pair before starting",
            code="round/already_started",
        )
    if waits and _round_started(tournament, round_number):
        raise Conflict(
            f"round {round_number} has started: its Snakepit matches are under way",
            code="round/already_started",
        )
    change = TournamentChange(tournament)
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
            {"match_key": key, "players": players_named(tournament, players)}
            for key, players in zip(keys, tables)
        ],
        "byes": players_named(tournament, byes),
    }
    event = change.append(payload, actor=user)
    change.project()
    return event


@transaction.atomic
def tournament_round_close(*, slug: str, user, round_number: int, rule: str, now: datetime | None = None):
    """Close the tables of a round still open after its end time, by rule: "draw" or "both_lose"
    (a double forfeit: nobody scores). One `round_closed` event, then a correction per table."""
    tournament = tournament_get(slug=slug, for_update=True)
    require_organiser(tournament, user)
    require_status(tournament, Tournament.Status.RUNNING)
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
    change = TournamentChange(tournament)
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
