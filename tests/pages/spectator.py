"""A live Rag'n'Guns match with secrets in it, and the list of those secrets, for the tests that walk
the public pages as a spectator."""

from __future__ import annotations

import json
from dataclasses import dataclass

from decks.models import DeckVersion
from decks.selectors import deck_version_brought
from matches.models import Match
from matches.selectors import match_event_listing, match_game, match_snapshot
from matches.services import SeatSpec, match_create, match_submit_action

ENOUGH_SECRETS = 5


@dataclass(frozen=True)
class LiveSecrets:
    match: Match
    hidden: set[str]  # card ids a seat holds or brought, shown on no page made for everyone
    seed_hex: str  # secret until the match ends


def hidden_tokens(match: Match) -> set[str]:
    """Card ids a seat holds or brought that neither the spectator view nor the log a spectator may
    read shows: what no public page may print while the match runs."""
    game = match_game(match)
    state = match_snapshot(match).state
    public = json.dumps(game.view(state, None)) + json.dumps(
        [event["payload"] for event in match_event_listing(match, viewer_seat=None)]
    )
    private = []
    for seat in range(match.seats.count()):
        for seat_view in game.view(state, seat)["seats"]:
            private += [card for card in seat_view.get("hand", []) if isinstance(card, str)]
    for event in match_event_listing(match, viewer_seat=0):
        if event["kind"] == "action" and event["payload"] and event["payload"].get("type") == "bring_deck":
            private += event["payload"].get("cards", [])
    return {token for token in private if token not in public}


def live_match_with_secrets(person, *, baseline: str) -> LiveSecrets:
    """`person` (who owns a legal saved deck) against the heuristic bot, played a few turns until
    hands are dealt; secrets found in `baseline` (text the site shows whatever this match holds, a card
    named like a game, say) are no evidence of a leak and are left out."""
    version = DeckVersion.objects.filter(legal=True, deck__owner=person).first()
    match = match_create(
        game_key="ragnguns",
        seats=[SeatSpec(user=person, deck=deck_version_brought(version)), SeatSpec(bot="heuristic")],
        created_by=person,
    )
    game = match_game(match)
    for _ in range(30):  # the person plays the first legal action; the bot answers at once
        snapshot = match_snapshot(match)
        decision = game.decision(snapshot.state)
        if decision.kind == "over" or 0 not in decision.seats:
            break
        action = game.legal_actions(snapshot.state, 0)[0]
        match_submit_action(match_id=match.pk, user=person, action=dict(action), expected_seq=snapshot.seq)
        if len(hidden_tokens(match)) >= ENOUGH_SECRETS:
            break
    match.refresh_from_db()
    assert match.status == "running"
    hidden = {token for token in hidden_tokens(match) if token not in baseline}
    assert len(hidden) >= 3, "the test needs secrets to look for"
    return LiveSecrets(match=match, hidden=hidden, seed_hex=bytes(match.seed).hex())
