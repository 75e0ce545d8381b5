"""Rag'n'Guns (rules 0.3, /work/shared/rules/ragnguns.md): the duel engine, the card catalogue as
engine data, and the deck-legality library.

`GAME` is the engine the registry loads; see docs/games/ragnguns.md for every reading of the rules.

    from engines.ragnguns import load_catalogue, get_format, check_deck
    check = check_deck(load_catalogue(), get_format("standard"), "Buffalo Kid", ["Machete", ...])
"""

from engines.ragnguns.catalogue import (
    Card,
    Catalogue,
    CatalogueError,
    Effect,
    Format,
    PrebuiltDeck,
    catalogue_from_data,
    formats_from_data,
    get_format,
    load_catalogue,
    load_formats,
    load_prebuilt,
    name_key,
)
from engines.ragnguns.decks import (
    DECK_CODES,
    TEXT_CODES,
    DeckCheck,
    ParsedDeck,
    Violation,
    check_deck,
    check_deck_text,
    deck_to_text,
    parse_deck_text,
)
from engines.ragnguns.rules import RagnGuns

GAME = RagnGuns()

__all__ = [
    "DECK_CODES",
    "GAME",
    "TEXT_CODES",
    "Card",
    "Catalogue",
    "CatalogueError",
    "DeckCheck",
    "Effect",
    "Format",
    "ParsedDeck",
    "PrebuiltDeck",
    "RagnGuns",
    "Violation",
    "catalogue_from_data",
    "check_deck",
    "check_deck_text",
    "deck_to_text",
    "formats_from_data",
    "get_format",
    "load_catalogue",
    "load_formats",
    "load_prebuilt",
    "name_key",
    "parse_deck_text",
]
