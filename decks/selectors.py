"""Reads of Rag'n'Guns decks: checking a deck against a format, saved decks and their versions,
text export, the version an entry may freeze, and the catalogue.

The rules are engines/ragnguns' (`check_deck`, `parse_deck_text`, `deck_to_text`); nothing here
decides whether a deck is legal. This module shapes the input, bounds it, and reads what is stored.
Writes are in `decks.services`.

Codes raised (docs/api-decks.md): `deck/no_cards`, `deck/ambiguous_input`, `deck/unknown_format`,
`deck/too_large`, `catalogue/invalid_filter`, `request/invalid` (400); `deck/not_yours` (403);
`deck/not_found`, `deck/version_not_found`, `card/not_found`, `prebuilt/not_found` (404);
`deck/illegal` (422). Rule violations are not errors: a check that finds them succeeded, and they
come back as data.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.core.cache import cache
from django.db.models import OuterRef, QuerySet, Subquery
from django.utils import timezone

from core.cache import CACHE_UNAVAILABLE
from core.errors import ApplicationError, Forbidden, NotFound, Rejected
from decks.models import BanList, Deck, DeckVersion
from engines.chance import ChanceRequest, draw
from engines.ragnguns import (
    Card,
    Catalogue,
    DeckCheck,
    Format,
    PrebuiltDeck,
    check_deck,
    check_deck_text,
    deck_to_text,
    load_catalogue,
    load_formats,
    load_prebuilt,
    name_key,
    parse_deck_text,
)
from engines.ragnguns.catalogue import KEYWORDS, ORIGINS, TRAP_COST, TYPES
from engines.ragnguns.catalogue import BanList as EngineBanList
from engines.ragnguns.rules import sample_draws

GAME = "ragnguns"
DEFAULT_FORMAT = "standard"

# Input limits: a deck has 15 cards, so these only stop abuse (every unknown name costs a
# did-you-mean search), never a real deck or a real draft.
MAX_TEXT_LENGTH = 10_000
MAX_ENTRIES = 100
MAX_ENTRY_LENGTH = 100


class Malformed(ApplicationError):
    """The request is not a deck one can check: 400, whatever the rules would say."""

    status = 400
    code = "request/invalid"


# -- checking ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DeckCheckResult:
    """A check and what it was checked against; `source_text` is the pasted list ("" for JSON)."""

    check: DeckCheck
    catalogue_version: str
    source_text: str = ""
    meta: dict[str, str] = field(default_factory=dict)  # "Deck:", "Format:" ... lines of a pasted list
    ban_list_version: str = ""  # the format's ban list the check was made under

    @property
    def legal(self) -> bool:
        return self.check.legal

    @property
    def violations(self) -> list[dict[str, Any]]:
        return [violation.to_dict() for violation in self.check.violations]

    @property
    def warnings(self) -> list[dict[str, Any]]:
        """What the reader of a pasted list skipped (prose before the list), line by line."""
        return [warning.to_dict() for warning in self.check.warnings]

    def deck(self) -> dict[str, Any]:
        """The normalised deck: card ids, sorted; entries naming no card kept as given."""
        return {
            "format": self.check.format,
            "catalogue_version": self.catalogue_version,
            "gunslinger": self.check.gunslinger,
            "cards": list(self.check.cards),
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "legal": self.legal,
            "violations": self.violations,
            "warnings": self.warnings,
            "deck": self.deck(),
        }


def catalogue_get() -> Catalogue:
    return load_catalogue()


def format_get(*, key: str, status: int = 400, at: datetime | None = None) -> Format:
    """The format with this key (or printed name, any case) under the ban list in effect `at` (now
    by default); `deck/unknown_format` otherwise."""
    formats = load_formats(catalogue_get())
    found = formats.get(key)
    if found is None:
        wanted = name_key(str(key))
        found = next(
            (fmt for fmt in formats.values() if wanted in (name_key(fmt.key), name_key(fmt.name))), None
        )
    if found is None:
        raise ApplicationError(
            f"no format {key!r}; known: {', '.join(sorted(formats))}",
            code="deck/unknown_format",
            status=status,
        )
    published = _published_in_effect(found.key, at or timezone.now())
    return found if published is None else found.with_ban_list(published)


# -- ban lists ---------------------------------------------------------------------------------------------


def _engine_ban_list(row: BanList) -> EngineBanList:
    return EngineBanList(
        version=row.version,
        effective=row.effective_at.isoformat(),
        banned=frozenset(row.banned),
        restricted=frozenset(row.restricted),
        max_restricted=row.max_restricted,
    )


# Every check asks which list rules, so the published lists are kept in the cache (Redis when
# configured): a check then reads no database. Publishing clears the entry; another process sees a new
# list within BAN_LIST_CACHE_SECONDS. The moment a dated list takes effect needs no clearing: the
# cached rows carry their dates.
BAN_LIST_CACHE_SECONDS = 60


def _ban_list_cache_key(format_key: str) -> str:
    return f"decks:ban-lists:{format_key}"


def _published_in_effect(format_key: str, at: datetime) -> EngineBanList | None:
    rows = None
    with suppress(*CACHE_UNAVAILABLE):  # a cache that does not answer: read the database
        rows = cache.get(_ban_list_cache_key(format_key))
    if rows is None:
        rows = [
            _engine_ban_list(row)
            for row in BanList.objects.filter(format=format_key).order_by("effective_at", "id")
        ]
        with suppress(*CACHE_UNAVAILABLE):
            cache.set(_ban_list_cache_key(format_key), rows, BAN_LIST_CACHE_SECONDS)
    in_effect = [row for row in rows if datetime.fromisoformat(row.effective) <= at]
    return in_effect[-1] if in_effect else None


def ban_list_cache_clear(format_key: str) -> None:
    cache.delete(_ban_list_cache_key(format_key))


def ban_list_published_in_effect(*, format_key: str, at: datetime | None = None) -> BanList | None:
    """The latest list published for the format that has taken effect by `at`; None while the
    packaged list (formats.json) still rules."""
    return (
        BanList.objects.filter(format=format_key, effective_at__lte=at or timezone.now())
        .order_by("-effective_at", "-id")
        .first()
    )


def ban_list_history(*, format_key: str, at: datetime | None = None) -> list[dict[str, Any]]:
    """Every version of the format's ban list, oldest first: the packaged one, then each published
    one; `in_effect` marks the one that rules `at` (now), `upcoming` those not yet in effect."""
    fmt = load_formats(catalogue_get())[format_key]
    at = at or timezone.now()
    current = ban_list_published_in_effect(format_key=format_key, at=at)
    history = [
        {
            **fmt.ban_list().to_dict(),
            "source": "packaged",
            "notes": "",
            "in_effect": current is None,
            "upcoming": False,
        }
    ]
    for row in BanList.objects.filter(format=format_key).order_by("effective_at", "id"):
        history.append(
            {
                **_engine_ban_list(row).to_dict(),
                "source": "published",
                "notes": row.notes,
                "in_effect": current is not None and row.pk == current.pk,
                "upcoming": row.effective_at > at,
            }
        )
    return history


def ragnguns_match_options(options: dict[str, Any]) -> dict[str, Any]:
    """A new Rag'n'Guns match's options with the ban list in effect now written in (`ban_list`), so
    the match keeps the list it began under; left to the packaged list when no later one rules."""
    if options.get("ban_list"):
        return options
    fmt = format_get(key=options.get("format") or DEFAULT_FORMAT)
    if fmt.ban_list_version == load_formats(catalogue_get())[fmt.key].ban_list_version:
        return options
    return {**options, "format": fmt.key, "ban_list": json.dumps(fmt.ban_list().to_dict())}


def card_legality(*, card: Card) -> dict[str, Any]:
    """A card's standing in every format now, and its history through each format's ban lists."""
    standing = {}
    history = []
    for fmt in format_list():
        standing[fmt.key] = _standing(card.id, fmt.banned, fmt.restricted)
        for entry in ban_list_history(format_key=fmt.key):
            history.append(
                {
                    "format": fmt.key,
                    "version": entry["version"],
                    "effective": entry["effective"],
                    "status": _standing(card.id, entry["banned"], entry["restricted"]),
                }
            )
    return {"formats": standing, "ban_list_history": history}


def _standing(card_id: str, banned, restricted) -> str:
    return "banned" if card_id in banned else "restricted" if card_id in restricted else "legal"


def deck_entry_check(entry: str, where: str) -> None:
    if len(entry) > MAX_ENTRY_LENGTH:
        raise Malformed(
            f"{where}: a card name is at most {MAX_ENTRY_LENGTH} characters, got {len(entry)}",
            code="deck/too_large",
        )


def deck_check(
    *,
    format_key: str | None = None,
    gunslinger: str | None = None,
    cards: list[str] | None = None,
    text: str | None = None,
) -> DeckCheckResult:
    """Check a deck given as ids or names (`gunslinger`, `cards`) or as a pasted list (`text`).

    Returns every violation at once, text problems (`text/unparsable_line`, with line numbers)
    first. An illegal deck is a successful check. What is refused (400) is input that is not a deck:
    neither cards nor text (`deck/no_cards`), both (`deck/ambiguous_input`), an unknown format
    (`deck/unknown_format`), or more than the limits (`deck/too_large`).
    The format is `format_key`, else a "Format:" line of the text, else "standard", under the ban
    list in effect now (the one database read).
    """
    catalogue = catalogue_get()
    if text is not None and (cards is not None or gunslinger is not None):
        raise Malformed(
            'give either "text" (a pasted deck list) or "gunslinger" and "cards", not both',
            code="deck/ambiguous_input",
        )
    if text is not None:
        if not isinstance(text, str) or not text.strip():
            raise Malformed("the deck list is empty", code="deck/no_cards")
        if len(text) > MAX_TEXT_LENGTH:
            raise Malformed(
                f"a deck list is at most {MAX_TEXT_LENGTH} characters, got {len(text)}", code="deck/too_large"
            )
        parsed = parse_deck_text(text, catalogue)
        fmt = format_get(key=format_key or parsed.meta.get("format") or DEFAULT_FORMAT)
        if len(parsed.cards) > MAX_ENTRIES:
            raise Malformed(
                f"the deck list names {len(parsed.cards)} cards; at most {MAX_ENTRIES} are checked",
                code="deck/too_large",
            )
        for entry in [parsed.gunslinger or "", *parsed.cards]:
            deck_entry_check(entry, "the deck list")
        # Parsed above only to size it up and read its "Format:" line; check_deck_text parses again
        # (a few microseconds) so that text problems merge exactly as the library merges them.
        check = check_deck_text(catalogue, fmt, text)
        return DeckCheckResult(
            check,
            catalogue.version,
            source_text=text,
            meta=dict(parsed.meta),
            ban_list_version=fmt.ban_list_version,
        )
    if cards is None:
        raise Malformed(
            'give the deck as "cards" (card ids or names) or as "text" (a pasted list)', code="deck/no_cards"
        )
    if not isinstance(cards, (list, tuple)) or not all(isinstance(card, str) for card in cards):
        raise Malformed('"cards" must be a list of card ids or names')
    if gunslinger is not None and not isinstance(gunslinger, str):
        raise Malformed('"gunslinger" must be a card id or name')
    if not cards:
        raise Malformed("the deck has no cards", code="deck/no_cards")
    if len(cards) > MAX_ENTRIES:
        raise Malformed(
            f"the deck names {len(cards)} cards; at most {MAX_ENTRIES} are checked", code="deck/too_large"
        )
    for index, entry in enumerate([gunslinger or "", *cards]):
        deck_entry_check(entry, "gunslinger" if index == 0 else f"cards[{index - 1}]")
    fmt = format_get(key=format_key or DEFAULT_FORMAT)
    return deck_cards_check(fmt, gunslinger, list(cards))


def deck_cards_check(fmt: Format, gunslinger: str | None, cards: list[str]) -> DeckCheckResult:
    catalogue = catalogue_get()
    return DeckCheckResult(
        check_deck(catalogue, fmt, gunslinger, cards),
        catalogue.version,
        ban_list_version=fmt.ban_list_version,
    )


def deck_version_legality(version: DeckVersion) -> dict[str, dict[str, Any]]:
    """The version checked now in every format, each under the ban list in effect now."""
    legality = {}
    for fmt in format_list():
        result = deck_version_recheck(version, fmt)
        legality[fmt.key] = {
            "legal": result.legal,
            "ban_list_version": fmt.ban_list_version,
            "violations": result.violations,
        }
    return legality


def deck_version_warnings(version: DeckVersion) -> list[dict[str, Any]]:
    """The lines of a version's pasted list that its reader skipped; none for a deck sent as ids."""
    if not version.source_text:
        return []
    parsed = parse_deck_text(version.source_text, catalogue_get())
    return [warning.to_dict() for warning in parsed.warnings]


