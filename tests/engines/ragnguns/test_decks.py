"""DECKBUILDING (rules 0.3) and formats: every rule has a legal and an illegal deck; one deck breaks
every rule at once; every pre-built deck is legal."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from engines.ragnguns.catalogue import load_catalogue, load_formats, load_prebuilt
from engines.ragnguns.decks import DECK_CODES, check_deck

from . import future_catalogue

CAT = load_catalogue()
FORMATS = load_formats()
STANDARD = FORMATS["standard"]
FRONTIER = FORMATS["frontier"]
PREBUILT = {deck.id: deck for deck in load_prebuilt()}

KID_DECK = list(PREBUILT["stampede-at-dawn"].cards)  # 1 EPIC (high-noon), 1 SIGNATURE (stampede)
BARRELS = list(PREBUILT["smoking-barrels"].cards)  # 3 EPIC, gatling-gun


def swap(cards: list[str], old: str, new: str) -> list[str]:
    assert old in cards, old
    return [new if card == old else card for card in cards]


def codes(result) -> list[str]:
    return [v.code for v in result.violations]


def only(result, code: str):
    """The deck breaks exactly one rule, `code` (possibly several times)."""
    assert not result.legal
    assert set(codes(result)) == {code}, result.violations
    return [v for v in result.violations if v.code == code]


# -- pre-built decks -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("deck_id", sorted(PREBUILT))
def test_prebuilt_deck_is_legal_in_standard(deck_id: str) -> None:
    deck = PREBUILT[deck_id]
    result = check_deck(CAT, STANDARD, deck.gunslinger, deck.cards)
    assert result.legal, result.violations
    assert result.violations == []
    assert result.gunslinger == deck.gunslinger
    assert result.cards == sorted(deck.cards)


@pytest.mark.parametrize("deck_id", sorted(PREBUILT))
def test_prebuilt_deck_is_legal_by_names_too(deck_id: str) -> None:
    deck = PREBUILT[deck_id]
    names = [CAT.get(card_id).name.upper() for card_id in deck.cards]
    result = check_deck(CAT, "standard", CAT.get(deck.gunslinger).name.lower(), names)
    assert result.legal and result.cards == sorted(deck.cards)


def test_each_gunslinger_has_two_legal_prebuilt_decks_with_its_signature() -> None:
    for slinger in CAT.gunslingers():
        decks = [d for d in PREBUILT.values() if d.gunslinger == slinger.id]
        assert len(decks) >= 2
        for deck in decks:
            assert [CAT.get(c).signature for c in deck.cards if CAT.get(c).signature] == [slinger.name]


# -- "A deck has a GUNSLINGER" ----------------------------------------------------------------------------


@pytest.mark.parametrize("gunslinger", ["Buffalo Kid", "buffalo-kid", "BUFFALO KID", " buffalo  kid "])
def test_gunslinger_given_by_id_or_name(gunslinger: str) -> None:
    result = check_deck(CAT, STANDARD, gunslinger, KID_DECK)
    assert result.legal and result.gunslinger == "buffalo-kid"


@pytest.mark.parametrize("gunslinger", [None, "", "   "])
def test_no_gunslinger(gunslinger) -> None:
    (violation,) = only(check_deck(CAT, STANDARD, gunslinger, KID_DECK), "deck/no_gunslinger")
    assert "Buffalo Kid" in violation.hint and "Jenny James" in violation.hint


def test_unknown_gunslinger() -> None:
    result = check_deck(CAT, STANDARD, "Bufalo Kid", KID_DECK)
    (violation,) = only(result, "deck/unknown_gunslinger")
    assert violation.hint == "did you mean 'Buffalo Kid'?"
    assert result.gunslinger == "Bufalo Kid"  # kept as given


def test_not_a_gunslinger() -> None:
    result = check_deck(CAT, STANDARD, "Deputy Nelson", swap(KID_DECK, "deputy-nelson", "winchester"))
    (violation,) = only(result, "deck/not_a_gunslinger")
    assert violation.cards == ["deputy-nelson"] and "BACKUP" in violation.detail


def test_gunslinger_in_deck() -> None:
    (violation,) = only(
        check_deck(CAT, STANDARD, "Buffalo Kid", swap(KID_DECK, "fall", "Jenny James")),
        "deck/gunslinger_in_deck",
    )
    assert violation.cards == ["jenny-james"]


# -- cards that exist; 15 of them ----------------------------------------------------------------------------


def test_unknown_card_with_did_you_mean() -> None:
    result = check_deck(CAT, STANDARD, "Buffalo Kid", swap(KID_DECK, "bear-trap", "Bear Trapp"))
    (violation,) = only(result, "deck/unknown_card")
    assert violation.cards == ["Bear Trapp"]
    assert violation.hint == "did you mean 'Bear Trap'?"
    assert "Bear Trapp" in result.cards  # kept as given


def test_unknown_card_far_from_everything() -> None:
    (violation,) = only(
        check_deck(CAT, STANDARD, "Buffalo Kid", swap(KID_DECK, "bear-trap", "qqqqqqqq")), "deck/unknown_card"
    )
    assert "catalogue" in violation.hint and CAT.version in violation.hint


@pytest.mark.parametrize(
    "cards, hint",
    [
        (KID_DECK[:-1], "add 1 card"),
        (KID_DECK[:10], "add 5 cards"),
        ([], "add 15 cards"),
        (KID_DECK + ["winchester"], "remove 1 card"),
        (KID_DECK + ["winchester", "ambush"], "remove 2 cards"),
    ],
)
def test_wrong_size(cards: list[str], hint: str) -> None:
    (violation,) = only(check_deck(CAT, STANDARD, "Buffalo Kid", cards), "deck/wrong_size")
    assert violation.hint == hint


# -- "all cards must have a different name. This includes the GUNSLINGER" ---------------------------------


@pytest.mark.parametrize("copy", ["machete", "Machete", "MACHETE", " machete"])
def test_duplicate_name(copy: str) -> None:
    (violation,) = only(
        check_deck(CAT, STANDARD, "Buffalo Kid", swap(KID_DECK, "improvise", copy)), "deck/duplicate_name"
    )
    assert violation.cards == ["machete", "machete"]
    assert violation.hint == "keep one 'Machete' and remove 1"


def test_two_kinds_of_duplicate_are_two_violations() -> None:
    cards = swap(swap(KID_DECK, "improvise", "Machete"), "fall", "iron bar")
    assert codes(check_deck(CAT, STANDARD, "Buffalo Kid", cards)) == ["deck/duplicate_name"] * 2


def test_shares_gunslinger_name() -> None:
    future = future_catalogue()
    cards = swap(KID_DECK, "stampede", "Banjo Winter")  # the BACKUP
    assert check_deck(future, STANDARD, "Buffalo Kid", cards).legal
    result = check_deck(future, STANDARD, "Banjo Winter", cards)  # the GUNSLINGER
    assert result.gunslinger == "banjo-winter-gunslinger"
    (violation,) = only(result, "deck/shares_gunslinger_name")
    assert violation.cards == ["banjo-winter"]


def test_the_gunslinger_itself_among_the_cards_breaks_both_rules() -> None:
    cards = swap(KID_DECK, "fall", "buffalo-kid")
    assert set(codes(check_deck(CAT, STANDARD, "Buffalo Kid", cards))) == {
        "deck/gunslinger_in_deck",
        "deck/shares_gunslinger_name",
    }


# -- "You can only have 3 EPIC cards" ----------------------------------------------------------------------


def test_three_epic_cards_are_legal() -> None:
    assert sum(CAT.get(c).is_epic for c in BARRELS) == 3
    assert check_deck(CAT, STANDARD, "Buffalo Kid", BARRELS).legal


def test_four_epic_cards_are_not() -> None:
    cards = swap(BARRELS, "ambush", "High Noon")
    (violation,) = only(check_deck(CAT, STANDARD, "Buffalo Kid", cards), "deck/too_many_epic")
    assert violation.hint.startswith("remove 1 EPIC card (one of: ")
    assert "'High Noon'" in violation.hint and "'Gatling Gun'" in violation.hint
    assert sorted(violation.cards) == sorted(["gatling-gun", "buffalo-rifle", "marshal-cobb", "high-noon"])


# -- "You can only have 1 SIGNATURE card and only if your GUNSLINGER matches" ------------------------------


def test_own_signature_is_legal_and_two_are_not() -> None:
    assert check_deck(CAT, STANDARD, "Buffalo Kid", KID_DECK).legal  # Stampede
    cards = swap(KID_DECK, "fall", "Buffalo Rifle")
    (violation,) = only(check_deck(CAT, STANDARD, "Buffalo Kid", cards), "deck/too_many_signature")
    assert violation.hint.startswith("remove 1 SIGNATURE card")


def test_foreign_signature() -> None:
    cards = swap(KID_DECK, "stampede", "Jenny's Parasol")
    (violation,) = only(check_deck(CAT, STANDARD, "Buffalo Kid", cards), "deck/foreign_signature")
    assert violation.cards == ["jennys-parasol"]
    assert "Jenny James" in violation.hint
    assert check_deck(CAT, STANDARD, "Jenny James", swap(cards, "machete", "winchester")).legal


def test_foreign_signature_is_not_judged_without_a_real_gunslinger() -> None:
    cards = swap(KID_DECK, "stampede", "Jenny's Parasol")
    assert codes(check_deck(CAT, STANDARD, None, cards)) == ["deck/no_gunslinger"]


# -- formats: banlist and restricted list -------------------------------------------------------------------


def test_banned() -> None:
    (violation,) = only(check_deck(CAT, FRONTIER, "Buffalo Kid", BARRELS), "deck/banned")
    assert violation.cards == ["gatling-gun"] and "Frontier" in violation.detail
    assert violation.hint == "remove 'Gatling Gun'"
    assert check_deck(CAT, FRONTIER, "Buffalo Kid", swap(BARRELS, "gatling-gun", "bowie-knife")).legal


def test_banned_gunslinger() -> None:
    no_jenny = replace(STANDARD, key="no-jenny", name="No Jenny", banned=frozenset({"jenny-james"}))
    deck = PREBUILT["saloon-nights"]
    (violation,) = only(check_deck(CAT, no_jenny, "Jenny James", deck.cards), "deck/banned")
    assert violation.hint == "choose another GUNSLINGER"


def test_restricted_is_a_budget_for_the_whole_list() -> None:
    assert "high-noon" in FRONTIER.restricted and FRONTIER.max_restricted == 1
    assert check_deck(CAT, FRONTIER, "Buffalo Kid", KID_DECK).legal  # one restricted card
    cards = swap(KID_DECK, "deputy-nelson", "Marshal Cobb")  # a second one
    (violation,) = only(check_deck(CAT, FRONTIER, "Buffalo Kid", cards), "deck/too_many_restricted")
    assert sorted(violation.cards) == ["high-noon", "marshal-cobb"]
    assert violation.hint == "remove 1 of: 'High Noon', 'Marshal Cobb'"
    assert check_deck(CAT, STANDARD, "Buffalo Kid", cards).legal


def test_format_switches() -> None:
    relaxed = replace(STANDARD, key="relaxed", unique_names=False, signature_must_match=False)
    cards = swap(swap(KID_DECK, "improvise", "Machete"), "stampede", "Jenny's Parasol")
    assert set(codes(check_deck(CAT, STANDARD, "Buffalo Kid", cards))) == {
        "deck/duplicate_name",
        "deck/foreign_signature",
    }
    assert check_deck(CAT, relaxed, "Buffalo Kid", cards).legal
    big = replace(STANDARD, key="big", deck_size=16, max_epic=4)
    assert check_deck(CAT, big, "Buffalo Kid", swap(BARRELS, "ambush", "High Noon") + ["ambush"]).legal


def test_format_by_key() -> None:
    assert check_deck(CAT, "frontier", "Buffalo Kid", BARRELS).format == "frontier"


# -- everything at once --------------------------------------------------------------------------------------

EVERYTHING = [
    "Gatling Gun",  # banned in Frontier; EPIC
    "High Noon",
    "Marshal Cobb",
    "Señorita Rosa",  # restricted x3; EPIC x3 -> 4+ EPIC
    "Buffalo Rifle",  # SIGNATURE of Buffalo Kid: foreign; EPIC
    "Jenny's Parasol",  # SIGNATURE of Jenny James: foreign; 2 SIGNATURE cards
    "Banjo Winter",  # the BACKUP: shares the GUNSLINGER's name
    "Machete",
    "machete",  # duplicate name
    "Jenny James",  # a GUNSLINGER among the cards
    "Machette",  # unknown card
]  # 11 cards: wrong size


def test_one_deck_breaks_every_rule_at_once() -> None:
    result = check_deck(future_catalogue(), FRONTIER, "Banjo Winter", EVERYTHING)
    slot_codes = {"deck/no_gunslinger", "deck/unknown_gunslinger", "deck/not_a_gunslinger"}
    assert set(codes(result)) == set(DECK_CODES) - slot_codes
    assert codes(result) == sorted(codes(result), key=DECK_CODES.index)  # stable order by code
    assert all(v.hint for v in result.violations) and all(v.detail for v in result.violations)
    # The three gunslinger-slot codes exclude each other (one slot); each joins all the others that
    # do not need a real GUNSLINGER.
    needs_gunslinger = {"deck/shares_gunslinger_name", "deck/foreign_signature"}
    for slot, code in [
        (None, "deck/no_gunslinger"),
        ("Banjo Wintr", "deck/unknown_gunslinger"),
        ("Machete", "deck/not_a_gunslinger"),
    ]:
        broken = check_deck(future_catalogue(), FRONTIER, slot, EVERYTHING)
        assert set(codes(broken)) == set(DECK_CODES) - slot_codes - needs_gunslinger | {code}


def test_result_is_json_and_normalised() -> None:
    result = check_deck(future_catalogue(), FRONTIER, "Banjo Winter", EVERYTHING)
    data = json.loads(json.dumps(result.to_dict()))
    assert data["legal"] is False and data["format"] == "frontier"
    assert data["gunslinger"] == "banjo-winter-gunslinger"
    assert data["cards"] == sorted(data["cards"])
    assert "Machette" in data["cards"] and data["cards"].count("machete") == 2
    assert {"code", "detail", "cards", "hint"} <= set(data["violations"][0])


def test_garbage_entries_do_not_crash() -> None:
    result = check_deck(CAT, STANDARD, 42, [None, 3.5, "", "#", "\x00", "💥"] * 3)  # type: ignore[list-item]
    assert not result.legal
    assert set(codes(result)) == {"deck/unknown_gunslinger", "deck/unknown_card", "deck/wrong_size"}


def test_cards_as_one_string_or_none() -> None:
    assert check_deck(CAT, STANDARD, "Buffalo Kid", "Machete").cards == ["machete"]  # type: ignore[arg-type]
    assert check_deck(CAT, STANDARD, "Buffalo Kid", None).codes == ["deck/wrong_size"]  # type: ignore[arg-type]
