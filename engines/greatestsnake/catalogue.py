"""The Greatest Snake: the card catalogue (rulebook "Setting Up" and "Card Types"), read from
`catalogue.json` next to this module.

The rulebook names eight cards (Rat King, Fake Rat, Super Glue, Dodge, Gun, Lasers, Steal, Swap) and
gives no card list, texts, counts or digestion speeds: those are designed, as data, in the JSON file
(docs/games/the-greatest-snake.md gives each choice and its reason). This module only reads the file
with `importlib.resources`, checks every entry and numbers the physical cards: each copy of a card is
one integer id, so a state is lists of ids and a view names each card by id and key.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources

from engines.errors import EngineError

KINDS = ("rat", "power", "equipment", "body")
POWER_EFFECTS = ("feed", "glue", "dodge", "squeeze", "sleep", "steal", "swap")
EQUIPMENT_EFFECTS = ("shoot", "squeeze", "dodge", "unsqueezable")
# "Each Equipment Card has an ability that's either constant, or can be used at a price."
COSTS = ("ammo", "sleep", "constant")
# The eight cards the rulebook names; the catalogue must keep each of them.
NAMED_BY_RULEBOOK = ("Rat King", "Fake Rat", "Super Glue", "Dodge", "Gun", "Lasers", "Steal", "Swap")


class CatalogueError(EngineError):
    code = "catalogue/invalid"


@dataclass(frozen=True, slots=True)
class Card:
    id: int
    key: str
    name: str
    kind: str  # rat, power, equipment, body (a Fashionable Body Card)
    effect: str = ""  # what a power card or an equipment ability does
    cost: str = ""  # equipment: ammo, sleep or constant
    ammo: int = 0  # equipment paid with ammo: how many uses it has
    speed: int = 0  # a rat (Fake Rat included): spaces moved toward the Tail at each Digest!
    unsqueezable: bool = False
    is_rat: bool = False  # true for Rat Cards and for Fake Rat ("both a rat and a power card")
    expansion: bool = False

    def to_json(self) -> dict:
        return {"id": self.id, "key": self.key}


@dataclass(frozen=True, slots=True)
class Snake:
    style: str
    head: str
    body: str
    tail: str
    expansion: bool


def _load() -> dict:
    text = resources.files(__package__).joinpath("catalogue.json").read_text(encoding="utf-8")
    return json.loads(text)


def _build(data: dict) -> tuple[tuple[Card, ...], tuple[Snake, ...], tuple[int, ...]]:
    cards: list[Card] = []
    names: set[str] = set()
    for entry in data["cards"]:
        kind, name = entry["kind"], entry["name"]
        if kind not in ("rat", "power", "equipment"):
            raise CatalogueError(f"{name}: unknown kind {kind!r}")
        if name in names:
            raise CatalogueError(f"{name}: listed twice")
        names.add(name)
        effect = entry.get("effect", "")
        if kind == "power" and effect not in POWER_EFFECTS:
            raise CatalogueError(f"{name}: unknown power effect {effect!r}")
        if kind == "equipment":
            if effect not in EQUIPMENT_EFFECTS or entry.get("cost") not in COSTS:
                raise CatalogueError(f"{name}: unknown equipment effect or cost")
            if (entry["cost"] == "ammo") != (entry.get("ammo", 0) > 0):
                raise CatalogueError(f"{name}: ammo is given exactly for ammo-paid equipment")
        is_rat = kind == "rat" or effect == "feed"
        if is_rat and entry.get("speed", 0) < 1:
            raise CatalogueError(f"{name}: a rat moves at least 1 space per Digest!")
        for copy in range(entry["count"] + entry["expansion_count"]):
            cards.append(
                Card(
                    id=len(cards),
                    key=entry["key"],
                    name=name,
                    kind=kind,
                    effect=effect,
                    cost=entry.get("cost", ""),
                    ammo=entry.get("ammo", 0),
                    speed=entry.get("speed", 0),
                    unsqueezable=entry.get("unsqueezable", False),
                    is_rat=is_rat,
                    expansion=copy >= entry["count"],
                )
            )
    missing = [name for name in NAMED_BY_RULEBOOK if name not in names]
    if missing:
        raise CatalogueError(f"the rulebook's cards are missing: {', '.join(missing)}")
    snakes = tuple(Snake(**entry) for entry in data["snakes"])
    deck_size = len(cards)
    for snake in snakes:
        key = "fashionable-body-" + snake.style.lower()
        cards.append(Card(id=len(cards), key=key, name=snake.body, kind="body", expansion=snake.expansion))
    bodies = tuple(range(deck_size, len(cards)))
    return tuple(cards), snakes, bodies


CARDS, SNAKES, FASHIONABLE_BODIES = _build(_load())
DECK_CARDS = tuple(card.id for card in CARDS if card.kind != "body")
BASE_SNAKES = sum(1 for snake in SNAKES if not snake.expansion)  # 4: "three to four people"

# Hot-path lookups by id (plain tuples: an index is cheaper than an attribute).
SPEED = tuple(card.speed for card in CARDS)
IS_RAT = tuple(card.is_rat for card in CARDS)
IS_REAL_RAT = tuple(card.kind == "rat" for card in CARDS)
KIND = tuple(card.kind for card in CARDS)
EFFECT = tuple(card.effect for card in CARDS)
POWER_EFFECT = tuple(card.effect if card.kind == "power" else "" for card in CARDS)
COST = tuple(card.cost for card in CARDS)
UNSQUEEZABLE = tuple(card.unsqueezable for card in CARDS)
RAT_KING = next(card.id for card in CARDS if card.name == "Rat King")


def deck(expansion: bool) -> list[int]:
    """The Deck before its first shuffle, in catalogue order: the base cards, plus the expansion's."""
    return [card for card in DECK_CARDS if expansion or not CARDS[card].expansion]