def deck_version_recheck(version: DeckVersion, fmt: Format) -> DeckCheckResult:
    """A saved version checked again, today, in `fmt`: from its pasted list if it came as one."""
    if version.source_text:
        return deck_check(format_key=fmt.key, text=version.source_text)
    return deck_cards_check(fmt, version.gunslinger or None, list(version.cards))


# -- reads of saved decks -------------------------------------------------------------------------


def deck_get_by_share_id(*, share_id: str, for_update: bool = False) -> Deck:
    """Anyone who has the share id may read the deck; `deck/not_found` otherwise."""
    queryset = Deck.objects.select_related("owner")
    if for_update:
        queryset = queryset.select_for_update()
    try:
        return queryset.get(share_id=str(share_id), game=GAME)
    except Deck.DoesNotExist:
        raise NotFound(f"no deck {share_id!r}", code="deck/not_found") from None


def _current_version_subquery(column: str) -> Subquery:
    return Subquery(DeckVersion.objects.filter(deck=OuterRef("pk")).order_by("-number").values(column)[:1])


def deck_list(*, owner=None) -> QuerySet[Deck]:
    """Decks annotated with their current version: `current_version_id`, `version` (its number),
    `legal` and `format` -- so the list filters on the current version's legality and format."""
    queryset = Deck.objects.filter(game=GAME).select_related("owner")
    if owner is not None:
        queryset = queryset.filter(owner=owner)
    return queryset.annotate(
        current_version_id=_current_version_subquery("id"),
        version=_current_version_subquery("number"),
        legal=_current_version_subquery("legal"),
        format=_current_version_subquery("format"),
    ).order_by("-updated_at", "-id")


