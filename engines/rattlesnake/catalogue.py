"""Rattlesnake: the card catalogue, loaded from `catalogue.json` next to this module.

Rulebook sections: the component list (34 player action cards "4 ones, 4 twos, 3 threes, 3 fours,
3 fives" in 2 decks, 4 *Hit* cards per player, 15 saloon action cards, 6 saloon event cards),
"Setup" (the saloon of 5, two piles of 4 actions and 2 events, *High Noon* at the bottom), "Buying a
Card" (discard any 2 cards) and "Card Abilities". The rulebook prints the numbers above but not the
texts of the saloon cards: those are designed here as data, every designed entry marked
`"origin": "designed"`; docs/games/rattlesnake.md gives the reason for each choice.

The data are read once, with `importlib.resources`, checked, and turned into frozen values. A broken
file raises `CatalogueError` naming the entry and the field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

from engines.errors import EngineError

# The kinds of ability a saloon action card can have (see rules.py for what each does).
ABILITIES = ("set_value", "lower", "raise", "disarm", "swap", "cancel", "patch_up", "scavenge")
# Abilities that change the cards of an attack/defense: usable only once the cards are revealed.
COMBAT_ABILITIES = frozenset({"set_value", "lower", "raise", "disarm", "swap"})
# What an event may change, and the kind of its value.
EVENT_EFFECTS = {
    "hand_size": int,
    "buy_cost": int,
    "hits_per_win": int,
    "run_beats_set": bool,
    "defender_min": int,
}
ORIGINS = ("rulebook", "designed")
HIT = "hit"  # the name of a Hit card in a hand, deck or discard


class CatalogueError(EngineError):
    code = "catalogue/invalid"


@dataclass(frozen=True)
class ActionCard:
    name: str
    title: str
    copies: int
    ability: str
    text: str
    origin: str


@dataclass(frozen=True)
class EventCard:
    name: str
    title: str
    effects: tuple[tuple[str, Any], ...]
    text: str
    origin: str
    bottom: bool = False  # High Noon: "face down where the saloon deck will be placed"


@dataclass(frozen=True)
class Catalogue:
    player_deck: tuple[tuple[int, int], ...]  # (value, copies)
    hits: int
    hand_size: int
    saloon_slots: int
    piles: int
    pile_actions: int
    pile_events: int
    buy_cost: int
    hits_per_win: int
    lowest_value: int
    highest_value: int
    actions: tuple[ActionCard, ...]
    events: tuple[EventCard, ...]

    @property
    def action_cards(self) -> tuple[str, ...]:
        """Every saloon action card, one name per physical card, in catalogue order."""
        return tuple(card.name for card in self.actions for _ in range(card.copies))

    @property
    def bottom_event(self) -> EventCard:
        return next(event for event in self.events if event.bottom)

    @property
    def shuffled_events(self) -> tuple[str, ...]:
        """The events shuffled into the piles (all but the one at the bottom)."""
        return tuple(event.name for event in self.events if not event.bottom)

    def player_cards(self) -> tuple[str, ...]:
        """One player deck, lowest first: each card named by its number."""
        return tuple(str(value) for value, copies in self.player_deck for _ in range(copies))

    def to_json(self) -> dict[str, Any]:
        return {
            "actions": [
                {"name": a.name, "title": a.title, "copies": a.copies, "ability": a.ability, "text": a.text}
                for a in self.actions
            ],
            "events": [
                {"name": e.name, "title": e.title, "effects": dict(e.effects), "text": e.text}
                for e in self.events
            ],
        }


def _need(entry: dict[str, Any], name: str, kind: type, where: str) -> Any:
    value = entry.get(name)
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise CatalogueError(f"{where}: {name!r} must be a whole number")
    if not isinstance(value, kind):
        raise CatalogueError(f"{where}: {name!r} must be a {kind.__name__}")
    return value


def parse(data: dict[str, Any]) -> Catalogue:
    """Check every entry of the catalogue data and build the typed catalogue."""
    deck = data.get("player_deck")
    if not isinstance(deck, dict) or not deck:
        raise CatalogueError("player_deck must map numbers to copies")
    player_deck = tuple(sorted((int(value), copies) for value, copies in deck.items()))
    numbers = {
        name: _need(data, name, int, "catalogue")
        for name in ("hits", "hand_size", "saloon_slots", "piles", "pile_actions", "pile_events", "buy_cost",
                     "hits_per_win", "lowest_value", "highest_value")
    }  # fmt: skip
    actions = []
    for entry in data.get("actions", []):
        where = f"action {entry.get('name')!r}"
        ability = _need(entry, "ability", str, where)
        if ability not in ABILITIES:
            raise CatalogueError(f"{where}: unknown ability {ability!r}")
        origin = _need(entry, "origin", str, where)
        if origin not in ORIGINS:
            raise CatalogueError(f"{where}: origin is one of {ORIGINS}")
        actions.append(
            ActionCard(
                name=_need(entry, "name", str, where),
                title=_need(entry, "title", str, where),
                copies=_need(entry, "copies", int, where),
                ability=ability,
                text=_need(entry, "text", str, where),
                origin=origin,
            )
        )
    events = []
    for entry in data.get("events", []):
        where = f"event {entry.get('name')!r}"
        effects = _need(entry, "effects", dict, where)
        for effect, value in effects.items():
            kind = EVENT_EFFECTS.get(effect)
            if kind is None or type(value) is not kind:
                raise CatalogueError(f"{where}: bad effect {effect!r}={value!r}")
        origin = _need(entry, "origin", str, where)
        if origin not in ORIGINS:
            raise CatalogueError(f"{where}: origin is one of {ORIGINS}")
        events.append(
            EventCard(
                name=_need(entry, "name", str, where),
                title=_need(entry, "title", str, where),
                effects=tuple(sorted(effects.items())),
                text=_need(entry, "text", str, where),
                origin=origin,
                bottom=bool(entry.get("bottom", False)),
            )
        )
    catalogue = Catalogue(player_deck=player_deck, actions=tuple(actions), events=tuple(events), **numbers)
    names = [card.name for card in catalogue.actions] + [event.name for event in catalogue.events]
    if len(set(names)) != len(names):
        raise CatalogueError("card names must be unique")
    if any(name in {HIT} or name.isdigit() for name in names):
        raise CatalogueError("a saloon card may not be named like a Hit or a number")
    if sum(1 for event in catalogue.events if event.bottom) != 1:
        raise CatalogueError("exactly one event lies at the bottom of the saloon deck")
    # Setup: "deal 5 face up", "2 face down piles of 4 cards each", "2 events ... into each pile",
    # "returning the 1 leftover event card to the box": the counts must leave something over.
    if len(catalogue.action_cards) < catalogue.saloon_slots + catalogue.piles * catalogue.pile_actions:
        raise CatalogueError("too few action cards for the saloon and its piles")
    if len(catalogue.shuffled_events) < catalogue.piles * catalogue.pile_events:
        raise CatalogueError("too few events for the piles")
    return catalogue


def load() -> Catalogue:
    text = resources.files(__package__).joinpath("catalogue.json").read_text(encoding="utf-8")
    return parse(json.loads(text))


CATALOGUE = load()

# Tables the rules and the bots read, derived once from the catalogue.
# The number on each card; Hits and saloon cards have none.
VALUE: dict[str, int] = {str(value): value for value, _ in CATALOGUE.player_deck}
ABILITY: dict[str, str] = {card.name: card.ability for card in CATALOGUE.actions}
LOW, HIGH = CATALOGUE.lowest_value, CATALOGUE.highest_value
# The canonical order of cards in a hand and in listed actions: numbers, Hits, saloon cards.
RANK: dict[str, int] = {**{name: value for name, value in VALUE.items()}, HIT: HIGH + 1}
RANK.update({card.name: HIGH + 2 + index for index, card in enumerate(CATALOGUE.actions)})
