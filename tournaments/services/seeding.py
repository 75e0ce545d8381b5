"""Seeding and the tournament's reproducible randomness: the order the players start in (random from
the committed secret, by registration, by rating, or the organiser's manual order)."""

from __future__ import annotations

import hashlib
import hmac
import random
from collections.abc import Mapping

from django.db import transaction

from core.errors import Rejected
from engines.chance import ChanceRequest, draw
from tournaments.models import Tournament, TournamentEntry
from tournaments.selectors import tournament_get
from tournaments.services.change import TournamentChange, players_named, require_organiser, require_status


def tournament_rng(tournament: Tournament, purpose: str, seq: int) -> random.Random:
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


def seed_order(
    tournament: Tournament, entries: list[TournamentEntry], seq: int, *, ratings: Mapping[int, float]
) -> list[TournamentEntry]:
    """The entries in the order the tournament's seeding puts them; `ratings` (by entry) orders a
    tournament seeded by rating, the unrated last."""
    if tournament.seeding == Tournament.Seeding.RANDOM:
        if not tournament.seed:
            order = sorted(entries, key=lambda entry: entry.player)
            tournament_rng(tournament, "seeding", seq).shuffle(order)
            return order
        by_player = {entry.player: entry for entry in entries}
        return [by_player[p] for p in random_seed_order(bytes(tournament.seed), list(by_player))]
    if tournament.seeding == Tournament.Seeding.REGISTRATION:
        return sorted(entries, key=lambda entry: entry.pk)
    if tournament.seeding == Tournament.Seeding.RATING:
        return sorted(
            entries, key=lambda entry: (-ratings.get(entry.pk, float("-inf")), entry.seed or 10**9, entry.pk)
        )
    return sorted(entries, key=lambda entry: (entry.seed is None, entry.seed or 0, entry.pk))


def entries_ratings(entries: list[TournamentEntry], ratings_by_user: Mapping[int, float]) -> dict[int, float]:
    """Each person's rating, by entry; bots and unrated people have none."""
    return {entry.pk: ratings_by_user[entry.user_id] for entry in entries if entry.user_id in ratings_by_user}


@transaction.atomic
def tournament_seeds_set(*, slug: str, user, order: list[str]) -> list[TournamentEntry]:
    """Manual seeding: the organiser orders the players (usernames or player ids), rated or not;
    whoever is left out follows in registration order."""
    tournament = tournament_get(slug=slug, for_update=True)
    require_organiser(tournament, user)
    require_status(tournament, Tournament.Status.DRAFT, Tournament.Status.REGISTRATION)
    players = players_named(tournament, order)
    if len(set(players)) != len(players):
        raise Rejected("a player appears twice in the order", code="player/duplicate")
    change = TournamentChange(tournament)
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