def deck_list_for_owner(*, owner) -> QuerySet[Deck]:
    """The decks `owner` owns, newest edit first, annotated as `deck_list` says."""
    return deck_list(owner=owner)


def deck_current_versions(decks) -> dict[int, DeckVersion]:
    """The current version of each deck of `deck_list` (which annotates its id), by deck id, in one query."""
    ids = [deck.current_version_id for deck in decks]
    return {version.deck_id: version for version in DeckVersion.objects.filter(pk__in=ids)}


def deck_version_get(*, deck: Deck, number: int | None = None) -> DeckVersion:
    """Version `number` of `deck`, or its current version; `deck/version_not_found` otherwise."""
    queryset = deck.versions.all()
    version = (
        queryset.order_by("-number").first() if number is None else queryset.filter(number=number).first()
    )
    if version is None:
        raise NotFound(f"deck {deck.share_id} has no version {number}", code="deck/version_not_found")
    return version


def deck_versions(*, deck: Deck) -> QuerySet[DeckVersion]:
    return deck.versions.order_by("number")


def deck_export_text(*, deck: Deck, version: DeckVersion) -> str:
    """The version as a deck list a person can read and paste back (`deck_to_text`'s canonical form),
    headed by a "Deck:" line with its name and a "Format:" line, so that pasting it back names the
    deck the same and checks the same format."""
    catalogue = catalogue_get()
    body = deck_to_text(catalogue, version.gunslinger or None, version.cards)
    head = []
    if deck.name.strip():
        head.append(f"Deck: {' '.join(deck.name.split())}")
    head.append(f"Format: {version.format}")
    return "\n".join(head) + "\n" + body


