"""The Rag'n'Guns card catalogue, formats and pre-built decks: data files loaded into typed values.

Rulebook sections: TYPES OF CARDS, KEYWORDS, EFFECTS, TRAPS, BACKUPS, DECKBUILDING (rules 0.3,
/work/shared/rules/ragnguns.md). The data live in `catalogue.json`, `formats.json` and
`prebuilt.json` next to this module (Pokémon Showdown's data-as-data); this module only reads them
with `importlib.resources`, checks every entry and refuses broken data with a `CatalogueError` that
names the card and the field. Prose about why a card is the way it is lives in docs/games/ragnguns.md.
"""

from __future__ import annotations

import difflib
import json
import re
import unicodedata
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from importlib import resources
from typing import Any

from engines.ragnguns.errors import CatalogueError
from engines.ragnguns.vocabulary import check_steps

# -- vocabulary (the rulebook's own words) ------------------------------------------------------

# TYPES OF CARDS: "five TYPES of cards" + the GUNSLINGER card itself.
TYPES = ("ACTION", "WEAPON", "ITEM", "TRAP", "BACKUP", "GUNSLINGER")
# Order used to group cards in deck lists (the GUNSLINGER heads the list on its own line).
TYPE_ORDER = ("GUNSLINGER", "ACTION", "WEAPON", "ITEM", "TRAP", "BACKUP")
# KEYWORDS: EPIC has a deckbuilding rule; the others are "used (or will be) by EFFECTS".
# SIGNATURE is not listed: the signature keyword is the GUNSLINGER's name, kept in `Card.signature`.
KEYWORDS = (
    "EPIC",
    "MOUNT",
    "ANIMAL",
    "GIRL",
    "QUICK",
    "ALCOHOL",
    "HEAL",
    "MELEE",
    "FIRE",
    "MUSIC",
    "SHERIFF",
)
# EFFECTS: ∞ -> once_per_turn (the card is not discarded), ↓ -> on_place, ◊/♦ -> while_placed.
MARKERS = ("once_per_turn", "on_place", "while_placed")
ZONES = ("ALLEY", "SHELTER", "HIDEOUT", "HAND")
PAID_FROM = ("bullets", "cartridge_belt")
ORIGINS = ("rulebook", "designed")
# Where each value of a card comes from (issue 15: provenance per field, not per card):
# "printed" -- the rulebook states it; "example" -- derived from a rulebook example or rule sentence;
# "designed" -- ours, with the reason in docs/games/ragnguns.md.
PROVENANCES = ("printed", "example", "designed")
CARD_PROVENANCE_FIELDS = ("type", "cost", "firepower", "durability", "keywords", "signature")
EFFECT_PROVENANCE_FIELDS = ("cost", "markers", "zone", "paid_from", "do")
# PLACE: "Only cards with statistics (cards with the symbols ♠ and ♥) can be placed". The GUNSLINGER
# has statistics too: when *ready* it moves to the Alley and "provides you his FIREPOWER".
PLACEABLE_TYPES = frozenset({"WEAPON", "ITEM", "BACKUP", "GUNSLINGER"})
COSTED_TYPES = frozenset({"WEAPON", "ITEM", "BACKUP"})  # integer cost, "top right of the card"
# ACTIONS "have no cost or statistic"; a GUNSLINGER is never paid for: both carry cost null.
UNCOSTED_TYPES = frozenset({"ACTION", "GUNSLINGER"})
TRAP_COST = "X"  # TRAPS: "A TRAP has a cost of X"

_SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_CARD_FIELDS = frozenset(
    {
        "id",
        "name",
        "type",
        "cost",
        "firepower",
        "durability",
        "keywords",
        "signature",
        "effects",
        "origin",
        "provenance",
    }
)
_EFFECT_FIELDS = frozenset({"cost", "markers", "zone", "paid_from", "text", "do", "provenance"})
_EFFECT_OPTIONAL = frozenset({"readings"})  # costs per named reading, where the rulebook says two things
_FORMAT_FIELDS = frozenset(
    {
        "key",
        "name",
        "description",
        "deck_size",
        "max_epic",
        "max_signature",
        "unique_names",
        "signature_must_match",
        "banned",
        "restricted",
        "max_restricted",
    }
)
_FORMAT_OPTIONAL = frozenset({"ban_list"})  # {"version", "effective"} of the packaged banned/restricted


# -- names ------------------------------------------------------------------------------------------

_APOSTROPHES = re.compile(r"['’‘`´]")
_NON_ALNUM = re.compile(r"[^0-9a-z]+")


