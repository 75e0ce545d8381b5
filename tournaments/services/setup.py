"""A tournament's set-up: a draft created and configured, registration opened, cancelled, or deleted
before it ever opened."""

from __future__ import annotations

import secrets

from django.db import transaction
from django.utils import timezone

from core.errors import Conflict, Rejected
from core.quotas import quota_check
from core.slugs import slug_for
from engines.chance import seed_commitment
from matches.services import game_setup
from tournaments.formats import lifecycle
from tournaments.formats.common import FormatError
from tournaments.models import Tournament
from tournaments.selectors import tournament_get
from tournaments.services.change import TournamentChange, reducer_refusal, require_organiser, require_status


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
        raise reducer_refusal(error) from None
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
    require_organiser(tournament, user)
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
        require_status(tournament, Tournament.Status.DRAFT)
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
            raise reducer_refusal(error) from None
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
    require_organiser(tournament, user)
    require_status(tournament, Tournament.Status.DRAFT)
    tournament.seed = secrets.token_bytes(32)
    tournament.seed_commitment = seed_commitment(tournament.seed)
    change = TournamentChange(tournament)
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
    require_organiser(tournament, user)
    require_status(
        tournament, Tournament.Status.DRAFT, Tournament.Status.REGISTRATION, Tournament.Status.RUNNING
    )
    change = TournamentChange(tournament)
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
    require_organiser(tournament, user)
    if tournament.status != Tournament.Status.DRAFT or tournament.events.exists():
        raise Conflict(
            "only a draft that never opened can be deleted; cancel it instead",
            code="tournament/not_deletable",
        )
    tournament.delete()