def deck_version_diff(*, old: DeckVersion, new: DeckVersion) -> dict[str, Any]:
    """What changed from one version to another, as deck builders read it: cards in and out (with
    copies), the GUNSLINGER, the format and the verdict."""
    catalogue = catalogue_get()
    before, after = Counter(old.cards), Counter(new.cards)

    def listed(counter: Counter) -> list[dict[str, Any]]:
        return [
            {"card": card_id, "name": _card_name(catalogue, card_id), "copies": copies}
            for card_id, copies in sorted(counter.items())
        ]

    changes: dict[str, Any] = {
        "from": old.number,
        "to": new.number,
        "cards_in": listed(after - before),
        "cards_out": listed(before - after),
    }
    for field_name in ("gunslinger", "format", "legal"):
        was, now = getattr(old, field_name), getattr(new, field_name)
        changes[field_name] = {
            "from": was if was != "" else None,
            "to": now if now != "" else None,
            "changed": was != now,
        }
    return changes


def _card_name(catalogue: Catalogue, card_id: str) -> str:
    card = catalogue.resolve(card_id)
    return card.name if card is not None else card_id


MAX_SAMPLE_TURNS = 10
MAX_SAMPLE_SEED_LENGTH = 64


def deck_sample_draws(*, version: DeckVersion, seed: str, turns: int = 3) -> dict[str, Any]:
    """The cards drawn on the first `turns` turns after one seeded shuffle, by the engine's own rules.

    The shuffle is drawn as a match draws it (engines.chance, a "deck" shuffle request) from the
    SHA-256 of `seed`, so the same seed shows the same draws to anyone trying the deck; a match's
    shuffles come from its own committed seed, never from this one."""
    if not isinstance(seed, str) or not 1 <= len(seed) <= MAX_SAMPLE_SEED_LENGTH:
        raise Malformed(f"a seed is 1 to {MAX_SAMPLE_SEED_LENGTH} characters", code="deck/bad_seed")
    if not 1 <= turns <= MAX_SAMPLE_TURNS:
        raise Malformed(f"turns is between 1 and {MAX_SAMPLE_TURNS}", code="deck/bad_turns")
    catalogue = catalogue_get()
    cards = [card for card in version.cards if catalogue.resolve(card) is not None]
    if not cards:
        raise Rejected("this version has no known cards to draw", code="deck/no_cards")
    request = ChanceRequest.shuffle("deck", size=len(cards))
    permutation = draw(hashlib.sha256(seed.encode()).digest(), 0, request)["permutation"]
    turns_drawn = sample_draws(cards, permutation, turns=turns)
    return {
        "version": version.number,
        "seed": seed,
        "turns": [
            {"turn": number, "cards": [{"card": card, "name": _card_name(catalogue, card)} for card in drawn]}
            for number, drawn in enumerate(turns_drawn, start=1)
        ],
        "left_in_deck": len(cards) - sum(len(drawn) for drawn in turns_drawn),
    }


