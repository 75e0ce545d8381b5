"""The plain-text deck list: what a person pastes, and the canonical export that reads back."""

from __future__ import annotations

import pytest

from engines.ragnguns.catalogue import load_catalogue, load_prebuilt
from engines.ragnguns.decks import check_deck, check_deck_text, deck_to_text, parse_deck_text

from . import future_catalogue

CAT = load_catalogue()
PREBUILT = load_prebuilt()


def parse(text: str, catalogue=CAT):
    return parse_deck_text(text, catalogue)


def test_one_card_a_line_with_comments_blanks_and_headers() -> None:
    parsed = parse(
        """
        # My Buffalo Kid deck
        Gunslinger: Buffalo Kid

        Weapons (3)
        Machete
        Iron bar   # a cheap Shelter
        - Whip
        Traps:
        * Fall
        ACTIONS
        • Improvise
        """
    )
    assert parsed.gunslinger == "Buffalo Kid"
    assert parsed.cards == ["Machete", "Iron bar", "Whip", "Fall", "Improvise"]
    assert parsed.problems == []


@pytest.mark.parametrize(
    "line, cards",
    [
        ("Machete", ["Machete"]),
        ("1 Machete", ["Machete"]),
        ("1x Machete", ["Machete"]),
        ("1X Machete", ["Machete"]),
        ("1 x Machete", ["Machete"]),
        ("1xMachete", ["Machete"]),
        ("Machete x1", ["Machete"]),
        ("Machete ×1", ["Machete"]),
        ("2 Machete", ["Machete", "Machete"]),
        ("Machete x2", ["Machete", "Machete"]),
        ("3x Señorita Rosa", ["Señorita Rosa"] * 3),
        ("  1   Old Bourbon  ", ["Old Bourbon"]),
        ("Machette", ["Machette"]),  # unknown: kept, the validator says "did you mean"
        ("2 Xylophone", ["Xylophone", "Xylophone"]),
    ],
)
def test_counts(line: str, cards: list[str]) -> None:
    parsed = parse(line)
    assert parsed.cards == cards and parsed.problems == []


@pytest.mark.parametrize(
    "line",
    ["0 Machete", "100 Machete", "2 Machete x2", "!!!", "42", "x3", "Machete (2)", "-- 12 --"],
)
def test_unparsable_lines_are_reported_with_their_number(line: str) -> None:
    parsed = parse(f"Gunslinger: Jenny James\n\nMachete\n{line}\nWhip\n")
    assert parsed.cards == ["Machete", "Whip"]
    (problem,) = parsed.problems
    assert problem.code == "text/unparsable_line"
    assert problem.line == 4 and "line 4" in problem.detail
    assert problem.hint


def test_a_count_greater_than_one_is_a_duplicate_for_the_validator() -> None:
    deck = PREBUILT[0]
    names = [CAT.get(card_id).name for card_id in deck.cards]
    text = "Gunslinger: Buffalo Kid\n" + "\n".join(["2 " + names[0], *names[2:]])
    result = check_deck_text(CAT, "standard", text)
    assert [v.code for v in result.violations] == ["deck/duplicate_name"]


def test_gunslinger_line_variants() -> None:
    assert parse("gunslinger: jenny james\nMachete").gunslinger == "jenny james"
    assert parse("GUNSLINGER :Jenny James").gunslinger == "Jenny James"
    assert parse("Gunslinger (1)\nJenny James\nWeapons (1)\nMachete").gunslinger == "Jenny James"
    assert parse("Gunslinger:\nJenny Jamez\nMachete").gunslinger == "Jenny Jamez"  # header section


def test_first_gunslinger_typed_line_is_the_gunslinger() -> None:
    parsed = parse("Machete\nJenny James\nBuffalo Kid\nWhip")
    assert parsed.gunslinger == "Jenny James"
    assert parsed.cards == ["Machete", "Buffalo Kid", "Whip"]  # the second one is a card (and illegal)


def test_explicit_gunslinger_line_wins_over_gunslinger_typed_lines() -> None:
    parsed = parse("Jenny James\nMachete\nGunslinger: Buffalo Kid")
    assert parsed.gunslinger == "Buffalo Kid"
    assert parsed.cards == ["Jenny James", "Machete"]


def test_second_gunslinger_line() -> None:
    parsed = parse("Gunslinger: Buffalo Kid\nMachete\nGunslinger: Jenny James")
    assert parsed.gunslinger == "Buffalo Kid"
    (problem,) = parsed.problems
    assert (problem.code, problem.line) == ("text/duplicate_gunslinger", 3)


