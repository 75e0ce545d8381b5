"""Rag'n'Guns deck legality and the plain-text deck list.

Rulebook section: DECKBUILDING (rules 0.3) -- "A deck has a GUNSLINGER and 15 unique cards. In other
words, all cards must have a different name. This includes the GUNSLINGER"; "You can only have 3
EPIC cards"; "You can only have 1 SIGNATURE card and only if your GUNSLINGER matches." The numbers
and the banlist / restricted list come from a `Format` (formats.json).

Like Pokémon Showdown's team validator, `check_deck` never stops at the first problem: it returns
EVERY violation, each with a stable code (listed in `DECK_CODES`, documented in
docs/games/ragnguns.md -- never rename one), the cards concerned and a fix hint. It never raises on
a bad deck; garbage in gives violations out.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from engines.ragnguns.catalogue import TYPE_ORDER, Card, Catalogue, Format, get_format, name_key

DECK_CODES = (
    "deck/no_gunslinger",  # the gunslinger slot is empty
    "deck/unknown_gunslinger",  # the gunslinger slot names no card
    "deck/not_a_gunslinger",  # the gunslinger slot holds a card that is not a GUNSLINGER
    "deck/gunslinger_in_deck",  # a GUNSLINGER card among the deck's cards
    "deck/unknown_card",  # a deck entry names no card (hint: did you mean)
    "deck/wrong_size",  # not exactly deck_size cards
    "deck/duplicate_name",  # two cards with the same name
    "deck/shares_gunslinger_name",  # a card with the GUNSLINGER's name
    "deck/too_many_epic",  # more than max_epic EPIC cards
    "deck/too_many_signature",  # more than max_signature SIGNATURE cards
    "deck/foreign_signature",  # a SIGNATURE card of another GUNSLINGER
    "deck/banned",  # a card (or the GUNSLINGER) on the format's banlist
    "deck/too_many_restricted",  # more than max_restricted cards from the restricted list
)
TEXT_CODES = (
    "text/unparsable_line",  # a line of a pasted deck list that is not a card, header, comment or blank
    "text/duplicate_gunslinger",  # a second "Gunslinger:" line
)
# Warnings never make a deck illegal: they say what the reader skipped, so nothing vanishes unseen.
WARNING_CODES = (
    "text/ignored_line",  # a line of prose before the list begins (a note, a greeting), skipped
)
_ORDER = {code: i for i, code in enumerate(TEXT_CODES + DECK_CODES)}


@dataclass(frozen=True)
class Violation:
    code: str  # one of DECK_CODES or TEXT_CODES
    detail: str  # what is wrong, in words
    cards: list[str] = field(default_factory=list)  # card ids concerned (unknown entries as given)
    hint: str = ""  # how to fix it
    line: int | None = None  # 1-based line of a pasted deck list, for text/* codes

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "code": self.code,
            "detail": self.detail,
            "cards": list(self.cards),
            "hint": self.hint,
        }
        if self.line is not None:
            data["line"] = self.line
        return data


@dataclass(frozen=True)
class DeckCheck:
    legal: bool
    violations: list[Violation]
    gunslinger: str | None  # card id, or the entry as given when unknown; None when missing
    cards: list[str]  # card ids (unknown entries as given), sorted
    format: str  # format key
    warnings: list[Violation] = field(default_factory=list)  # WARNING_CODES: what a pasted list lost

    @property
    def codes(self) -> list[str]:
        return [violation.code for violation in self.violations]

    def to_dict(self) -> dict[str, Any]:
        return {
            "legal": self.legal,
            "format": self.format,
            "gunslinger": self.gunslinger,
            "cards": list(self.cards),
            "violations": [violation.to_dict() for violation in self.violations],
            "warnings": [warning.to_dict() for warning in self.warnings],
        }


# -- wording helpers ---------------------------------------------------------------------------------


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _q(name: str) -> str:
    """A name in quotes for messages: 'Jenny's Parasol' (repr would switch quote styles)."""
    return f"'{name}'"


def _quoted(names: Iterable[str]) -> str:
    return ", ".join(_q(name) for name in names)