def deck_version_judged_now(version: DeckVersion, *, format_key: str | None = None) -> DeckCheckResult:
    """The version judged now: in `format_key` (default its own), under the ban list in effect."""
    return deck_version_recheck(version, format_get(key=format_key or version.format))


def deck_version_for_entry(
    *, share_id: str, version: int | None = None, user, format_key: str | None = None
) -> DeckVersion:
    """The deck version `user` enters into a tournament or ladder: theirs, and legal.

    `version` None means the current one. Refuses with `deck/not_found` or `deck/version_not_found`
    (404), `deck/not_yours` (403), or `deck/illegal` (422, carrying `violations`). Legality is judged
    again when the catalogue or the format's ban list changed since the version was saved, or when
    the event plays another `format_key` than the version was checked in. It does not freeze: the
    caller registers, then calls `deck_version_freeze` in the same transaction.
    """
    deck = deck_get_by_share_id(share_id=share_id)
    deck_require_owner(deck, user)
    chosen = deck_version_get(deck=deck, number=version)
    catalogue = catalogue_get()
    fmt = format_get(key=format_key or chosen.format)
    legal, violations = chosen.legal, chosen.violations
    if (
        chosen.catalogue_version != catalogue.version
        or fmt.key != chosen.format
        or fmt.ban_list_version != chosen.ban_list_version
    ):
        again = deck_version_recheck(chosen, fmt)
        legal, violations = again.legal, again.violations
    if not legal:
        raise Rejected(
            f"version {chosen.number} of deck {deck.share_id} is not legal in {fmt.name}: "
            + "; ".join(violation["detail"] for violation in violations),
            code="deck/illegal",
            violations=violations,
        )
    return chosen