def name_words(text: str) -> tuple[str, ...]:
    """The words of a name, case-, accent- and punctuation-insensitive.

    NFKD then drop combining marks ("Señorita" -> "Senorita"), casefold, drop apostrophes
    ("Jenny's" -> "jennys"), and treat any other run of punctuation or spaces as one separator.
    """
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    folded = _APOSTROPHES.sub("", stripped.casefold())
    return tuple(word for word in _NON_ALNUM.split(folded) if word)


def name_key(text: str) -> str:
    """The lookup key of a name: its words glued together ("Iron bar", "iron-bar", "IRONBAR" agree)."""
    return "".join(name_words(text))


def _key_variants(text: str) -> list[str]:
    """The key itself, then the key without a leading article ("the Lure" -> "lure")."""
    words = name_words(text)
    keys = ["".join(words)]
    if len(words) > 1 and words[0] == "the":
        keys.append("".join(words[1:]))
    return keys


# -- values -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Effect:
    """One text box of a card. `cost` is in Bullets (①=1); ⓪ is 0."""

    cost: int
    markers: tuple[str, ...]  # subset of MARKERS
    zone: str | None  # where the Effect applies or is played from; None: wherever the card is in play
    paid_from: str  # "bullets", or "cartridge_belt" for a GUNSLINGER's Effects
    text: str
    # What the engine does: steps of the effect vocabulary (engines/ragnguns/effects.py), as data.
    do: tuple[Mapping[str, Any], ...] = ()
    provenance: tuple[tuple[str, str], ...] = ()  # (field, printed|example|designed)
    readings: tuple[tuple[str, int], ...] = ()  # (reading, cost) where the rulebook gives two costs

    @property
    def once_per_turn(self) -> bool:
        return "once_per_turn" in self.markers

    def cost_under(self, reading: str | None) -> int:
        """The cost under a named reading of the rulebook (an option of the match), else `cost`."""
        for name, cost in self.readings:
            if name == reading:
                return cost
        return self.cost

    def to_dict(self) -> dict[str, Any]:
        described: dict[str, Any] = {
            "cost": self.cost,
            "markers": list(self.markers),
            "zone": self.zone,
            "paid_from": self.paid_from,
            "text": self.text,
            "do": [dict(step) for step in self.do],
            "provenance": dict(self.provenance),
        }
        if self.readings:
            described["readings"] = dict(self.readings)
        return described


@dataclass(frozen=True)
class Card:
    id: str  # stable slug, never reused
    name: str  # exactly as printed
    type: str  # one of TYPES
    cost: int | str | None  # int; "X" for a TRAP; None for an ACTION or a GUNSLINGER
    firepower: int | None  # ♠, only on cards with statistics
    durability: int | None  # ♥, only on cards with statistics
    keywords: tuple[str, ...]
    signature: str | None  # the GUNSLINGER's name on a SIGNATURE card
    effects: tuple[Effect, ...]
    origin: str  # "rulebook" (named in rules 0.3) or "designed" (ours, see docs/games/ragnguns.md)
    provenance: tuple[tuple[str, str], ...] = ()  # (field, printed|example|designed), per field
    key: str = field(init=False, repr=False, compare=False)  # name_key(name), the name's lookup key

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", name_key(self.name))

    @property
    def is_epic(self) -> bool:
        return "EPIC" in self.keywords

    @property
    def is_gunslinger(self) -> bool:
        return self.type == "GUNSLINGER"

    @property
    def placeable(self) -> bool:
        return self.type in PLACEABLE_TYPES

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "type": self.type,
            "cost": self.cost,
            "firepower": self.firepower,
            "durability": self.durability,
            "keywords": list(self.keywords),
            "signature": self.signature,
            "effects": [effect.to_dict() for effect in self.effects],
            "origin": self.origin,
            "provenance": dict(self.provenance),
        }


@dataclass(frozen=True)
class Format:
    """A deckbuilding format. `restricted` is a budget: at most `max_restricted` cards from the list."""

    key: str
    name: str
    description: str
    deck_size: int
    max_epic: int
    max_signature: int
    unique_names: bool  # every card a different name, the GUNSLINGER's name included
    signature_must_match: bool  # a SIGNATURE card only with its own GUNSLINGER
    banned: frozenset[str]  # card ids (a GUNSLINGER id bans the gunslinger)
    restricted: frozenset[str]  # card ids
    max_restricted: int
    # Which ban list `banned`/`restricted`/`max_restricted` are: the packaged one (formats.json's
    # "ban_list") or one published later and applied with `with_ban_list`.
    ban_list_version: str = ""
    ban_list_effective: str = ""  # ISO 8601 moment

    def with_ban_list(self, ban_list: BanList) -> Format:
        """This format under another ban list; every other rule stays."""
        return replace(
            self,
            banned=ban_list.banned,
            restricted=ban_list.restricted,
            max_restricted=ban_list.max_restricted,
            ban_list_version=ban_list.version,
            ban_list_effective=ban_list.effective,
        )

    def ban_list(self) -> BanList:
        """The ban list this format is under."""
        return BanList(
            version=self.ban_list_version,
            effective=self.ban_list_effective,
            banned=self.banned,
            restricted=self.restricted,
            max_restricted=self.max_restricted,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "name": self.name,
            "description": self.description,
            "deck_size": self.deck_size,
            "max_epic": self.max_epic,
            "max_signature": self.max_signature,
            "unique_names": self.unique_names,
            "signature_must_match": self.signature_must_match,
            "banned": sorted(self.banned),
            "restricted": sorted(self.restricted),
            "max_restricted": self.max_restricted,
            "ban_list_version": self.ban_list_version,
            "ban_list_effective": self.ban_list_effective,
        }