def _did_you_mean(suggestions: list[str]) -> str:
    if not suggestions:
        return ""
    if len(suggestions) == 1:
        return f"did you mean {_q(suggestions[0])}?"
    return f"did you mean {', '.join(_q(s) for s in suggestions[:-1])} or {_q(suggestions[-1])}?"


def _choose_gunslinger(catalogue: Catalogue) -> str:
    return "choose a GUNSLINGER: " + ", ".join(
        card.name for card in sorted(catalogue.gunslingers(), key=lambda c: c.key)
    )


def _as_text(entry: Any) -> str:
    return entry if isinstance(entry, str) else str(entry)


# -- the validator -------------------------------------------------------------------------------------


def check_deck(
    catalogue: Catalogue,
    fmt: Format | str,
    gunslinger: str | None,
    cards: Iterable[str],
) -> DeckCheck:
    """Check a deck against a format and return every violation at once.

    `gunslinger` and each of `cards` are card ids or printed names (any case, accents optional).
    In the gunslinger slot a name shared by a GUNSLINGER and another card means the GUNSLINGER;
    among the cards it means the other card.
    """
    if isinstance(fmt, str):
        fmt = get_format(fmt, catalogue)
    violations: list[Violation] = []

    # -- the GUNSLINGER slot: "A deck has a GUNSLINGER" ----------------------------------------------
    slot_card: Card | None = None  # whatever card the slot names
    slinger: Card | None = None  # the slot's card when it really is a GUNSLINGER
    normal_gunslinger: str | None = None
    if gunslinger is None or not _as_text(gunslinger).strip():
        violations.append(
            Violation("deck/no_gunslinger", "the deck has no GUNSLINGER", [], _choose_gunslinger(catalogue))
        )
    else:
        given = _as_text(gunslinger).strip()  # spaces around a name mean nothing, in a list or in JSON
        slot_card = catalogue.resolve(given, gunslinger=True)
        if slot_card is None:
            normal_gunslinger = given
            hint = _did_you_mean(catalogue.suggest(given, gunslinger=True)) or _choose_gunslinger(catalogue)
            violations.append(
                Violation(
                    "deck/unknown_gunslinger", f"no GUNSLINGER is called {_q(given.strip())}", [given], hint
                )
            )
        else:
            normal_gunslinger = slot_card.id
            if slot_card.is_gunslinger:
                slinger = slot_card
            else:
                violations.append(
                    Violation(
                        "deck/not_a_gunslinger",
                        f"{_q(slot_card.name)} is a {slot_card.type}, not a GUNSLINGER",
                        [slot_card.id],
                        _choose_gunslinger(catalogue),
                    )
                )

    # -- the cards -------------------------------------------------------------------------------------
    if cards is None:
        cards = []
    elif isinstance(cards, str):  # one card, not a list of its letters
        cards = [cards]
    entries = [_as_text(entry).strip() for entry in cards]
    resolved: list[tuple[str, Card | None]] = [(e, catalogue.resolve(e, gunslinger=False)) for e in entries]
    known = [card for _, card in resolved if card is not None]

    for given, card in resolved:
        if card is None:
            hint = _did_you_mean(catalogue.suggest(given, gunslinger=False)) or (
                f"check the spelling against the catalogue (version {catalogue.version})"
            )
            violations.append(
                Violation("deck/unknown_card", f"no card is called {_q(given.strip())}", [given], hint)
            )
        elif card.is_gunslinger:
            violations.append(
                Violation(
                    "deck/gunslinger_in_deck",
                    f"{_q(card.name)} is a GUNSLINGER: it goes in the gunslinger slot, not among the cards",
                    [card.id],
                    f"remove {_q(card.name)} from the cards",
                )
            )

    if len(entries) != fmt.deck_size:
        difference = len(entries) - fmt.deck_size
        violations.append(
            Violation(
                "deck/wrong_size",
                f"the deck has {_plural(len(entries), 'card')}; "
                f"a {fmt.name} deck has exactly {fmt.deck_size}",
                [],
                f"remove {_plural(difference, 'card')}"
                if difference > 0
                else f"add {_plural(-difference, 'card')}",
            )
        )

    if fmt.unique_names:
        # "all cards must have a different name" -- by printed name, ignoring case and accents.
        by_name: dict[str, list[Card]] = {}
        for card in known:
            by_name.setdefault(card.key, []).append(card)
        for same in by_name.values():
            if len(same) > 1:
                name = same[0].name
                violations.append(
                    Violation(
                        "deck/duplicate_name",
                        f"{len(same)} cards are named {_q(name)}; all cards must have a different name",
                        [card.id for card in same],
                        f"keep one {_q(name)} and remove {len(same) - 1}",
                    )
                )
        # "This includes the GUNSLINGER": no card may carry the GUNSLINGER's name.
        if slinger is not None:
            namesakes = [card for card in known if card.key == slinger.key]
            if namesakes:
                violations.append(
                    Violation(
                        "deck/shares_gunslinger_name",
                        f"{_plural(len(namesakes), 'card')} named {_q(slinger.name)} like your GUNSLINGER; "
                        "the GUNSLINGER's name counts among the deck's names",
                        [card.id for card in namesakes],
                        f"remove {_q(slinger.name)} from the cards, or choose another GUNSLINGER",
                    )
                )

    # "You can only have 3 EPIC cards" -- every copy counts (copies are also duplicate_name).
    epics = [card for card in known if card.is_epic]
    if len(epics) > fmt.max_epic:
        extra = len(epics) - fmt.max_epic
        violations.append(
            Violation(
                "deck/too_many_epic",
                f"{_plural(len(epics), 'EPIC card')}; a {fmt.name} deck may have at most {fmt.max_epic}",
                [card.id for card in epics],
                f"remove {_plural(extra, 'EPIC card')} (one of: {_quoted(sorted({c.name for c in epics}))})",
            )
        )

    # "You can only have 1 SIGNATURE card and only if your GUNSLINGER matches."
    signatures = [card for card in known if card.signature is not None]
    if len(signatures) > fmt.max_signature:
        extra = len(signatures) - fmt.max_signature
        violations.append(
            Violation(
                "deck/too_many_signature",
                f"{_plural(len(signatures), 'SIGNATURE card')}; "
                f"a {fmt.name} deck may have at most {fmt.max_signature}",
                [card.id for card in signatures],
                f"remove {_plural(extra, 'SIGNATURE card')} "
                f"(one of: {_quoted(sorted({c.name for c in signatures}))})",
            )
        )
    # Judged only against a real GUNSLINGER: with an empty or wrong slot the slot's own violation
    # says what to fix first (see docs/games/ragnguns.md).
    if fmt.signature_must_match and slinger is not None:
        for card in signatures:
            if card.signature != slinger.name:
                violations.append(
                    Violation(
                        "deck/foreign_signature",
                        f"{_q(card.name)} is a SIGNATURE card of {card.signature}, "
                        f"and your GUNSLINGER is {slinger.name}",
                        [card.id],
                        f"remove {_q(card.name)}, or choose {card.signature} as GUNSLINGER",
                    )
                )

    # Format banlist: applies to the GUNSLINGER slot too.
    if slot_card is not None and slot_card.id in fmt.banned:
        violations.append(
            Violation(
                "deck/banned",
                f"{_q(slot_card.name)} is banned in {fmt.name}",
                [slot_card.id],
                "choose another GUNSLINGER",
            )
        )
    for card in known:
        if card.id in fmt.banned:
            violations.append(
                Violation(
                    "deck/banned",
                    f"{_q(card.name)} is banned in {fmt.name}",
                    [card.id],
                    f"remove {_q(card.name)}",
                )
            )

    # Restricted list: a budget shared by the whole list, "at most N cards from the restricted list".
    restricted = [card for card in known if card.id in fmt.restricted]
    if len(restricted) > fmt.max_restricted:
        extra = len(restricted) - fmt.max_restricted
        violations.append(
            Violation(
                "deck/too_many_restricted",
                f"{_plural(len(restricted), 'card')} from the {fmt.name} restricted list; "
                f"at most {fmt.max_restricted}",
                [card.id for card in restricted],
                f"remove {extra} of: {_quoted(sorted({c.name for c in restricted}))}",
            )
        )

    violations.sort(key=lambda v: _ORDER[v.code])  # stable: same-code violations keep deck order
    normal_cards = sorted(card.id if card is not None else given for given, card in resolved)
    return DeckCheck(
        legal=not violations,
        violations=violations,
        gunslinger=normal_gunslinger,
        cards=normal_cards,
        format=fmt.key,
    )