def deck_version_brought(version: DeckVersion) -> dict[str, Any]:
    """The deck a seat brings to a match: the fields of the engine's opening `bring_deck` action."""
    return {"gunslinger": version.gunslinger, "cards": list(version.cards)}


def deck_require_owner(deck: Deck, user) -> None:
    if user is None or not getattr(user, "is_authenticated", False) or deck.owner_id != user.pk:
        raise Forbidden(f"deck {deck.share_id} is not yours", code="deck/not_yours")


# -- the catalogue ----------------------------------------------------------------------------------


def card_list(
    *,
    type: str | None = None,
    keyword: str | None = None,
    cost: str | None = None,
    signature: str | None = None,
    origin: str | None = None,
    search: str | None = None,
) -> tuple[Card, ...]:
    """Catalogue cards matching every given filter, sorted by name; an impossible value of `type`,
    `keyword`, `cost` or `origin` is `catalogue/invalid_filter` (400), not an empty list."""
    catalogue = catalogue_get()

    def invalid(name: str, value: str, known) -> ApplicationError:
        return Malformed(
            f"{name} {value!r} is not one of {', '.join(known)}", code="catalogue/invalid_filter"
        )

    if type and type.upper() not in TYPES:
        raise invalid("type", type, TYPES)
    if keyword and keyword.upper() not in KEYWORDS:
        raise invalid("keyword", keyword, KEYWORDS)
    if origin and origin not in ORIGINS:
        raise invalid("origin", origin, ORIGINS)
    if cost:
        cost = cost.strip()
        if cost.upper() != TRAP_COST and not cost.isdigit():
            raise Malformed(
                f"cost {cost!r} is a whole number or {TRAP_COST!r}", code="catalogue/invalid_filter"
            )
    return catalogue.filter(
        type=type or None,
        keyword=keyword or None,
        cost=cost or None,
        signature=signature or None,
        origin=origin or None,
        search=search or None,
    )


def card_get(*, card_id: str) -> Card:
    """A card by id (or printed name); `card/not_found` with a did-you-mean otherwise."""
    catalogue = catalogue_get()
    card = catalogue.resolve(card_id)
    if card is None:
        close = catalogue.suggest(card_id)
        hint = f"; did you mean {', '.join(repr(name) for name in close)}?" if close else ""
        raise NotFound(f"no card {card_id!r} in catalogue {catalogue.version}{hint}", code="card/not_found")
    return card


def format_list() -> list[Format]:
    """Every format, each under the ban list in effect now."""
    return [format_get(key=key) for key in sorted(load_formats(catalogue_get()))]


def prebuilt_list() -> list[dict[str, Any]]:
    """The pre-built decks, each with its legality in every format and its text."""
    return [_describe_prebuilt(deck) for deck in load_prebuilt(catalogue_get())]


def prebuilt_get(*, deck_id: str) -> dict[str, Any]:
    for deck in load_prebuilt(catalogue_get()):
        if deck.id == deck_id:
            return _describe_prebuilt(deck)
    raise NotFound(f"no pre-built deck {deck_id!r}", code="prebuilt/not_found")


def _describe_prebuilt(deck: PrebuiltDeck) -> dict[str, Any]:
    catalogue = catalogue_get()
    return {
        "id": deck.id,
        "name": deck.name,
        "description": deck.description,
        "gunslinger": deck.gunslinger,
        "cards": list(deck.cards),
        "legal_in": {
            fmt.key: check_deck(catalogue, fmt, deck.gunslinger, deck.cards).legal for fmt in format_list()
        },
        "text": deck_to_text(catalogue, deck.gunslinger, deck.cards, title=deck.name),
    }
