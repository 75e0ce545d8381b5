"""Rag'n'Guns (rules 0.3, /work/shared/rules/ragnguns.md): the card catalogue and the deck-legality
library. No game engine yet, so nothing is registered in engines/registry.py.

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

__all__ = [
    "Card",
    "Catalogue",
    "CatalogueError",
    "Effect",
    "Format",
    "PrebuiltDeck",
    "catalogue_from_data",
    "formats_from_data",
    "get_format",
    "load_catalogue",
    "load_formats",
    "load_prebuilt",
    "name_key",
    "DECK_CODES",
    "TEXT_CODES",
    "DeckCheck",
    "ParsedDeck",
    "Violation",
    "check_deck",
    "check_deck_text",
    "deck_to_text",
    "parse_deck_text",
]