@dataclass(frozen=True)
class BanList:
    """A dated version of a format's ban list and restricted list (as ArkhamDB's taboo lists are).

    The format's other rules never change with it. `effective` is when it takes effect (ISO 8601);
    which list is in effect at a moment is the service's question -- an engine has no clock."""

    version: str
    effective: str
    banned: frozenset[str]
    restricted: frozenset[str]
    max_restricted: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "effective": self.effective,
            "banned": sorted(self.banned),
            "restricted": sorted(self.restricted),
            "max_restricted": self.max_restricted,
        }


MAX_BAN_LIST_TEXT = 20_000  # a ban list's JSON in a match option: the whole catalogue fits many times
_BAN_LIST_FIELDS = frozenset({"version", "effective", "banned", "restricted", "max_restricted"})


def ban_list_from_data(raw: Any, catalogue: Catalogue) -> BanList:
    """Validate a ban list given as data (a match option, a published list): every id a card."""
    if not isinstance(raw, Mapping) or set(raw) != _BAN_LIST_FIELDS:
        raise CatalogueError(
            f"a ban list is an object with exactly {sorted(_BAN_LIST_FIELDS)}", field="ban_list"
        )
    for text_field in ("version", "effective"):
        if not isinstance(raw[text_field], str) or not 1 <= len(raw[text_field]) <= 40:
            raise CatalogueError(f"ban list {text_field} must be 1 to 40 characters", field=text_field)
    lists = {}
    for list_field in ("banned", "restricted"):
        ids = raw[list_field]
        if not isinstance(ids, list) or not all(isinstance(card_id, str) for card_id in ids):
            raise CatalogueError(f"ban list {list_field} must be a list of card ids", field=list_field)
        unknown = sorted(card_id for card_id in ids if card_id not in catalogue)
        if unknown:
            raise CatalogueError(
                f"ban list {list_field} names unknown card id(s) {unknown}", field=list_field
            )
        lists[list_field] = frozenset(ids)
    if not _is_int(raw["max_restricted"]) or raw["max_restricted"] < 0:
        raise CatalogueError("ban list max_restricted must be an integer >= 0", field="max_restricted")
    return BanList(
        version=raw["version"],
        effective=raw["effective"],
        banned=lists["banned"],
        restricted=lists["restricted"],
        max_restricted=raw["max_restricted"],
    )


@dataclass(frozen=True)
class PrebuiltDeck:
    id: str
    name: str
    gunslinger: str  # card id
    cards: tuple[str, ...]  # card ids, in the file's order
    description: str