def test_no_gunslinger() -> None:
    parsed = parse("Machete\nWhip")
    assert parsed.gunslinger is None
    assert (
        check_deck(CAT, "standard", parsed.gunslinger, parsed.cards).violations[0].code
        == "deck/no_gunslinger"
    )


def test_ambiguous_name_is_a_card_unless_named_as_gunslinger() -> None:
    future = future_catalogue()
    parsed = parse("Banjo Winter\nMachete", future)
    assert parsed.gunslinger is None and parsed.cards == ["Banjo Winter", "Machete"]
    assert parse("Gunslinger: Banjo Winter\nBanjo Winter", future).gunslinger == "Banjo Winter"


def test_metadata_lines() -> None:
    parsed = parse("Deck: Stampede at Dawn\nFormat: frontier\nGunslinger: Buffalo Kid\nMachete")
    assert parsed.meta == {"deck": "Stampede at Dawn", "format": "frontier"}
    assert parsed.cards == ["Machete"]


def test_never_raises_on_garbage() -> None:
    for text in ["", "\n\n\n", "\x00\x01", "Gunslinger:", "#", "(3)", ":", "x", "1" * 500, "💥 2x 💥"]:
        parse(text)


def test_check_deck_text_merges_text_problems() -> None:
    result = check_deck_text(CAT, "standard", "Gunslinger: Buffalo Kid\n0 Machete\nWhipp\n")
    assert [v.code for v in result.violations] == [
        "text/unparsable_line",
        "deck/unknown_card",
        "deck/wrong_size",
    ]
    assert result.violations[1].hint == "did you mean 'Whip'?"
    assert not result.legal


# -- the canonical export ------------------------------------------------------------------------------------


def test_canonical_form() -> None:
    deck = next(d for d in PREBUILT if d.id == "stampede-at-dawn")
    text = deck_to_text(CAT, deck.gunslinger, deck.cards, title=deck.name)
    lines = text.splitlines()
    assert lines[0] == "Deck: Stampede at Dawn"
    assert lines[1] == "Gunslinger: Buffalo Kid"
    headers = [line for line in lines if line.endswith(")")]
    assert headers == ["Actions (3)", "Weapons (7)", "Items (1)", "Traps (2)", "Backups (2)"]
    weapons = lines[lines.index("Weapons (7)") + 1 : lines.index("Items (1)") - 1]
    assert weapons == sorted(weapons, key=str.casefold)
    assert "Iron bar" in weapons  # printed names


@pytest.mark.parametrize("deck", PREBUILT, ids=[d.id for d in PREBUILT])
def test_prebuilt_round_trip(deck) -> None:
    text = deck_to_text(CAT, deck.gunslinger, deck.cards, title=deck.name)
    result = check_deck_text(CAT, "standard", text)
    assert result.legal
    assert (result.gunslinger, result.cards) == (deck.gunslinger, sorted(deck.cards))
    assert deck_to_text(CAT, result.gunslinger, result.cards, title=deck.name) == text  # a fixed point


def test_round_trip_of_an_illegal_deck() -> None:
    cards = ["Machete", "machete", "Machette", "Jenny James", "Gatling Gun"]
    before = check_deck(CAT, "standard", "Buffalo Kid", cards)
    text = deck_to_text(CAT, "Buffalo Kid", cards)
    assert "2 Machete" in text and "Unknown (1)" in text and "Gunslingers (1)" in text
    parsed = parse(text)
    after = check_deck(CAT, "standard", parsed.gunslinger, parsed.cards)
    assert (after.gunslinger, after.cards, after.codes) == (before.gunslinger, before.cards, before.codes)


def test_round_trip_writes_an_ambiguous_gunslinger_card_by_id() -> None:
    future = future_catalogue()
    cards = ["banjo-winter", "banjo-winter-gunslinger"]
    text = deck_to_text(future, "Buffalo Kid", cards)
    assert "banjo-winter-gunslinger" in text.splitlines()
    parsed = parse(text, future)
    assert check_deck(future, "standard", parsed.gunslinger, parsed.cards).cards == sorted(cards)


def test_the_documented_example_parses() -> None:
    from pathlib import Path

    doc = Path(__file__).resolve().parents[3] / "docs" / "games" / "ragnguns.md"
    example = doc.read_text(encoding="utf-8").split("```text\n", 1)[1].split("```", 1)[0]
    parsed = parse(example)
    assert parsed.problems == [] and parsed.meta == {"deck": "Stampede at Dawn"}
    assert parsed.gunslinger == "Buffalo Kid"
    assert parsed.cards == [
        "Machete",
        "Iron bar",
        "Whip",
        "Brass Knuckles",
        "Brass Knuckles",
        "Señorita Rosa",
    ]


