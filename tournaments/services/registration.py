"""Entries: registering (people, named people, built-in bots; a saved deck frozen for the entry), the
check-in window, bringing another deck, and dropping out."""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from core.errors import ApplicationError, Conflict, NotFound, Rejected
from decks.selectors import deck_version_for_entry, deck_version_judged_now
from decks.services import deck_version_freeze
from engines.registry import get_game
from matches.models import Match
from matches.services import match_forfeit
from tournaments.formats import lifecycle
from tournaments.models import Tournament, TournamentEntry
from tournaments.selectors import tournament_get
from tournaments.services.change import TournamentChange, entry_for, require_organiser, require_status


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
    require_status(tournament, Tournament.Status.REGISTRATION, Tournament.Status.RUNNING)
    game = get_game(tournament.game)
    actor = user
    if username is not None and not bot and username != user.get_username():
        require_organiser(tournament, user)
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise NotFound(f"no user {username!r}", code="user/not_found")
    if bot:
        require_organiser(tournament, user)
        if bot not in game.bots():
            raise Rejected(f"{game.spec.name} has no bot {bot!r}", code="seat/unknown_bot")
    elif tournament.entries.filter(user=user).exists():
        raise Conflict(f"{user.get_username()} is registered already", code="player/already_registered")
    if seed is not None:
        require_organiser(tournament, actor)
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
    change = TournamentChange(tournament)
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


@transaction.atomic
def tournament_check_in(*, slug: str, user, player: str | None = None) -> TournamentEntry:
    """Check in (or, by the organiser, check a player in) within the check-in window. Every check-in
    goes through `check_in_refusal`, the one place that says why an entry may not check in."""
    tournament = tournament_get(slug=slug, for_update=True)
    require_status(tournament, Tournament.Status.REGISTRATION)
    entry = entry_for(tournament, user, player)
    refusal = check_in_refusal(tournament=tournament, entry=entry, now=timezone.now())
    if refusal is not None:
        raise refusal
    change = TournamentChange(tournament)
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
    require_status(tournament, Tournament.Status.REGISTRATION)
    entry = entry_for(tournament, user, player)
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
    require_status(tournament, Tournament.Status.REGISTRATION, Tournament.Status.RUNNING)
    entry = entry_for(tournament, user, player)
    change = TournamentChange(tournament)
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
