"""Property tests: random decks never crash the validator; a deck is legal exactly when a plain,
independent re-statement of DECKBUILDING (below) finds no broken rule; the text format round-trips.

Runs on the future catalogue (with a Banjo Winter GUNSLINGER) so the name rule can be broken.
Derandomized: the same examples on every run, like every other seeded test here.
"""

from __future__ import annotations

import unicodedata
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from engines.ragnguns.catalogue import Card, Format, load_catalogue, load_formats, load_prebuilt
from engines.ragnguns.decks import DECK_CODES, TEXT_CODES, check_deck, deck_to_text, parse_deck_text

from . import future_catalogue

FUTURE = future_catalogue()
CAT = load_catalogue()
FORMATS = load_formats(CAT)
CARDS = list(FUTURE)
SETTINGS = settings(deadline=None, max_examples=300, derandomize=True)


# -- the oracle: DECKBUILDING said again, as plainly as possible ------------------------------------------


def plain(name: str) -> str:
    return "".join(
        ch for ch in unicodedata.normalize("NFKD", name) if not unicodedata.combining(ch)
    ).casefold()


def expected_codes(fmt: Format, slot: Card | None | str, entries: list[Card | None]) -> set[str]:
    """`slot` is the card the slot means, None for an empty slot, "?" for a name of no card;
    `entries` the card each entry means (None: no card)."""
    broken = set()
    slinger = None
    if slot is None:
        broken.add("deck/no_gunslinger")
    elif slot == "?":
        broken.add("deck/unknown_gunslinger")
    elif slot.type != "GUNSLINGER":
        broken.add("deck/not_a_gunslinger")
    else:
        slinger = slot
    known = [card for card in entries if card is not None]
    if len(known) < len(entries):
        broken.add("deck/unknown_card")
    if any(card.type == "GUNSLINGER" for card in known):
        broken.add("deck/gunslinger_in_deck")
    if len(entries) != fmt.deck_size:
        broken.add("deck/wrong_size")
    if fmt.unique_names:
        if any(count > 1 for count in Counter(plain(card.name) for card in known).values()):
            broken.add("deck/duplicate_name")
        if slinger is not None and any(plain(card.name) == plain(slinger.name) for card in known):
            broken.add("deck/shares_gunslinger_name")
    if sum("EPIC" in card.keywords for card in known) > fmt.max_epic:
        broken.add("deck/too_many_epic")
    signatures = [card for card in known if card.signature]
    if len(signatures) > fmt.max_signature:
        broken.add("deck/too_many_signature")
    if (
        fmt.signature_must_match
        and slinger is not None
        and any(c.signature != slinger.name for c in signatures)
    ):
        broken.add("deck/foreign_signature")
    if (isinstance(slot, Card) and slot.id in fmt.banned) or any(card.id in fmt.banned for card in known):
        broken.add("deck/banned")
    if sum(card.id in fmt.restricted for card in known) > fmt.max_restricted:
        broken.add("deck/too_many_restricted")
    return broken


def namesake(card: Card, *, want_gunslinger: bool) -> Card:
    """The card a *name* means: in the gunslinger slot the GUNSLINGER of that name, among the
    cards the other one -- when a GUNSLINGER and another card share the name."""
    for other in CARDS:
        if plain(other.name) == plain(card.name) and (other.type == "GUNSLINGER") == want_gunslinger:
            return other
    return card


# -- strategies ----------------------------------------------------------------------------------------------


def spellings(card: Card) -> st.SearchStrategy[tuple[str, bool]]:
    """(text, is_id) ways a person may write a card."""
    stripped = "".join(ch for ch in unicodedata.normalize("NFKD", card.name) if not unicodedata.combining(ch))
    return st.sampled_from(
        [
            (card.id, True),
            (card.name, False),
            (card.name.upper(), False),
            (card.name.lower(), False),
            (f"  {card.name} ", False),
            (stripped, False),
        ]
    )


@st.composite
def entry(draw, *, slot: bool = False):
    """(text, meaning): meaning is a Card, or "?" for garbage that names no card."""
    if draw(st.integers(0, 5)) == 0:
        garbage = draw(st.text(alphabet="abcdefghijklmnop -'é", max_size=12))
        return "qqq" + garbage, "?"  # no card name or id starts with "qqq"
    card = draw(st.sampled_from(CARDS))
    text, is_id = draw(spellings(card))
    return text, card if is_id else namesake(card, want_gunslinger=slot)


formats = st.one_of(
    st.sampled_from(list(load_formats(FUTURE).values())),
    st.sampled_from(list(load_formats(FUTURE).values())),
    st.builds(
        Format,
        key=st.just("random"),
        name=st.just("Random"),
        description=st.just("a random format"),
        deck_size=st.one_of(st.just(15), st.integers(0, 16)),
        max_epic=st.integers(0, 4),
        max_signature=st.integers(0, 2),
        unique_names=st.booleans(),
        signature_must_match=st.booleans(),
        banned=st.frozensets(st.sampled_from([c.id for c in CARDS]), max_size=4),
        restricted=st.frozensets(st.sampled_from([c.id for c in CARDS]), max_size=6),
        max_restricted=st.integers(0, 3),
    ),
)
slots = st.one_of(st.sampled_from([(None, None), ("", None), ("  ", None)]), entry(slot=True))


