"""Results at a table: reports, confirmations and disputes by its players, corrections by the
organiser; the earlier reports stay in the log."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from core.errors import Conflict, NotFound
from tournaments.formats import lifecycle
from tournaments.formats.common import FormatError
from tournaments.models import Tournament
from tournaments.selectors import tournament_get
from tournaments.services.change import TournamentChange, entry_for, require_organiser, require_status
from tournaments.webhooks import webhooks_notify


def _result_event(
    slug: str, user, payload: dict[str, Any], *, organiser: bool = False, player: str | None = None
):
    """One step of a table's reporting, by a participant of the table (the organiser may act for
    one by naming `player`), or by the organiser as such (`organiser`: corrections; a confirmation
    by an organiser who does not play there). Reports and confirmations are refused once the table
    is disputed: only the organiser's correction settles a dispute."""
    with transaction.atomic():
        tournament = tournament_get(slug=slug, for_update=True)
        require_status(tournament, Tournament.Status.RUNNING, Tournament.Status.FINISHED)
        if not organiser:
            require_status(tournament, Tournament.Status.RUNNING)
            if tournament.result_mode == Tournament.ResultMode.SNAKEPIT:
                raise Conflict(
                    "results of this tournament come from its Snakepit matches",
                    code="result/played_on_snakepit",
                )
        change = TournamentChange(tournament)
        key = payload["match_key"]
        try:
            before = lifecycle.table(change.state, key)
        except FormatError as error:
            raise NotFound(error.detail, code=error.code) from None
        if organiser:
            require_organiser(tournament, user)
        elif (
            player is None
            and payload["kind"] == "result_confirmed"
            and _organises(tournament, user)
            and not (tournament.entries.filter(user=user, player__in=before["players"]).exists())
        ):
            payload["by_organiser"] = True
        else:
            payload["by"] = entry_for(tournament, user, player).player
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