# -- the plain-text deck list ---------------------------------------------------------------------------

MAX_LINE_COUNT = 99  # "2 Machete" is parsed (and reported as a duplicate); "100000 Machete" is not

_TYPE_HEADERS = {
    "action": "ACTION",
    "actions": "ACTION",
    "weapon": "WEAPON",
    "weapons": "WEAPON",
    "item": "ITEM",
    "items": "ITEM",
    "trap": "TRAP",
    "traps": "TRAP",
    "backup": "BACKUP",
    "backups": "BACKUP",
    "gunslinger": "GUNSLINGER",
    "gunslingers": "GUNSLINGER",
}
_OTHER_HEADERS = {"deck", "cards", "maindeck", "unknown", "other", "others"}
_TYPE_TITLES = {
    "GUNSLINGER": "Gunslingers",
    "ACTION": "Actions",
    "WEAPON": "Weapons",
    "ITEM": "Items",
    "TRAP": "Traps",
    "BACKUP": "Backups",
}
_META_KEYS = {"deck", "name", "title", "format"}

_KEY_VALUE = re.compile(r"^(?P<key>[A-Za-z ]+?)\s*:\s*(?P<value>.*)$")
_COUNTED_HEADER = re.compile(r"^(?P<title>.*?)\s*\(\s*(?P<count>\d+)\s*\)\s*:?$")
_PREFIX_COUNT = re.compile(r"^(?P<count>\d+)\s*[xX×]?\s+(?P<name>.+)$")
_PREFIX_COUNT_GLUED = re.compile(r"^(?P<count>\d+)[xX×](?P<name>\S.*)$")
_SUFFIX_COUNT = re.compile(r"^(?P<name>.+?)\s+[xX×]\s*(?P<count>\d+)$")
_LONE_COUNT = re.compile(r"^[xX×]\s*\d+$")  # "x3" alone
_BULLET = re.compile(r"^[-*•]\s+")
_INLINE_COMMENT = re.compile(r"\s+(?:#|//).*$")
_META_COMMENT = re.compile(r"\s{2,}(?:#|//).*$")
_COMMENT_STARTS = ("#", "//")
# Pasted from a file saved on Windows, or from a page: byte-order marks and zero-width characters
# are invisible in the list but would hide a card's name from the catalogue.
_INVISIBLE = dict.fromkeys(map(ord, "\ufeff\u200b\u200c\u200d\u2060"))


