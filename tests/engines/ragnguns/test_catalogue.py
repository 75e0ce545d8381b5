"""The catalogue data: every card the rulebook names, with every number it gives; the loader's
refusals; ids, names and lookups. Rulebook: /work/shared/rules/ragnguns.md (rules 0.3)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from engines.ragnguns.catalogue import (
    KEYWORDS,
    MARKERS,
    TYPES,
    ZONES,
    CatalogueError,
    catalogue_from_data,
    formats_from_data,
    load_catalogue,
    load_formats,
    load_prebuilt,
    name_key,
    prebuilt_from_data,
    read_data_file,
)

from . import BANJO_WINTER_GUNSLINGER, future_catalogue, raw_catalogue

CAT = load_catalogue()

# Every card the rulebook names (grep for capitalised names and "the X"), as printed.
RULEBOOK_CARDS = {
    "machete": "Machete",
    "sisters": "Sisters",
    "iron-bar": "Iron bar",
    "whip": "Whip",
    "old-bourbon": "Old Bourbon",
    "improvise": "Improvise",
    "deputy-nelson": "Deputy Nelson",
    "doc-ravenstorm": "Doc Ravenstorm",
    "brass-knuckles": "Brass Knuckles",
    "fall": "Fall",
    "lure": "Lure",
    "banjo-winter": "Banjo Winter",
    "buffalo-kid": "Buffalo Kid",
    "jenny-james": "Jenny James",
}


def card(card_id: str):
    return CAT.get(card_id)


# -- the rulebook's cards ----------------------------------------------------------------------------


def test_every_rulebook_card_is_present_and_marked_rulebook() -> None:
    for card_id, name in RULEBOOK_CARDS.items():
        assert card(card_id).name == name
    assert {c.id for c in CAT if c.origin == "rulebook"} == set(RULEBOOK_CARDS)


def test_machete() -> None:
    # "the Machete costs 2"; "the Machete has 2 ♠"; "the Machete has 1 ♥"; "a MELEE WEAPON".
    machete = card("machete")
    assert (machete.type, machete.cost, machete.firepower, machete.durability) == ("WEAPON", 2, 2, 1)
    assert "MELEE" in machete.keywords


def test_sisters() -> None:
    # "I've got the Sisters in my Alley, which gives me a 3 ♠"; "the Sisters take one Bullet" and stay
    # in play to be healed by Jenny, so their ♥ is at least 2.
    sisters = card("sisters")
    assert sisters.firepower == 3
    assert sisters.durability >= 2
    assert sisters.placeable


def test_iron_bar() -> None:
    # "the Iron bar (1 ♥) in his Shelter" -- and the name is printed with a small b.
    assert card("iron-bar").durability == 1
    assert card("iron-bar").name == "Iron bar"


def test_whip() -> None:
    # "the Effect of the Whip card needs two Bullet and allows you to shoot one of these Bullets into
    # your opponent's Alley".
    (effect,) = card("whip").effects
    assert effect.cost == 2
    assert "Shoot one of the two Bullets" in effect.text
    assert "opponent's Alley" in effect.text


def test_old_bourbon() -> None:
    # "the ∞ Effect of Old Bourbon allows me to heal one Bullet"; an ITEM has two Effects.
    bourbon = card("old-bourbon")
    assert bourbon.type == "ITEM" and len(bourbon.effects) == 2
    (heal,) = [e for e in bourbon.effects if e.once_per_turn]
    assert heal.text == "Heal one Bullet."
    assert {"ALCOHOL", "HEAL"} <= set(bourbon.keywords)


def test_improvise() -> None:
    # An ACTION: "pick a MELEE card in my discard zone and hide it ... So I pay nothing" (cost read
    # as ⓪, see docs/games/ragnguns.md).
    improvise = card("improvise")
    assert improvise.type == "ACTION" and improvise.cost is None
    assert improvise.firepower is None and improvise.durability is None
    (effect,) = improvise.effects
    assert effect.cost == 0
    assert effect.text == "Pick a MELEE card in your discard zone and hide it."


def test_deputy_nelson() -> None:
    # "Deputy Nelson's ♦ Effect is active as long as the card is placed in my Shelter, whereas his ↓
    # Effect is activated in the moment I place it in the Alley ... pick a SHERIFF card from my
    # discard zone."
    nelson = card("deputy-nelson")
    assert nelson.type == "BACKUP" and "SHERIFF" in nelson.keywords
    (lasting,) = [e for e in nelson.effects if "while_placed" in e.markers]
    (placed,) = [e for e in nelson.effects if "on_place" in e.markers]
    assert lasting.zone == "SHELTER"
    assert placed.zone == "ALLEY"
    assert "SHERIFF card in your discard zone" in placed.text


def test_brass_knuckles() -> None:
    # Placed in the Alley (so it has statistics), its Effect shoots, and Improvise picks it from the
    # discard zone, so it is MELEE.
    knuckles = card("brass-knuckles")
    assert knuckles.placeable and "MELEE" in knuckles.keywords
    assert any("shoot" in e.text.lower() for e in knuckles.effects)


def test_doc_ravenstorm_and_banjo_winter_are_backups() -> None:
    assert card("doc-ravenstorm").type == "BACKUP"
    assert card("banjo-winter").type == "BACKUP"  # "you can't take Banjo Winter BACKUP"


def test_fall_and_lure_are_traps_costing_x() -> None:
    # "A TRAP has a cost of X"; Fall: "discards one of his cards in hand as written".
    for trap in ("fall", "lure"):
        assert card(trap).type == "TRAP" and card(trap).cost == "X"
        assert card(trap).firepower is None
    assert "discards a card from their hand" in card("fall").effects[0].text


def test_buffalo_kid() -> None:
    # "first Effect allows me to increase the ♠ of a WEAPON in my Alley, and his second to shoot a
    # Bullet if I have a MELEE in my Alley ... I can use both Effects by spending two Bullets from
    # my Cartridge Belt."
    kid = card("buffalo-kid")
    assert kid.type == "GUNSLINGER" and kid.cost is None
    first, second = kid.effects
    assert "♠ of a WEAPON in your Alley" in first.text
    assert "MELEE" in second.text and "shoot one Bullet" in second.text
    assert first.cost + second.cost == 2
    for effect in kid.effects:
        assert effect.paid_from == "cartridge_belt" and effect.once_per_turn


def test_jenny_james() -> None:
    # "Thanks to Jenny's Effect I can spend two Bullets from my Cartridge Belt to heal one Bullet."
    jenny = card("jenny-james")
    assert jenny.type == "GUNSLINGER" and len(jenny.effects) == 2
    heal = jenny.effects[0]
    assert (heal.cost, heal.paid_from, heal.text) == (2, "cartridge_belt", "Heal one Bullet.")


# -- the catalogue as a whole ----------------------------------------------------------------------


def test_version_and_vocabulary() -> None:
    assert CAT.version == "2026.2"
    for c in CAT:
        assert c.type in TYPES
        assert set(c.keywords) <= set(KEYWORDS)
        for effect in c.effects:
            assert set(effect.markers) <= set(MARKERS)
            assert effect.zone is None or effect.zone in ZONES


def test_ids_are_unique_slugs() -> None:
    ids = [c.id for c in CAT]
    assert len(ids) == len(set(ids))
    for card_id in ids:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", card_id), card_id


def test_names_are_unique_ignoring_case_and_accents() -> None:
    keys = [c.key for c in CAT]
    assert len(keys) == len(set(keys))


def test_the_catalogue_has_what_the_deck_tests_need() -> None:
    assert len([c for c in CAT if c.is_epic]) > 3
    for slinger in CAT.gunslingers():
        assert len(CAT.filter(signature=slinger.name)) >= 2
    assert any(name_key(c.name) != c.name.casefold().replace(" ", "") for c in CAT)  # accents, apostrophes
    assert {"Señorita Rosa", "Café Noir", "Fiancée's Locket"} <= {c.name for c in CAT}
    assert {e.zone for c in CAT for e in c.effects} == {None, *ZONES}
    for card_type in TYPES:
        assert CAT.filter(type=card_type)


def test_every_packaged_card_round_trips_through_to_dict() -> None:
    data = {"version": CAT.version, "cards": [c.to_dict() for c in CAT]}
    assert catalogue_from_data(data) == CAT


# -- lookups ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, card_id",
    [
        ("Machete", "machete"),
        ("machete", "machete"),
        ("  MACHETE ", "machete"),
        ("Iron bar", "iron-bar"),
        ("iron BAR", "iron-bar"),
        ("iron  bar", "iron-bar"),
        ("Ironbar", "iron-bar"),
        ("iron-bar", "iron-bar"),
        ("Señorita Rosa", "senorita-rosa"),
        ("senorita rosa", "senorita-rosa"),
        ("SEÑORITA ROSA", "senorita-rosa"),
        ("Café Noir", "cafe-noir"),
        ("cafe noir", "cafe-noir"),
        ("Cafe\u0301 Noir", "cafe-noir"),  # combining accent
        ("Fiancée's Locket", "fiancees-locket"),
        ("fiancees locket", "fiancees-locket"),
        ("Fiancée’s Locket", "fiancees-locket"),  # typographic apostrophe
        ("Jennys Parasol", "jennys-parasol"),
        ("the Lure", "lure"),
        ("The Whip", "whip"),
        ("Sawed off shotgun", "sawed-off-shotgun"),
    ],
)
def test_resolve_by_id_or_name(text: str, card_id: str) -> None:
    assert CAT.resolve(text).id == card_id


@pytest.mark.parametrize("text", ["", "   ", "Machet", "Lure Lure", "Banjo", "the", "!!!"])
def test_resolve_misses(text: str) -> None:
    assert CAT.resolve(text) is None


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Machet", "Machete"),
        ("Brass Kuckle", "Brass Knuckles"),  # the rulebook's own typo
        ("Brass Knuckle", "Brass Knuckles"),
        ("Senorita Roza", "Señorita Rosa"),
        ("Bufalo Kid", "Buffalo Kid"),
        ("Dep. Nelson", "Deputy Nelson"),
    ],
)
def test_suggestions(text: str, expected: str) -> None:
    assert CAT.suggest(text)[0] == expected


def test_suggestions_can_be_restricted_to_gunslingers() -> None:
    assert CAT.suggest("Jenny", gunslinger=True) == ["Jenny James"]
    assert "Jenny James" not in CAT.suggest("Jenny James", gunslinger=False)
    assert CAT.suggest("zzzzzzzz") == []
    assert CAT.suggest("") == []


def test_get_unknown_id_names_close_ids() -> None:
    with pytest.raises(KeyError, match="machete"):
        CAT.get("machette")


def test_shared_gunslinger_name_resolves_by_slot() -> None:
    future = future_catalogue()
    assert future.resolve("Banjo Winter").id == "banjo-winter"
    assert future.resolve("Banjo Winter", gunslinger=False).id == "banjo-winter"
    assert future.resolve("banjo winter", gunslinger=True).id == "banjo-winter-gunslinger"
    assert future.resolve("banjo-winter-gunslinger").is_gunslinger


# -- filtering ---------------------------------------------------------------------------------------------


def test_filter() -> None:
    traps = CAT.filter(type="trap")
    assert {c.id for c in traps} >= {"fall", "lure"} and all(c.type == "TRAP" for c in traps)
    assert CAT.filter(cost="X") == traps
    assert all(c.cost == 2 for c in CAT.filter(cost=2)) and card("machete") in CAT.filter(cost=2)
    assert {c.id for c in CAT.filter(keyword="epic")} == {c.id for c in CAT if c.is_epic}
    assert [c.id for c in CAT.filter(search="senorita")] == ["senorita-rosa"]
    assert card("old-bourbon") in CAT.filter(search="heal bullet")
    assert CAT.filter(type="WEAPON", keyword="MELEE", cost=2, search="machete") == (card("machete"),)
    assert [c.id for c in CAT.filter(signature="buffalo-kid")] == [
        c.id for c in CAT.filter(signature="Buffalo Kid")
    ]
    assert {c.origin for c in CAT.filter(origin="rulebook")} == {"rulebook"}
    names = [c.key for c in CAT.filter()]
    assert names == sorted(names) and len(names) == len(CAT)


# -- the loader refuses broken data ----------------------------------------------------------------------


def find(data: dict[str, Any], card_id: str) -> dict[str, Any]:
    return next(c for c in data["cards"] if c["id"] == card_id)


def edit(card_id: str, **changes: Any) -> Callable[[dict[str, Any]], None]:
    def apply(data: dict[str, Any]) -> None:
        find(data, card_id).update(changes)

    return apply


def edit_effect(card_id: str, index: int, **changes: Any) -> Callable[[dict[str, Any]], None]:
    def apply(data: dict[str, Any]) -> None:
        find(data, card_id)["effects"][index].update(changes)

    return apply


def drop(card_id: str, field: str) -> Callable[[dict[str, Any]], None]:
    def apply(data: dict[str, Any]) -> None:
        del find(data, card_id)[field]

    return apply


def duplicate(card_id: str, **changes: Any) -> Callable[[dict[str, Any]], None]:
    def apply(data: dict[str, Any]) -> None:
        data["cards"].append({**find(data, card_id), **changes})

    return apply


BROKEN = [
    # (case, mutation, card id named, field named, words in the message)
    ("unknown type", edit("machete", type="SPELL"), "machete", "type", "unknown type 'SPELL'"),
    (
        "unknown keyword",
        edit("machete", keywords=["MELEE", "SHARP"]),
        "machete",
        "keywords",
        "unknown keyword 'SHARP'",
    ),
    ("repeated keyword", edit("machete", keywords=["MELEE", "MELEE"]), "machete", "keywords", "repeated"),
    (
        "unknown marker",
        edit_effect("whip", 0, markers=["twice_per_turn"]),
        "whip",
        "effects[0].markers",
        "unknown marker",
    ),
    (
        "unknown zone",
        edit_effect("whip", 0, zone="SALOON"),
        "whip",
        "effects[0].zone",
        "unknown zone 'SALOON'",
    ),
    (
        "unknown payment",
        edit_effect("whip", 0, paid_from="credit"),
        "whip",
        "effects[0].paid_from",
        "unknown payment",
    ),
    (
        "effect cost not an int",
        edit_effect("whip", 0, cost="②"),
        "whip",
        "effects[0].cost",
        "expected an integer",
    ),
    ("negative effect cost", edit_effect("whip", 0, cost=-1), "whip", "effects[0].cost", "at least 0"),
    ("empty effect text", edit_effect("whip", 0, text=""), "whip", "effects[0].text", "non-empty string"),
    ("unknown effect field", edit_effect("whip", 0, range=2), "whip", "range", "unknown effect field"),
    ("duplicate id", duplicate("machete", name="Other Machete"), "machete", "id", "duplicate id"),
    ("duplicate name", duplicate("machete", id="machete-2"), "machete-2", "name", "duplicate name 'Machete'"),
    (
        "duplicate name, other case and accents",
        duplicate("senorita-rosa", id="rosa", name="SENORITA rosa"),
        "rosa",
        "name",
        "duplicate name",
    ),
    (
        "duplicate gunslinger name",
        duplicate("buffalo-kid", id="buffalo-kid-2"),
        "buffalo-kid-2",
        "name",
        "duplicate name 'Buffalo Kid'",
    ),
    (
        "a name that is another card's id",
        lambda d: (edit("machete", id="big-blade")(d), edit("winchester", name="big-blade")(d)),
        "winchester",
        "name",
        "is the id of",
    ),
    ("cost missing", drop("machete", "cost"), "machete", "cost", "missing card field"),
    ("cost of the wrong kind", edit("machete", cost="2"), "machete", "cost", "expected an integer"),
    ("cost is a bool", edit("machete", cost=True), "machete", "cost", "expected an integer"),
    ("negative cost", edit("machete", cost=-2), "machete", "cost", "at least 0"),
    ("cost null on a WEAPON", edit("machete", cost=None), "machete", "cost", "expected an integer"),
    ("TRAP cost not X", edit("fall", cost=3), "fall", "cost", "a TRAP costs 'X'"),
    ("TRAP cost lowercase x", edit("fall", cost="x"), "fall", "cost", "a TRAP costs 'X'"),
    ("X on a WEAPON", edit("machete", cost="X"), "machete", "cost", "expected an integer"),
    ("ACTION with a cost", edit("improvise", cost=1), "improvise", "cost", "has no cost"),
    ("GUNSLINGER with a cost", edit("jenny-james", cost=0), "jenny-james", "cost", "has no cost"),
    ("stats on an ACTION", edit("improvise", firepower=1), "improvise", "firepower", "cannot be placed"),
    ("stats on a TRAP", edit("lure", durability=1), "lure", "durability", "cannot be placed"),
    ("no stats on a WEAPON", edit("machete", firepower=None), "machete", "firepower", "expected an integer"),
    ("zero durability", edit("machete", durability=0), "machete", "durability", "at least 1"),
    (
        "signature naming no gunslinger",
        edit("stampede", signature="Billy the Kid"),
        "stampede",
        "signature",
        "names no GUNSLINGER",
    ),
    (
        "signature naming a non-gunslinger",
        edit("stampede", signature="Banjo Winter"),
        "stampede",
        "signature",
        "names no GUNSLINGER",
    ),
    (
        "signature on a gunslinger",
        edit("jenny-james", signature="Buffalo Kid"),
        "jenny-james",
        "signature",
        "not a SIGNATURE",
    ),
    (
        "gunslinger effect paid with bullets",
        edit_effect("buffalo-kid", 0, paid_from="bullets"),
        "buffalo-kid",
        "effects[0].paid_from",
        "cartridge_belt",
    ),
    (
        "gunslinger effect not ∞",
        edit_effect("buffalo-kid", 1, markers=[]),
        "buffalo-kid",
        "effects[1].markers",
        "∞",
    ),
    (
        "card effect paid from the belt",
        edit_effect("whip", 0, paid_from="cartridge_belt"),
        "whip",
        "effects[0].paid_from",
        "only a GUNSLINGER",
    ),
    (
        "↓ on an ACTION",
        edit_effect("improvise", 0, markers=["on_place"], zone="ALLEY"),
        "improvise",
        "effects[0].markers",
        "can be placed",
    ),
    (
        "◊ without a zone",
        edit_effect("deputy-nelson", 0, zone=None),
        "deputy-nelson",
        "effects[0].zone",
        "ALLEY or SHELTER",
    ),
    (
        "↓ and ◊ at once",
        edit_effect("deputy-nelson", 0, markers=["on_place", "while_placed"]),
        "deputy-nelson",
        "effects[0].markers",
        "not both",
    ),
    (
        "ITEM with one effect",
        lambda d: find(d, "old-bourbon")["effects"].pop(),
        "old-bourbon",
        "effects",
        "two Effects",
    ),
    (
        "GUNSLINGER with three effects",
        lambda d: find(d, "jenny-james")["effects"].append(dict(find(d, "jenny-james")["effects"][0])),
        "jenny-james",
        "effects",
        "two Effects",
    ),
    ("TRAP with no effect", edit("fall", effects=[]), "fall", "effects", "needs an Effect"),
    ("bad slug id", edit("machete", id="Machete_1"), "Machete_1", "id", "slug"),
    ("empty name", edit("machete", name=""), "machete", "name", "non-empty string"),
    ("name with stray spaces", edit("machete", name="Machete "), "machete", "name", "spaces"),
    ("unknown card field", edit("machete", firepwer=2), "machete", "firepwer", "unknown card field"),
    ("unknown origin", edit("machete", origin="homebrew"), "machete", "origin", "unknown origin"),
]


@pytest.mark.parametrize("case, mutate, card_id, field, words", BROKEN, ids=[b[0] for b in BROKEN])
def test_loader_rejects_broken_card(case: str, mutate, card_id: str, field: str, words: str) -> None:
    data = raw_catalogue()
    mutate(data)
    with pytest.raises(CatalogueError) as error:
        catalogue_from_data(data)
    assert error.value.card_id == card_id
    assert error.value.field == field
    assert words in str(error.value)
    assert f"card '{card_id}'" in str(error.value)  # the message names the card for a person, too
    assert error.value.code == "catalogue/invalid"


@pytest.mark.parametrize(
    "mutate, words",
    [
        (lambda d: d.pop("version"), "version"),
        (lambda d: d.update(version=""), "version"),
        (lambda d: d.update(cards=[]), "cards"),
        (lambda d: d.update(extra=1), "unknown top-level"),
        (lambda d: d["cards"].append("Machete"), "cards["),
    ],
)
def test_loader_rejects_broken_catalogue(mutate, words: str) -> None:
    data = raw_catalogue()
    mutate(data)
    with pytest.raises(CatalogueError, match=re.escape(words)):
        catalogue_from_data(data)


def test_loader_accepts_a_gunslinger_sharing_a_card_name() -> None:
    # DECKBUILDING foresees a Banjo Winter GUNSLINGER next to the Banjo Winter BACKUP.
    future = future_catalogue()
    assert len(future) == len(CAT) + 1
    assert future.get("banjo-winter-gunslinger").name == BANJO_WINTER_GUNSLINGER["name"]


# -- formats and pre-built decks ----------------------------------------------------------------------------


def test_formats() -> None:
    formats = load_formats()
    standard = formats["standard"]
    assert (standard.deck_size, standard.max_epic, standard.max_signature) == (15, 3, 1)
    assert standard.unique_names and standard.signature_must_match
    assert standard.banned == frozenset() and standard.restricted == frozenset()
    frontier = formats["frontier"]
    assert frontier.banned and frontier.restricted and frontier.max_restricted >= 1
    assert frontier.banned <= {c.id for c in CAT} and frontier.restricted <= {c.id for c in CAT}


@pytest.mark.parametrize(
    "change, words",
    [
        ({"banned": ["no-such-card"]}, "unknown card id 'no-such-card'"),
        ({"restricted": ["machette"]}, "unknown card id 'machette'"),
        ({"deck_size": "15"}, "deck_size"),
        ({"max_epic": -1}, "max_epic"),
        ({"unique_names": 1}, "unique_names"),
        ({"key": "Standard Format"}, "slug"),
        ({"sideboard": 5}, "unknown field"),
    ],
)
def test_format_loader_rejects(change: dict[str, Any], words: str) -> None:
    data = read_data_file("formats.json")
    data["formats"][0].update(change)
    with pytest.raises(CatalogueError, match=re.escape(words)):
        formats_from_data(data, CAT)


def test_prebuilt_decks_shape() -> None:
    decks = load_prebuilt()
    assert len(decks) >= 4
    for slinger in CAT.gunslingers():
        assert len([d for d in decks if d.gunslinger == slinger.id]) >= 2
    data = read_data_file("prebuilt.json")
    data["decks"][0]["cards"][0] = "machette"
    with pytest.raises(CatalogueError, match="unknown card id 'machette'"):
        prebuilt_from_data(data, CAT)
