"""Every value the rulebook (rules 0.3) prints, checked against the catalogue -- and every catalogue
field marked `printed` is one of them, so nothing the project designed reads like a printed fact."""

from __future__ import annotations

from typing import Any

import pytest

from engines.ragnguns.catalogue import load_catalogue

CAT = load_catalogue()

# (card, field or "effects[i].field") -> (value, the sentence that prints it)
PRINTED: dict[tuple[str, str], tuple[Any, str]] = {
    ("machete", "type"): ("WEAPON", "If I put the Machete there (a MELEE WEAPON)"),
    ("machete", "keywords"): (("MELEE",), "If I put the Machete there (a MELEE WEAPON)"),
    ("machete", "cost"): (2, "the Machete costs 2"),
    ("machete", "firepower"): (2, "the Machete has 2 ♠"),
    ("machete", "durability"): (1, "the Machete has 1 ♥"),
    ("sisters", "firepower"): (3, "I've got the Sisters in my Alley, which gives me a 3 ♠"),
    ("iron-bar", "durability"): (1, "my opponent has the Iron bar (1 ♥) in his Shelter"),
    ("improvise", "type"): ("ACTION", "Improvise in hand - it's an ACTION"),
    ("fall", "type"): ("TRAP", "I decide to play Fall ... I put three Bullets on the face-down card"),
    ("deputy-nelson", "type"): (
        "BACKUP",
        "BACKUPS also have two unusual symbols ... Deputy Nelson's ♦ Effect",
    ),
    ("banjo-winter", "type"): ("BACKUP", "you can't take Banjo Winter BACKUP"),
    ("whip", "effects[0].cost"): (2, "the Effect of the Whip card needs two Bullet"),
    ("whip", "effects[0].do"): (
        [{"op": "shoot", "n": 1, "at": "alley_card"}],
        "allows you to shoot one of these Bullets into your opponent's Alley",
    ),
    ("old-bourbon", "effects[0].markers"): (("once_per_turn",), "the ∞ Effect of Old Bourbon"),
    ("old-bourbon", "effects[0].do"): ([{"op": "heal", "n": 1, "on": "any"}], "allows me to heal one Bullet"),
    ("improvise", "effects[0].cost"): (
        {"by_paying_one": 1, "so_i_pay_nothing": 0},
        "by paying ① I can pick a MELEE card ... So I pay nothing",
    ),
    ("improvise", "effects[0].do"): (
        [{"op": "pick", "keywords": ["MELEE"]}],
        "I can pick a MELEE card in my discard zone and hide it",
    ),
    ("jenny-james", "effects[0].cost"): (
        2,
        "I can spend two Bullets from my Cartridge Belt to heal one Bullet",
    ),
    ("jenny-james", "effects[0].do"): ([{"op": "heal", "n": 1, "on": "any"}], "to heal one Bullet"),
    ("deputy-nelson", "effects[0].markers"): (("while_placed",), "Deputy Nelson's ♦ Effect is active"),
    ("deputy-nelson", "effects[0].zone"): ("SHELTER", "as long as the card is placed in my Shelter"),
    ("deputy-nelson", "effects[1].markers"): (("on_place",), "whereas his ↓ Effect is activated"),
    ("deputy-nelson", "effects[1].zone"): ("ALLEY", "in the moment I place it in the Alley"),
    ("deputy-nelson", "effects[1].do"): (
        [{"op": "pick", "keywords": ["SHERIFF"]}],
        "it doesn't allow me to pick a SHERIFF card from my discard zone",
    ),
    ("buffalo-kid", "effects[0].do"): (
        [{"op": "boost", "n": 1, "type": "WEAPON"}],
        "Buffalo Kid's first Effect allows me to increase the ♠ of a WEAPON in my Alley",
    ),
    ("buffalo-kid", "effects[1].do"): (
        [{"op": "require", "zones": ["alley"], "keyword": "MELEE"}, {"op": "shoot", "n": 1, "at": "volley"}],
        "his second to shoot a Bullet if I have a MELEE in my Alley",
    ),
}
# Values printed as rules for a whole TYPE: "ACTIONS have no cost or statistic"; "A TRAP has a cost
# of X"; TRAPS are never placed; a GUNSLINGER is not bought and is not a SIGNATURE card; its Effects
# "can only be paid by the BULLETS in your CARTRIDGE BELT" and "Of course these EFFECTS are ∞".
TYPE_RULES: dict[tuple[str, str], Any] = {
    ("ACTION", "cost"): None,
    ("ACTION", "firepower"): None,
    ("ACTION", "durability"): None,
    ("TRAP", "cost"): "X",
    ("TRAP", "firepower"): None,
    ("TRAP", "durability"): None,
    ("GUNSLINGER", "cost"): None,
    ("GUNSLINGER", "signature"): None,
    ("GUNSLINGER", "effects[].markers"): ("once_per_turn",),
}


def _value(card_id: str, path: str) -> Any:
    card = CAT.get(card_id)
    if not path.startswith("effects["):
        return getattr(card, path)
    index, name = int(path[8 : path.index("]")]), path.split(".", 1)[1]
    effect = card.effects[index]
    if name == "do":
        return [step.to_dict() for step in effect.do]
    if name == "cost" and effect.readings:
        return dict(effect.readings)
    return getattr(effect, name)


@pytest.mark.parametrize(("card_id", "path"), sorted(PRINTED))
def test_the_catalogue_holds_what_the_rulebook_prints(card_id: str, path: str) -> None:
    expected, sentence = PRINTED[(card_id, path)]
    assert _value(card_id, path) == expected, sentence
    field = path.split(".")[-1]
    card = CAT.get(card_id)
    provenance = (
        dict(card.provenance)
        if not path.startswith("effects[")
        else dict(card.effects[int(path[8 : path.index("]")])].provenance)
    )
    assert provenance[field if field in provenance else "cost"] == "printed"


def test_type_rules_hold_for_every_card() -> None:
    for card in CAT:
        for (card_type, field), expected in TYPE_RULES.items():
            if card.type != card_type:
                continue
            if field == "effects[].markers":
                assert all(effect.markers == expected for effect in card.effects), card.id
            else:
                assert getattr(card, field) == expected, (card.id, field)
        for effect in card.effects:
            assert (effect.paid_from == "cartridge_belt") == card.is_gunslinger


def test_every_field_marked_printed_is_checked_above() -> None:
    """A value marked `printed` must be a printed value: in PRINTED, or a rule for its TYPE."""
    unchecked = []
    for card in CAT:
        for field, where in card.provenance:
            if (
                where == "printed"
                and (card.id, field) not in PRINTED
                and (card.type, field) not in TYPE_RULES
            ):
                unchecked.append((card.id, field))
        for index, effect in enumerate(card.effects):
            for field, where in effect.provenance:
                if where != "printed" or field == "paid_from":
                    continue
                if (card.id, f"effects[{index}].{field}") in PRINTED:
                    continue
                if (card.type, f"effects[].{field}") in TYPE_RULES:
                    continue
                unchecked.append((card.id, f"effects[{index}].{field}"))
    assert unchecked == []


def test_every_field_has_a_provenance() -> None:
    for card in CAT:
        assert {field for field, _ in card.provenance} == {
            "type",
            "cost",
            "firepower",
            "durability",
            "keywords",
            "signature",
        }
        for effect in card.effects:
            assert {field for field, _ in effect.provenance} == {"cost", "markers", "zone", "paid_from", "do"}
        assert card.to_dict()["provenance"] == dict(card.provenance)