# -- what people paste (issue #19): each case its own test ------------------------------------------

STAMPEDE = PREBUILT[0]


def stampede_text(*, head: str = "", gunslinger_line: str | None = None, between: str = "\n") -> str:
    """The first pre-built deck as a person would type it, one card a line."""
    line = f"Gunslinger: {CAT.get(STAMPEDE.gunslinger).name}" if gunslinger_line is None else gunslinger_line
    cards = between.join(CAT.get(card).name for card in STAMPEDE.cards)
    return f"{head}{line}\n{cards}\n"


def test_a_byte_order_mark_is_not_part_of_the_first_line() -> None:
    check = check_deck_text(CAT, "standard", "\ufeff" + stampede_text())
    assert check.legal, check.violations
    assert check.gunslinger == STAMPEDE.gunslinger


def test_zero_width_characters_inside_a_name_are_dropped() -> None:
    text = stampede_text().replace("Machete", "Mach\u200bete")
    assert check_deck_text(CAT, "standard", text).legal


def test_blank_lines_anywhere() -> None:
    text = "\n\n" + stampede_text(between="\n\n  \n").replace("Gunslinger:", "\n\nGunslinger:") + "\n\n\n"
    check = check_deck_text(CAT, "standard", text)
    assert check.legal and check.warnings == []


def test_slash_comments_whole_line_and_inline() -> None:
    text = "// built for Saturday\n" + stampede_text().replace("Machete\n", "Machete // the cheap one\n")
    check = check_deck_text(CAT, "standard", text)
    assert check.legal and check.warnings == []


@pytest.mark.parametrize("form", ["2x {name}", "2 {name}", "{name} x2", "2 x {name}", "{name} ×2"])
def test_quantity_forms(form: str) -> None:
    parsed = parse(form.format(name="Machete"))
    assert parsed.cards == ["Machete", "Machete"] and parsed.problems == []


def test_prose_before_the_list_is_skipped_with_a_warning_naming_each_line() -> None:
    head = "Here is my list for Saturday, wish me luck!\nI built it around traps.\n\n"
    check = check_deck_text(CAT, "standard", stampede_text(head=head))
    assert check.legal, check.violations
    assert [(w.code, w.line) for w in check.warnings] == [("text/ignored_line", 1), ("text/ignored_line", 2)]
    assert "wish me luck" in check.warnings[0].detail
    assert check.to_dict()["warnings"][1]["line"] == 2


def test_a_misspelt_card_before_the_list_is_a_card_not_prose() -> None:
    check = check_deck_text(CAT, "standard", "Machette\n" + stampede_text())
    assert check.warnings == []
    unknown = [v for v in check.violations if v.code == "deck/unknown_card"]
    assert unknown and "Machete" in unknown[0].hint


def test_prose_after_the_list_begins_is_an_unknown_card() -> None:
    check = check_deck_text(CAT, "standard", stampede_text() + "thanks for reading my list everyone\n")
    assert check.warnings == [] and "deck/unknown_card" in check.codes


@pytest.mark.parametrize("gunslinger_line", ["Gunslinger:", "Gunslinger:   ", ""])
def test_a_blank_or_missing_gunslinger_line_is_a_violation(gunslinger_line: str) -> None:
    check = check_deck_text(CAT, "standard", stampede_text(gunslinger_line=gunslinger_line))
    assert not check.legal and "deck/no_gunslinger" in check.codes
    assert check.gunslinger is None
    assert "deck/not_a_gunslinger" not in check.codes  # the first card stays a card


def test_a_gunslinger_under_a_blank_gunslinger_header_fills_the_slot() -> None:
    name = CAT.get(STAMPEDE.gunslinger).name
    check = check_deck_text(CAT, "standard", stampede_text(gunslinger_line=f"Gunslinger:\n{name}"))
    assert check.legal and check.gunslinger == STAMPEDE.gunslinger


def test_every_rejected_line_is_named_with_its_number() -> None:
    text = stampede_text() + "42\nx3\n0 Whip\n"
    problems = parse(text).problems
    first_extra = len(text.splitlines()) - 2
    assert [(p.code, p.line) for p in problems] == [
        ("text/unparsable_line", first_extra),
        ("text/unparsable_line", first_extra + 1),
        ("text/unparsable_line", first_extra + 2),
    ]
    assert all(f"line {p.line}:" in p.detail for p in problems)


def test_a_title_survives_the_canonical_form() -> None:
    text = deck_to_text(CAT, STAMPEDE.gunslinger, STAMPEDE.cards, title="Guns // Roses #2")
    parsed = parse(text)
    assert parsed.meta["deck"] == "Guns // Roses #2" and parsed.problems == []