@dataclass(frozen=True)
class ParsedDeck:
    gunslinger: str | None  # as written (feed to check_deck)
    cards: list[str]  # as written, one entry per copy
    problems: list[Violation]  # text/* codes, with line numbers
    meta: dict[str, str] = field(default_factory=dict)  # "Deck:", "Name:", "Title:", "Format:" lines
    warnings: list[Violation] = field(default_factory=list)  # WARNING_CODES, with line numbers


@dataclass(frozen=True)
class _Line:
    number: int
    name: str
    count: int
    section: str | None  # the type named by the last header, if any


def _has_letter(text: str) -> bool:
    return any(ch.isalpha() for ch in text)


def _unparsable(number: int, raw: str, why: str, hint: str) -> Violation:
    return Violation(
        "text/unparsable_line", f"line {number}: {why}: {_q(raw.strip())}", [], hint, line=number
    )


_LINE_HINT = "write one card a line, like 'Machete', '1 Machete', '1x Machete' or 'Machete x1'"


def _read_count(number: int, raw: str, line: str) -> tuple[str, int] | Violation:
    """Split "2 Machete" / "2x Machete" / "Machete x2" into (name, count)."""
    name, count = line, None
    match = _PREFIX_COUNT.match(line) or _PREFIX_COUNT_GLUED.match(line)
    if match:
        name, count = match["name"].strip(), int(match["count"])
    suffix = _SUFFIX_COUNT.match(name)
    if suffix:
        if count is not None:
            return _unparsable(number, raw, "two counts on one line", _LINE_HINT)
        name, count = suffix["name"].strip(), int(suffix["count"])
    if count is None:
        count = 1
    if not _has_letter(name) or _LONE_COUNT.match(name):
        return _unparsable(number, raw, "no card name", _LINE_HINT)
    if not 1 <= count <= MAX_LINE_COUNT:
        return _unparsable(number, raw, f"a count must be between 1 and {MAX_LINE_COUNT}", _LINE_HINT)
    return name, count