@st.composite
def decks(draw):
    """A random multiset of cards: mostly near a legal size, with repeats, garbage and gunslingers."""
    size = draw(st.one_of(st.integers(13, 16), st.integers(0, 20)))
    return draw(st.lists(entry(), min_size=size, max_size=size))


@st.composite
def near_legal(draw):
    """A pre-built deck (its GUNSLINGER, or the Banjo Winter one) with 0-3 random edits: the cases
    that break one or two rules, and legal decks."""
    prebuilt = draw(st.sampled_from(load_prebuilt(CAT)))
    slinger = draw(st.sampled_from([prebuilt.gunslinger, prebuilt.gunslinger, "banjo-winter-gunslinger"]))
    slot = (draw(spellings(FUTURE.get(slinger)))[0], FUTURE.get(slinger))
    deck = []
    for card_id in prebuilt.cards:
        text, is_id = draw(spellings(FUTURE.get(card_id)))
        deck.append(
            (text, FUTURE.get(card_id) if is_id else namesake(FUTURE.get(card_id), want_gunslinger=False))
        )
    for _ in range(draw(st.integers(0, 3))):
        edit = draw(st.sampled_from(["replace", "add", "remove", "copy"]))
        position = draw(st.integers(0, len(deck) - 1)) if deck else 0
        if edit == "replace" and deck:
            deck[position] = draw(entry())
        elif edit == "add":
            deck.insert(position, draw(entry()))
        elif edit == "remove" and deck:
            deck.pop(position)
        elif edit == "copy" and deck:
            deck.append(deck[position])
    return slot, deck


@st.composite
def random_case(draw):
    return draw(slots), draw(decks())


# -- properties ----------------------------------------------------------------------------------------------


@SETTINGS
@given(fmt=formats, case=st.one_of(near_legal(), near_legal(), random_case()))
def test_legal_exactly_when_the_oracle_finds_nothing(fmt, case) -> None:
    slot, deck = case
    slot_text, slot_meaning = slot
    result = check_deck(FUTURE, fmt, slot_text, [text for text, _ in deck])
    meanings = [None if meaning == "?" else meaning for _, meaning in deck]
    expected = expected_codes(fmt, slot_meaning, meanings)
    assert set(result.codes) == expected
    assert result.legal == (not expected)


@SETTINGS
@given(
    slot=st.one_of(st.none(), st.text(max_size=30)),
    cards=st.lists(st.one_of(st.text(max_size=30), st.sampled_from([c.name for c in CARDS])), max_size=25),
    fmt=formats,
)
def test_anything_never_crashes(slot, cards, fmt) -> None:
    result = check_deck(FUTURE, fmt, slot, cards)
    assert result.legal == (result.violations == [])
    assert len(result.cards) == len(cards) and result.cards == sorted(result.cards)
    for violation in result.violations:
        assert violation.code in DECK_CODES and violation.detail and violation.hint


@st.composite
def legal_decks(draw):
    """A legal Standard deck built by the rules: up to 3 EPIC cards, at most the GUNSLINGER's own
    SIGNATURE card, 15 different names."""
    slinger = draw(st.sampled_from(CAT.gunslingers()))
    own = [c for c in CAT if c.signature == slinger.name]
    epics = [c for c in CAT if c.is_epic and c.signature is None]
    others = [c for c in CAT if not c.is_epic and c.signature is None and not c.is_gunslinger]
    chosen = draw(st.lists(st.sampled_from(own), max_size=1, unique=True))
    chosen += draw(st.lists(st.sampled_from(epics), max_size=3 - sum(c.is_epic for c in chosen), unique=True))
    chosen += draw(
        st.lists(st.sampled_from(others), min_size=15 - len(chosen), max_size=15 - len(chosen), unique=True)
    )
    spelled = [draw(spellings(card))[0] for card in draw(st.permutations(chosen))]
    return draw(spellings(slinger))[0], spelled


@SETTINGS
@given(deck=legal_decks(), title=st.one_of(st.none(), st.text(max_size=20)))
def test_text_round_trip_of_legal_decks(deck, title) -> None:
    slinger, cards = deck
    before = check_deck(CAT, "standard", slinger, cards)
    assert before.legal, before.violations
    parsed = parse_deck_text(deck_to_text(CAT, slinger, cards, title=title), CAT)
    assert parsed.problems == []
    after = check_deck(CAT, "standard", parsed.gunslinger, parsed.cards)
    assert after.legal and (after.gunslinger, after.cards) == (before.gunslinger, before.cards)


@SETTINGS
@given(slot=entry(slot=True), deck=decks())
def test_text_round_trip_of_any_deck_of_catalogue_cards(slot, deck) -> None:
    cards = [text for text, meaning in deck if meaning != "?"]
    before = check_deck(FUTURE, "standard", slot[0], cards)
    parsed = parse_deck_text(deck_to_text(FUTURE, slot[0], cards), FUTURE)
    after = check_deck(FUTURE, "standard", parsed.gunslinger, parsed.cards)
    assert (after.gunslinger, after.cards, after.codes) == (before.gunslinger, before.cards, before.codes)


@SETTINGS
@given(text=st.text(max_size=300))
def test_the_parser_never_raises(text) -> None:
    parsed = parse_deck_text(text, FUTURE)
    lines = len(text.splitlines())
    for problem in parsed.problems:
        assert problem.code in TEXT_CODES and 1 <= problem.line <= lines