@dataclass(frozen=True)
class Catalogue:
    """Every card of one catalogue version, with lookups. Build it with `catalogue_from_data`."""

    version: str
    cards: tuple[Card, ...]
    _by_id: Mapping[str, Card] = field(repr=False, compare=False)
    # name key -> the cards of that name: at most one GUNSLINGER and one other card (DECKBUILDING
    # foresees a "Banjo Winter" GUNSLINGER next to the Banjo Winter BACKUP).
    _by_key: Mapping[str, tuple[Card, ...]] = field(repr=False, compare=False)
    # for suggest(): {None | True | False: {name or id key: printed name}}
    _suggest_pools: Mapping[bool | None, Mapping[str, str]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        pools: dict[bool | None, dict[str, str]] = {}
        for wanted in (None, True, False):
            pool: dict[str, str] = {}
            for card in self.cards:
                if wanted is None or card.is_gunslinger == wanted:
                    pool.setdefault(card.key, card.name)
                    pool.setdefault(name_key(card.id), card.name)
            pools[wanted] = pool
        object.__setattr__(self, "_suggest_pools", pools)

    def __iter__(self) -> Iterator[Card]:
        return iter(self.cards)

    def __len__(self) -> int:
        return len(self.cards)

    def __contains__(self, card_id: object) -> bool:
        return card_id in self._by_id

    def get(self, card_id: str) -> Card:
        """The card with this id; KeyError naming close ids otherwise."""
        try:
            return self._by_id[card_id]
        except KeyError:
            close = difflib.get_close_matches(str(card_id), list(self._by_id), n=3)
            raise KeyError(
                f"no card with id {card_id!r}" + (f"; did you mean {close}?" if close else "")
            ) from None

    def by_id(self, card_id: str) -> Card | None:
        return self._by_id.get(card_id)

    def by_name(self, name: str, *, gunslinger: bool | None = None) -> Card | None:
        """The card printed with this name, ignoring case, accents, spaces and punctuation.

        When a GUNSLINGER and another card share a name, `gunslinger=True` prefers the GUNSLINGER,
        `gunslinger=False` (or None) the other card. A leading "the" is optional ("the Lure").
        """
        for key in _key_variants(name):
            found = self._by_key.get(key)
            if found:
                if gunslinger:
                    found = sorted(found, key=lambda card: not card.is_gunslinger)
                else:
                    found = sorted(found, key=lambda card: card.is_gunslinger)
                return found[0]
        return None

    def resolve(self, text: str, *, gunslinger: bool | None = None) -> Card | None:
        """A card given by id or by name (see `by_name`); None if nothing matches."""
        if not isinstance(text, str):
            return None
        stripped = text.strip()
        card = self._by_id.get(stripped)
        if card is not None:
            return card
        return self.by_name(stripped, gunslinger=gunslinger)

    def suggest(self, text: str, *, limit: int = 3, gunslinger: bool | None = None) -> list[str]:
        """Printed names close to `text` ("did you mean"), best first; restricted to GUNSLINGERS
        (gunslinger=True) or to other cards (gunslinger=False) when asked."""
        by_key = self._suggest_pools[None if gunslinger is None else bool(gunslinger)]
        query = name_key(text) if isinstance(text, str) else ""
        if not query:
            return []
        names: list[str] = []
        for key in difflib.get_close_matches(query, by_key, n=limit * 2, cutoff=0.6):
            if by_key[key] not in names:
                names.append(by_key[key])
        return names[:limit]

    def gunslingers(self) -> tuple[Card, ...]:
        return tuple(card for card in self.cards if card.is_gunslinger)

    def filter(
        self,
        *,
        type: str | None = None,
        keyword: str | None = None,
        cost: int | str | None = None,
        signature: str | None = None,
        origin: str | None = None,
        search: str | None = None,
    ) -> tuple[Card, ...]:
        """Cards matching every given criterion, sorted by name.

        `type` and `keyword` are case-insensitive; `cost` is an int or "X"; `signature` a GUNSLINGER
        name or id; `search` is free text: every word must occur in the name or an Effect text,
        ignoring case and accents ("senorita", "heal bullet").
        """
        wanted_type = type.upper() if type else None
        wanted_keyword = keyword.upper() if keyword else None
        wanted_signature = None
        if signature is not None:
            slinger = self.resolve(signature, gunslinger=True)
            wanted_signature = slinger.name if slinger is not None else signature
        words = name_words(search) if search else ()
        result = []
        for card in self.cards:
            if wanted_type is not None and card.type != wanted_type:
                continue
            if wanted_keyword is not None and wanted_keyword not in card.keywords:
                continue
            if cost is not None and (card.cost is None or str(card.cost).upper() != str(cost).upper()):
                continue
            if wanted_signature is not None and card.signature != wanted_signature:
                continue
            if origin is not None and card.origin != origin:
                continue
            if words:
                haystack = " ".join(name_words(" ".join([card.name, *(e.text for e in card.effects)])))
                if not all(word in haystack for word in words):
                    continue
            result.append(card)
        return tuple(sorted(result, key=lambda card: (card.key, card.id)))


# -- validation ---------------------------------------------------------------------------------------


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _require_int(value: Any, *, card_id: str | None, field: str, minimum: int = 0) -> int:
    if not _is_int(value):
        raise CatalogueError(f"expected an integer, got {value!r}", card_id=card_id, field=field)
    if value < minimum:
        raise CatalogueError(f"must be at least {minimum}, got {value}", card_id=card_id, field=field)
    return value


def _require_str(value: Any, *, card_id: str | None, field: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise CatalogueError(f"expected a non-empty string, got {value!r}", card_id=card_id, field=field)
    if value != value.strip():
        raise CatalogueError(f"has leading or trailing spaces: {value!r}", card_id=card_id, field=field)
    return value


def _check_fields(
    raw: Mapping[str, Any],
    allowed: frozenset[str],
    *,
    card_id: str | None,
    what: str,
    optional: frozenset[str] = frozenset(),
) -> None:
    unknown = sorted(set(raw) - allowed - optional)
    if unknown:
        raise CatalogueError(f"unknown {what} field(s) {unknown}", card_id=card_id, field=unknown[0])
    missing = sorted(allowed - set(raw))
    if missing:
        raise CatalogueError(f"missing {what} field(s) {missing}", card_id=card_id, field=missing[0])


def _parse_effect(raw: Any, *, card_id: str, card_type: str, index: int) -> Effect:
    where = f"effects[{index}]"
    if not isinstance(raw, Mapping):
        raise CatalogueError(f"expected an object, got {raw!r}", card_id=card_id, field=where)
    _check_fields(raw, _EFFECT_FIELDS, card_id=card_id, what="effect", optional=_EFFECT_OPTIONAL)
    cost = _require_int(raw["cost"], card_id=card_id, field=f"{where}.cost")
    markers = raw["markers"]
    if not isinstance(markers, list):
        raise CatalogueError(f"expected a list, got {markers!r}", card_id=card_id, field=f"{where}.markers")
    for marker in markers:
        if marker not in MARKERS:
            raise CatalogueError(
                f"unknown marker {marker!r}; known: {', '.join(MARKERS)}",
                card_id=card_id,
                field=f"{where}.markers",
            )
    if len(set(markers)) != len(markers):
        raise CatalogueError(f"repeated marker in {markers}", card_id=card_id, field=f"{where}.markers")
    zone = raw["zone"]
    if zone is not None and zone not in ZONES:
        raise CatalogueError(
            f"unknown zone {zone!r}; known: {', '.join(ZONES)} or null",
            card_id=card_id,
            field=f"{where}.zone",
        )
    paid_from = raw["paid_from"]
    if paid_from not in PAID_FROM:
        raise CatalogueError(
            f"unknown payment {paid_from!r}; known: {', '.join(PAID_FROM)}",
            card_id=card_id,
            field=f"{where}.paid_from",
        )
    text = _require_str(raw["text"], card_id=card_id, field=f"{where}.text")
    # EFFECTS: a GUNSLINGER's Effects "can only be paid by the BULLETS in your CARTRIDGE BELT" and
    # "Of course these EFFECTS are ∞"; every other card pays with Bullets.
    if card_type == "GUNSLINGER":
        if paid_from != "cartridge_belt":
            raise CatalogueError(
                "a GUNSLINGER's Effects are paid from the cartridge_belt",
                card_id=card_id,
                field=f"{where}.paid_from",
            )
        if "once_per_turn" not in markers:
            raise CatalogueError(
                "a GUNSLINGER's Effects are ∞ (once_per_turn)", card_id=card_id, field=f"{where}.markers"
            )
    elif paid_from != "bullets":
        raise CatalogueError(
            "only a GUNSLINGER's Effects are paid from the cartridge_belt",
            card_id=card_id,
            field=f"{where}.paid_from",
        )
    # ↓ and ◊ speak of "the zone indicated": only a placed card has one, and it must say which.
    if {"on_place", "while_placed"} & set(markers):
        if card_type not in PLACEABLE_TYPES - {"GUNSLINGER"}:
            raise CatalogueError(
                f"↓/◊ Effects need a card that can be placed, not a {card_type}",
                card_id=card_id,
                field=f"{where}.markers",
            )
        if zone not in ("ALLEY", "SHELTER"):
            raise CatalogueError(
                "a ↓/◊ Effect names its zone: ALLEY or SHELTER", card_id=card_id, field=f"{where}.zone"
            )
        if {"on_place", "while_placed"} <= set(markers):
            raise CatalogueError("an Effect is ↓ or ◊, not both", card_id=card_id, field=f"{where}.markers")
    do = check_steps(raw["do"], card_id=card_id, card_type=card_type, markers=markers, where=f"{where}.do")
    provenance = _parse_provenance(
        raw["provenance"], EFFECT_PROVENANCE_FIELDS, card_id=card_id, where=f"{where}.provenance"
    )
    readings: tuple[tuple[str, int], ...] = ()
    if "readings" in raw:
        readings_raw = raw["readings"]
        if not isinstance(readings_raw, Mapping) or not readings_raw:
            raise CatalogueError(
                "readings: an object of reading -> cost", card_id=card_id, field=f"{where}.readings"
            )
        readings = tuple(
            (str(name), _require_int(value, card_id=card_id, field=f"{where}.readings.{name}"))
            for name, value in sorted(readings_raw.items())
        )
    return Effect(
        cost=cost,
        markers=tuple(markers),
        zone=zone,
        paid_from=paid_from,
        text=text,
        do=do,
        provenance=provenance,
        readings=readings,
    )


def _parse_provenance(
    raw: Any, names: tuple[str, ...], *, card_id: str, where: str
) -> tuple[tuple[str, str], ...]:
    if not isinstance(raw, Mapping) or set(raw) != set(names):
        raise CatalogueError(
            f"provenance names exactly {', '.join(names)}, got {raw!r}", card_id=card_id, field=where
        )
    for name in names:
        if raw[name] not in PROVENANCES:
            raise CatalogueError(
                f"provenance of {name!r} is one of {', '.join(PROVENANCES)}, got {raw[name]!r}",
                card_id=card_id,
                field=f"{where}.{name}",
            )
    return tuple((name, raw[name]) for name in names)


def _parse_card(raw: Any, index: int) -> Card:
    if not isinstance(raw, Mapping):
        raise CatalogueError(f"cards[{index}]: expected an object, got {type(raw).__name__}")
    card_id = raw.get("id")
    if not isinstance(card_id, str) or not _SLUG.match(card_id):
        raise CatalogueError(
            f"cards[{index}]: id must be a slug like 'iron-bar' (lowercase letters, digits, single hyphens), "
            f"got {card_id!r}",
            card_id=card_id if isinstance(card_id, str) else None,
            field="id",
        )
    _check_fields(raw, _CARD_FIELDS, card_id=card_id, what="card")
    name = _require_str(raw["name"], card_id=card_id, field="name")
    if not name_key(name):
        raise CatalogueError(f"name {name!r} has no letter or digit", card_id=card_id, field="name")
    card_type = raw["type"]
    if card_type not in TYPES:
        raise CatalogueError(
            f"unknown type {card_type!r}; known: {', '.join(TYPES)}", card_id=card_id, field="type"
        )

    cost = raw["cost"]
    if card_type == "TRAP":
        if cost != TRAP_COST:
            raise CatalogueError(f"a TRAP costs {TRAP_COST!r}, got {cost!r}", card_id=card_id, field="cost")
    elif card_type in UNCOSTED_TYPES:
        if cost is not None:
            raise CatalogueError(
                f"a {card_type} has no cost (null), got {cost!r}", card_id=card_id, field="cost"
            )
    else:
        _require_int(cost, card_id=card_id, field="cost")

    firepower, durability = raw["firepower"], raw["durability"]
    if card_type in PLACEABLE_TYPES:
        _require_int(firepower, card_id=card_id, field="firepower")
        _require_int(durability, card_id=card_id, field="durability", minimum=1)
    else:
        for stat_field, value in (("firepower", firepower), ("durability", durability)):
            if value is not None:
                raise CatalogueError(
                    f"a {card_type} cannot be placed, so it has no statistics (null), got {value!r}",
                    card_id=card_id,
                    field=stat_field,
                )

    keywords = raw["keywords"]
    if not isinstance(keywords, list):
        raise CatalogueError(f"expected a list, got {keywords!r}", card_id=card_id, field="keywords")
    for keyword in keywords:
        if keyword not in KEYWORDS:
            raise CatalogueError(
                f"unknown keyword {keyword!r}; known: {', '.join(KEYWORDS)}",
                card_id=card_id,
                field="keywords",
            )
    if len(set(keywords)) != len(keywords):
        raise CatalogueError(f"repeated keyword in {keywords}", card_id=card_id, field="keywords")

    signature = raw["signature"]
    if signature is not None:
        _require_str(signature, card_id=card_id, field="signature")
        if card_type == "GUNSLINGER":
            raise CatalogueError("a GUNSLINGER is not a SIGNATURE card", card_id=card_id, field="signature")

    effects_raw = raw["effects"]
    if not isinstance(effects_raw, list):
        raise CatalogueError(f"expected a list, got {effects_raw!r}", card_id=card_id, field="effects")
    effects = tuple(
        _parse_effect(effect, card_id=card_id, card_type=card_type, index=i)
        for i, effect in enumerate(effects_raw)
    )
    # TYPES OF CARDS: "ITEMS ... have two EFFECTS"; "your GUNSLINGER also has two EFFECTS";
    # ACTIONS and TRAPS exist only for their Effect.
    if card_type in ("ITEM", "GUNSLINGER") and len(effects) != 2:
        raise CatalogueError(
            f"a {card_type} has exactly two Effects, got {len(effects)}", card_id=card_id, field="effects"
        )
    if card_type in ("ACTION", "TRAP") and not effects:
        raise CatalogueError(f"a {card_type} needs an Effect", card_id=card_id, field="effects")

    provenance = _parse_provenance(
        raw["provenance"], CARD_PROVENANCE_FIELDS, card_id=card_id, where="provenance"
    )
    origin = raw["origin"]
    if origin not in ORIGINS:
        raise CatalogueError(
            f"unknown origin {origin!r}; known: {', '.join(ORIGINS)}", card_id=card_id, field="origin"
        )

    return Card(
        id=card_id,
        name=name,
        type=card_type,
        cost=cost,
        firepower=firepower,
        durability=durability,
        keywords=tuple(keywords),
        signature=signature,
        effects=effects,
        origin=origin,
        provenance=provenance,
    )


def catalogue_from_data(data: Any) -> Catalogue:
    """Validate raw catalogue data (the parsed JSON) and build a `Catalogue`; CatalogueError if broken."""
    if not isinstance(data, Mapping):
        raise CatalogueError(f"the catalogue must be an object, got {type(data).__name__}")
    unknown = sorted(set(data) - {"version", "rules_version", "cards"})
    if unknown:
        raise CatalogueError(f"unknown top-level field(s) {unknown}", field=unknown[0])
    version = data.get("version")
    if not isinstance(version, str) or not version.strip():
        raise CatalogueError(f"the catalogue needs a version string, got {version!r}", field="version")
    raw_cards = data.get("cards")
    if not isinstance(raw_cards, list) or not raw_cards:
        raise CatalogueError("the catalogue needs a non-empty list of cards", field="cards")

    cards = [_parse_card(raw, i) for i, raw in enumerate(raw_cards)]
    by_id: dict[str, Card] = {}
    by_key: dict[str, list[Card]] = {}
    for card in cards:
        if card.id in by_id:
            raise CatalogueError("duplicate id", card_id=card.id, field="id")
        by_id[card.id] = card
        # DECKBUILDING: names are what make cards "unique", so no two cards may share one, ignoring
        # case and accents -- except that a GUNSLINGER may share the name of one other card (the
        # rulebook's Banjo Winter BACKUP and the Banjo Winter GUNSLINGER to come).
        same = by_key.setdefault(card.key, [])
        if any(other.is_gunslinger == card.is_gunslinger for other in same):
            other = next(other for other in same if other.is_gunslinger == card.is_gunslinger)
            raise CatalogueError(
                f"duplicate name {card.name!r} (card {other.id!r} is {other.name!r})",
                card_id=card.id,
                field="name",
            )
        same.append(card)
    for card in cards:
        # An entry is looked up by id first: a name equal to another card's id would be unreachable.
        other = by_id.get(card.name.strip().casefold())
        if other is not None and other.id != card.id:
            raise CatalogueError(
                f"name {card.name!r} is the id of card {other.id!r}", card_id=card.id, field="name"
            )
    gunslinger_names = {card.name for card in cards if card.is_gunslinger}
    for card in cards:
        if card.signature is not None and card.signature not in gunslinger_names:
            raise CatalogueError(
                f"signature {card.signature!r} names no GUNSLINGER; "
                f"known: {', '.join(sorted(gunslinger_names))}",
                card_id=card.id,
                field="signature",
            )
    return Catalogue(
        version=version,
        cards=tuple(cards),
        _by_id=by_id,
        _by_key={key: tuple(value) for key, value in by_key.items()},
    )


def formats_from_data(data: Any, catalogue: Catalogue) -> dict[str, Format]:
    """Validate raw format data against a catalogue; every banned/restricted id must exist."""
    if not isinstance(data, Mapping) or not isinstance(data.get("formats"), list):
        raise CatalogueError("formats data must be an object with a 'formats' list", field="formats")
    formats: dict[str, Format] = {}
    for index, raw in enumerate(data["formats"]):
        if not isinstance(raw, Mapping):
            raise CatalogueError(f"formats[{index}]: expected an object")
        key = raw.get("key")
        if not isinstance(key, str) or not _SLUG.match(key):
            raise CatalogueError(f"formats[{index}]: key must be a slug, got {key!r}", field="key")
        where = f"format {key!r}"
        unknown = sorted(set(raw) - _FORMAT_FIELDS - _FORMAT_OPTIONAL)
        missing = sorted(_FORMAT_FIELDS - set(raw))
        if unknown or missing:
            raise CatalogueError(
                f"{where}: unknown field(s) {unknown}, missing field(s) {missing}",
                field=(unknown or missing)[0],
            )
        if key in formats:
            raise CatalogueError(f"{where}: duplicate key", field="key")
        ints = {}
        for int_field in ("deck_size", "max_epic", "max_signature", "max_restricted"):
            value = raw[int_field]
            if not _is_int(value) or value < 0:
                raise CatalogueError(
                    f"{where}: {int_field} must be an integer >= 0, got {value!r}", field=int_field
                )
            ints[int_field] = value
        for bool_field in ("unique_names", "signature_must_match"):
            if not isinstance(raw[bool_field], bool):
                raise CatalogueError(f"{where}: {bool_field} must be true or false", field=bool_field)
        lists = {}
        for list_field in ("banned", "restricted"):
            ids = raw[list_field]
            if not isinstance(ids, list) or not all(isinstance(card_id, str) for card_id in ids):
                raise CatalogueError(f"{where}: {list_field} must be a list of card ids", field=list_field)
            for card_id in ids:
                if card_id not in catalogue:
                    raise CatalogueError(
                        f"{where}: {list_field} names unknown card id {card_id!r}", field=list_field
                    )
            lists[list_field] = frozenset(ids)
        dated = raw.get("ban_list", {"version": "", "effective": ""})
        if (
            not isinstance(dated, Mapping)
            or set(dated) != {"version", "effective"}
            or not all(isinstance(dated[name], str) for name in dated)
        ):
            raise CatalogueError(
                f"{where}: ban_list must be {{version, effective}} strings", field="ban_list"
            )
        formats[key] = Format(
            key=key,
            name=_require_str(raw["name"], card_id=None, field=f"{where}.name"),
            description=_require_str(raw["description"], card_id=None, field=f"{where}.description"),
            unique_names=raw["unique_names"],
            signature_must_match=raw["signature_must_match"],
            banned=lists["banned"],
            restricted=lists["restricted"],
            ban_list_version=dated["version"],
            ban_list_effective=dated["effective"],
            **ints,
        )
    return formats


def prebuilt_from_data(data: Any, catalogue: Catalogue) -> tuple[PrebuiltDeck, ...]:
    """Validate the shape of pre-built decks (their legality is a test, not a load-time check)."""
    if not isinstance(data, Mapping) or not isinstance(data.get("decks"), list):
        raise CatalogueError("pre-built data must be an object with a 'decks' list", field="decks")
    decks = []
    seen = set()
    for index, raw in enumerate(data["decks"]):
        if not isinstance(raw, Mapping) or set(raw) != {"id", "name", "gunslinger", "description", "cards"}:
            raise CatalogueError(f"decks[{index}]: expected fields id, name, gunslinger, description, cards")
        deck_id = raw["id"]
        if not isinstance(deck_id, str) or not _SLUG.match(deck_id) or deck_id in seen:
            raise CatalogueError(f"decks[{index}]: id must be a unique slug, got {deck_id!r}", field="id")
        seen.add(deck_id)
        for card_id in [raw["gunslinger"], *raw["cards"]]:
            if card_id not in catalogue:
                raise CatalogueError(
                    f"pre-built deck {deck_id!r} names unknown card id {card_id!r}", field="cards"
                )
        decks.append(
            PrebuiltDeck(
                id=deck_id,
                name=raw["name"],
                gunslinger=raw["gunslinger"],
                cards=tuple(raw["cards"]),
                description=raw["description"],
            )
        )
    return tuple(decks)


# -- packaged data --------------------------------------------------------------------------------------


def read_data_file(filename: str) -> Any:
    """Parse one of this package's JSON data files (the only I/O an engine does)."""
    text = resources.files(__package__).joinpath(filename).read_text(encoding="utf-8")
    return json.loads(text)


@lru_cache(maxsize=1)
def load_catalogue() -> Catalogue:
    """The packaged catalogue (engines/ragnguns/catalogue.json), validated once."""
    return catalogue_from_data(read_data_file("catalogue.json"))


def load_formats(catalogue: Catalogue | None = None) -> dict[str, Format]:
    """The packaged formats (formats.json), keyed by format key."""
    catalogue = catalogue if catalogue is not None else load_catalogue()
    if catalogue is load_catalogue():
        return dict(_packaged_formats())
    return formats_from_data(read_data_file("formats.json"), catalogue)


@lru_cache(maxsize=1)
def _packaged_formats() -> dict[str, Format]:
    return formats_from_data(read_data_file("formats.json"), load_catalogue())


def get_format(key: str, catalogue: Catalogue | None = None) -> Format:
    formats = load_formats(catalogue)
    try:
        return formats[key]
    except KeyError:
        raise CatalogueError(
            f"no format {key!r}; known: {', '.join(sorted(formats))}", field="format"
        ) from None


def load_prebuilt(catalogue: Catalogue | None = None) -> tuple[PrebuiltDeck, ...]:
    """The packaged pre-built decks (prebuilt.json)."""
    catalogue = catalogue if catalogue is not None else load_catalogue()
    return prebuilt_from_data(read_data_file("prebuilt.json"), catalogue)
