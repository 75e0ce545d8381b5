"""Models by concern: the match event store in match.py; decks and tournaments beside it."""

from tournaments.models.deck import Deck, DeckVersion
from tournaments.models.match import Match, MatchEvent, MatchSeat
from tournaments.models.tournament import (
    Tournament,
    TournamentEntry,
    TournamentEvent,
    TournamentMatch,
    TournamentStanding,
    TournamentTable,
)

__all__ = [
    "Deck",
    "DeckVersion",
    "Match",
    "MatchEvent",
    "MatchSeat",
    "Tournament",
    "TournamentEntry",
    "TournamentEvent",
    "TournamentMatch",
    "TournamentStanding",
    "TournamentTable",
]
