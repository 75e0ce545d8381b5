"""Challenges: how a user seats other people in a match, with their consent (Lichess's challenges).

The challenger names the seats; their own seats are accepted at once, every other user accepts (or
declines) theirs, and the match is created, through `match_create`, when the last one says yes.
Names that belong to no account are kept as typed and simply never accept, so a challenge tells
nobody which usernames exist. Writes and the reads that go with them live here together.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from core.errors import Conflict, NotFound, Rejected
from engines.registry import get_game
from matches.models import Challenge, ChallengeSeat, Match
from matches.services import SeatSpec, game_setup, match_create

CHALLENGE_LIFETIME = timedelta(days=7)


def challenge_is_open(challenge: Challenge) -> bool:
    return challenge.status == Challenge.Status.PENDING and challenge.expires_at > timezone.now()


@transaction.atomic
def challenge_create(
    *,
    created_by,
    game_key: str,
    seats: list[dict[str, str]],
    options: dict[str, Any] | None = None,
    decks: dict[int, tuple[dict, dict]] | None = None,
) -> Challenge:
    """A challenge for `seats` (each `{"user": name}` or `{"bot": name}`, in seat order). `decks`
    gives the challenger's own seats their decks: index -> (bring_deck fields, {"share_id", "version"})."""
    game, resolved, _ = game_setup(game_key=game_key, options=options, seats=len(seats))
    decks = decks or {}
    users = get_user_model()
    challenge = Challenge.objects.create(
        game=game.spec.key,
        options=resolved,
        created_by=created_by,
        expires_at=timezone.now() + CHALLENGE_LIFETIME,
    )
    now = timezone.now()
    rows = []
    for index, seat in enumerate(seats):
        if "bot" in seat:
            if seat["bot"] not in game.bots():
                raise Rejected(f"{game.spec.name} has no bot {seat['bot']!r}", code="seat/unknown_bot")
            rows.append(ChallengeSeat(challenge=challenge, index=index, bot=seat["bot"]))
            continue
        name = seat["user"]
        own = name == created_by.get_username()
        user = created_by if own else users.objects.filter(username=name).first()
        deck, deck_ref = decks.get(index, (None, None))
        if own and game.spec.needs_deck and deck is None:
            raise Rejected(
                f"seat {index}: {game.spec.name} is played with a saved deck", code="seat/deck_required"
            )
        rows.append(
            ChallengeSeat(
                challenge=challenge,
                index=index,
                invited_name=name,
                user=user,
                accepted_at=now if own else None,
                deck=deck,
                deck_ref=deck_ref,
            )
        )
    ChallengeSeat.objects.bulk_create(rows)
    _start_when_everyone_accepted(challenge)
    return challenge


@transaction.atomic
def challenge_accept(
    *, challenge_id: int, user, deck: dict | None = None, deck_ref: dict | None = None
) -> Challenge:
    """`user` takes their seat; the last acceptance creates the match."""
    challenge = _challenge_for_update(challenge_id, user)
    seat = challenge.seats.filter(user=user, accepted_at__isnull=True).order_by("index").first()
    if seat is None:
        raise Conflict("you have accepted this challenge already", code="challenge/already_accepted")
    if get_game(challenge.game).spec.needs_deck and deck is None:
        raise Rejected("this game is played with a saved deck: send its share id", code="seat/deck_required")
    seat.accepted_at, seat.deck, seat.deck_ref = timezone.now(), deck, deck_ref
    seat.save(update_fields=["accepted_at", "deck", "deck_ref"])
    _start_when_everyone_accepted(challenge)
    return challenge


@transaction.atomic
def challenge_decline(*, challenge_id: int, user) -> Challenge:
    """An invited user says no (or the challenger withdraws): the challenge is over for everyone."""
    challenge = _challenge_for_update(challenge_id, user)
    by_challenger = challenge.created_by_id == user.pk
    challenge.status = Challenge.Status.CANCELLED if by_challenger else Challenge.Status.DECLINED
    challenge.save(update_fields=["status"])
    return challenge


def challenge_list_for(*, user) -> QuerySet[Challenge]:
    """The challenges `user` made or is invited to, newest first."""
    return (
        Challenge.objects.filter(Q(created_by=user) | Q(seats__user=user))
        .distinct()
        .select_related("created_by")
        .prefetch_related("seats")
    )


def challenge_get_for(*, challenge_id: int, user) -> Challenge:
    challenge = challenge_list_for(user=user).filter(pk=challenge_id).first()
    if challenge is None:
        raise NotFound(f"no challenge {challenge_id} of yours", code="challenge/not_found")
    return challenge


def _challenge_for_update(challenge_id: int, user) -> Challenge:
    challenge_get_for(challenge_id=challenge_id, user=user)  # a 404 for anyone it does not concern
    challenge = Challenge.objects.select_for_update().get(pk=challenge_id)
    if not challenge_is_open(challenge):
        state = "expired" if challenge.status == Challenge.Status.PENDING else challenge.status
        raise Conflict(f"the challenge is {state}", code=f"challenge/{state}")
    return challenge


def _start_when_everyone_accepted(challenge: Challenge) -> Match | None:
    seats = list(challenge.seats.order_by("index"))
    if any(seat.bot == "" and seat.accepted_at is None for seat in seats):
        return None
    challenge.match = match_create(
        game_key=challenge.game,
        options=challenge.options,
        seats=[SeatSpec(user=seat.user, bot=seat.bot, deck=seat.deck) for seat in seats],
        created_by=challenge.created_by,
    )
    challenge.status = Challenge.Status.ACCEPTED
    challenge.save(update_fields=["match", "status"])
    return challenge.match