def parse_deck_text(text: str, catalogue: Catalogue) -> ParsedDeck:
    """Read a pasted deck list. Never raises: lines it cannot read become `text/unparsable_line`.

    One card a line, optionally counted ("1 Machete", "2x Machete", "Machete x2"); blank lines,
    `#` and `//` comments, byte-order marks and section headers ("Weapons (3)", "Traps:") are
    skipped. Lines of prose before the list begins (a greeting, a note on the build: lines that
    name no card and come close to none) are skipped with a `text/ignored_line` warning; once the
    list has begun, such a line is an unknown card. The GUNSLINGER is the "Gunslinger: Buffalo Kid"
    line; without one, the first GUNSLINGER under a "Gunslinger" header or else the first line
    naming a GUNSLINGER card. Names are kept as written for `check_deck`, which reports unknown
    names with a did-you-mean.
    """
    problems: list[Violation] = []
    warnings: list[Violation] = []
    meta: dict[str, str] = {}
    explicit: list[tuple[int, str]] = []  # (line number, name) of "Gunslinger: X" lines
    card_lines: list[_Line] = []
    section: str | None = None
    list_begun = False

    for number, raw in enumerate(str(text).translate(_INVISIBLE).splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith(_COMMENT_STARTS):
            continue
        # A deck's name keeps a "#" or "//" of its own (it survives an export and an import): on these
        # lines only a comment set off by two or more spaces is one.
        key_value = _KEY_VALUE.match(_META_COMMENT.sub("", line))
        if key_value and name_key(key_value["key"]) in _META_KEYS and key_value["value"].strip():
            meta[name_key(key_value["key"])] = key_value["value"].strip()
            continue
        line = _INLINE_COMMENT.sub("", line)
        line = _BULLET.sub("", line).strip()
        if not line:
            continue

        # Whole-line card names first, so a future card called "Traps" or "Big Guns (2)" still reads.
        if catalogue.resolve(line) is not None:
            card_lines.append(_Line(number, line, 1, section))
            list_begun = True
            continue

        key_value = _KEY_VALUE.match(line)
        if key_value:
            key, value = name_key(key_value["key"]), key_value["value"].strip()
            if key == "gunslinger" and value:
                explicit.append((number, value))
                list_begun = True
                continue
            if key in _META_KEYS and value:
                meta[key] = value
                continue
            if not value:  # "Weapons:", "Gunslinger:", "Sideboard:" ...
                section = _TYPE_HEADERS.get(key)
                list_begun = True
                continue

        counted = _COUNTED_HEADER.match(line)
        if counted:
            title = counted["title"]
            if catalogue.resolve(title) is not None:
                hint = f"write '{int(counted['count'])} {title.strip()}' to count copies"
                problems.append(_unparsable(number, raw, "a card name followed by a bracketed count", hint))
                list_begun = True
                continue
            if _has_letter(title):
                section = _TYPE_HEADERS.get(name_key(title))
                list_begun = True
                continue

        bare_key = name_key(line)
        if bare_key in _TYPE_HEADERS or bare_key in _OTHER_HEADERS:
            section = _TYPE_HEADERS.get(bare_key)
            list_begun = True
            continue

        read = _read_count(number, raw, line)
        if isinstance(read, Violation):
            problems.append(read)
            list_begun = True
            continue
        name, count = read
        if not list_begun and name == line and not catalogue.suggest(name):
            warnings.append(
                Violation(
                    "text/ignored_line",
                    f"line {number}: names no card and comes before the list; skipped as a note: "
                    f"{_q(raw.strip())}",
                    [],
                    "if it is a card, check its spelling; notes can also start with '#' or '//'",
                    line=number,
                )
            )
            continue
        card_lines.append(_Line(number, name, count, section))
        list_begun = True

    gunslinger: str | None = None
    cards: list[str] = []
    if explicit:
        gunslinger = explicit[0][1]
        for number, name in explicit[1:]:
            problems.append(
                Violation(
                    "text/duplicate_gunslinger",
                    f"line {number}: a second 'Gunslinger:' line ({_q(name)}); "
                    f"the deck's GUNSLINGER is {_q(gunslinger)}",
                    [name],
                    "keep one 'Gunslinger:' line",
                    line=number,
                )
            )
    for entry in card_lines:
        count = entry.count
        if gunslinger is None and not explicit:
            in_deck_context = catalogue.resolve(entry.name, gunslinger=False)
            as_gunslinger = catalogue.resolve(entry.name, gunslinger=True)
            # Under a "Gunslinger" header (even a blank "Gunslinger:" line) only a GUNSLINGER, or a
            # name that is no card at all, fills the slot: a Machete there stays a card, and the
            # empty slot is reported as `deck/no_gunslinger`.
            under_header = entry.section == "GUNSLINGER" and (
                as_gunslinger is None or as_gunslinger.is_gunslinger
            )
            if under_header or (in_deck_context is not None and in_deck_context.is_gunslinger):
                gunslinger = entry.name
                count -= 1
        cards.extend([entry.name] * count)

    problems.sort(key=lambda v: v.line or 0)
    return ParsedDeck(gunslinger=gunslinger, cards=cards, problems=problems, meta=meta, warnings=warnings)


def check_deck_text(catalogue: Catalogue, fmt: Format | str, text: str) -> DeckCheck:
    """Parse a pasted deck list and check it; text problems come first and make the deck illegal."""
    parsed = parse_deck_text(text, catalogue)
    result = check_deck(catalogue, fmt, parsed.gunslinger, parsed.cards)
    violations = parsed.problems + result.violations
    return DeckCheck(
        legal=not violations,
        violations=violations,
        gunslinger=result.gunslinger,
        cards=result.cards,
        format=result.format,
        warnings=parsed.warnings,
    )


def _single_line(text: str) -> str:
    return " ".join(str(text).split())


def deck_to_text(
    catalogue: Catalogue,
    gunslinger: str | None,
    cards: Iterable[str],
    *,
    title: str | None = None,
) -> str:
    """Write a deck in the canonical text form that `parse_deck_text` reads back to the same deck.

    A "Deck: <title>" line when titled, a "Gunslinger: <name>" line, then the cards grouped by type
    (Actions, Weapons, Items, Traps, Backups) under "Weapons (3)" headers, each group sorted by name;
    copies as "2 Machete"; entries naming no card last, under "Unknown (n)", as given. A name that
    would read back as another card (a GUNSLINGER sharing a BACKUP's name) is written as its id.
    """
    lines: list[str] = []
    if title:
        lines.append(f"Deck: {_single_line(title)}")
    if gunslinger is not None and str(gunslinger).strip():
        slot = catalogue.resolve(str(gunslinger), gunslinger=True)
        if slot is None:
            lines.append(f"Gunslinger: {_single_line(gunslinger)}")
        else:
            same = catalogue.resolve(slot.name, gunslinger=True)
            lines.append(f"Gunslinger: {slot.name if same is slot else slot.id}")

    groups: dict[str, Counter[str]] = {card_type: Counter() for card_type in TYPE_ORDER}
    unknown: Counter[str] = Counter()
    for entry in cards:
        card = catalogue.resolve(_as_text(entry), gunslinger=False)
        if card is None:
            unknown[_single_line(_as_text(entry))] += 1
        else:
            groups[card.type][card.id] += 1

    def label(card: Card) -> str:
        return card.name if catalogue.resolve(card.name, gunslinger=False) is card else card.id

    for card_type in TYPE_ORDER:
        counter = groups[card_type]
        if not counter:
            continue
        lines.append("")
        lines.append(f"{_TYPE_TITLES[card_type]} ({sum(counter.values())})")
        for card in sorted((catalogue.get(card_id) for card_id in counter), key=lambda c: (c.key, c.id)):
            copies = counter[card.id]
            lines.append(f"{copies} {label(card)}" if copies > 1 else label(card))
    if unknown:
        lines.append("")
        lines.append(f"Unknown ({sum(unknown.values())})")
        for name in sorted(unknown):
            copies = unknown[name]
            lines.append(f"{copies} {name}" if copies > 1 else name)
    return "\n".join(lines) + "\n"
