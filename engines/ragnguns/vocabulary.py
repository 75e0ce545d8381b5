"""Rag'n'Guns: the effect vocabulary (rules 0.3, EFFECTS, BACKUPS and TRAPS).

The rulebook writes Effects as prose ("Shoot one Bullet", "Heal one Bullet", "pick a MELEE card in
my discard zone and hide it"); the catalogue writes each Effect's `do` as a list of steps made of the
few verbs below, and the engine (engines/ragnguns/effects.py) interprets them. No card name appears
in engine code: a new card is a catalogue entry made of these verbs. Every verb and argument, and
why each card reads as it does, is in docs/games/ragnguns.md ("The effect vocabulary").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engines.ragnguns.errors import CatalogueError

# Where a shot lands. "volley": as in a GUNFIGHT ("put it on your opponent's SHELTER ... the
# opponent distributes the remaining BULLETS between his ALLEY and his GUNSLINGER"); the others hit
# one card directly ("at the card in your opponent's Alley").
SHOT_TARGETS = ("volley", "alley_card", "shelter_card", "gunslinger")
# What a heal applies to: "any" (one of your cards in play carrying a Bullet, of your choice),
# "each" (each of yours), a zone of yours, or the opponent's gunslinger.
HEAL_TARGETS = ("any", "each", "gunslinger", "alley_card", "shelter_card", "opponent_gunslinger")
DISCARD_TARGETS = ("alley_card", "shelter_card", "hideout_tops")  # always the opponent's
OWN_ZONES = ("alley", "shelter")

# verb -> (argument -> allowed kind); "int" is a whole number >= 0; a tuple lists the choices.
_KEYWORD = "keyword"
VERBS: dict[str, dict[str, Any]] = {
    # played Effects (paid, or ↓ on placing, or a TRAP's reveal)
    "shoot": {"n": ("int", "trap_bullets", "per_keyword"), "at": SHOT_TARGETS, "keyword": _KEYWORD},
    "heal": {"n": ("int", "all"), "on": HEAL_TARGETS, "keyword": _KEYWORD},
    "pick": {"keywords": "keywords"},
    "discard": {"at": DISCARD_TARGETS, "if_wounded": "bool"},
    "discard_from_hand": {},
    "draw": {"n": ("int",)},
    "hide_top": {},
    "swap": {"whose": ("own", "opponent")},
    "extra_gunfight": {},
    "boost": {"n": ("int",), "type": "type"},
    "require": {"zones": "zones", "keyword": _KEYWORD},
    "move_wound": {},
    "return_to_hideout": {},
    # ◊ (while_placed): lasting, read by the engine while the card sits in the zone indicated
    "shield": {"n": ("int",)},
    "upkeep_heal": {"n": ("int",), "on": ("gunslinger", "alley_card")},
    "discount": {"n": ("int",), "keyword": _KEYWORD, "others": "bool"},
    "no_opponent_traps": {},
    "ready_from_turn": {"turn": ("int",)},
    "firepower": {"n": ("int",), "per_keyword": _KEYWORD, "if_hideout_keyword": _KEYWORD},
    "belt_bonus": {"n": ("int",)},
}
LASTING_VERBS = frozenset(
    {"shield", "upkeep_heal", "discount", "no_opponent_traps", "ready_from_turn", "firepower", "belt_bonus"}
)
_REQUIRED = {
    "shoot": ("n", "at"),
    "heal": ("n", "on"),
    "pick": ("keywords",),
    "discard": ("at",),
    "draw": ("n",),
    "swap": ("whose",),
    "boost": ("n",),
    "require": ("zones",),
    "shield": ("n",),
    "upkeep_heal": ("n", "on"),
    "discount": ("n", "keyword"),
    "ready_from_turn": ("turn",),
    "firepower": ("n",),
    "belt_bonus": ("n",),
}
# The catalogue's KEYWORDS and TYPES, repeated here so this module imports nothing of the catalogue.
_KEYWORDS = frozenset(
    {"EPIC", "MOUNT", "ANIMAL", "GIRL", "QUICK", "ALCOHOL", "HEAL", "MELEE", "FIRE", "MUSIC", "SHERIFF"}
)
_TYPES = frozenset({"ACTION", "WEAPON", "ITEM", "TRAP", "BACKUP", "GUNSLINGER"})


@dataclass(frozen=True)
class Step:
    """One verb of an Effect with its arguments (hashable, read-only)."""

    op: str
    args: tuple[tuple[str, Any], ...] = ()

    def get(self, name: str, default: Any = None) -> Any:
        for key, value in self.args:
            if key == name:
                return value
        return default

    def to_dict(self) -> dict[str, Any]:
        return {
            "op": self.op,
            **{key: list(value) if isinstance(value, tuple) else value for key, value in self.args},
        }

    def keys(self):  # so dict(step) works
        return ["op", *(key for key, _ in self.args)]

    def __getitem__(self, name: str) -> Any:
        if name == "op":
            return self.op
        value = self.get(name, _MISSING)
        if value is _MISSING:
            raise KeyError(name)
        return list(value) if isinstance(value, tuple) else value


_MISSING = object()


def _fail(message: str, card_id: str, where: str) -> None:
    raise CatalogueError(message, card_id=card_id, field=where)


def _check_value(kind: Any, value: Any, card_id: str, where: str) -> Any:
    if kind == _KEYWORD:
        if value not in _KEYWORDS:
            _fail(f"unknown keyword {value!r}", card_id, where)
        return value
    if kind == "keywords":
        if not isinstance(value, list) or not value or any(k not in _KEYWORDS for k in value):
            _fail(f"expected a list of KEYWORDS, got {value!r}", card_id, where)
        return tuple(value)
    if kind == "zones":
        if not isinstance(value, list) or not value or any(z not in OWN_ZONES for z in value):
            _fail(f"expected a list of {OWN_ZONES}, got {value!r}", card_id, where)
        return tuple(value)
    if kind == "type":
        if value not in _TYPES:
            _fail(f"unknown type {value!r}", card_id, where)
        return value
    if kind == "bool":
        if type(value) is not bool:
            _fail(f"expected true or false, got {value!r}", card_id, where)
        return value
    choices = kind
    if "int" in choices and type(value) is int and value >= 0:
        return value
    if value in choices and value != "int":
        return value
    _fail(
        f"expected one of {[c for c in choices if c != 'int']} or a whole number >= 0, got {value!r}"
        if "int" in choices
        else f"expected one of {list(choices)}, got {value!r}",
        card_id,
        where,
    )
    return None


def check_steps(
    raw: Any, *, card_id: str, card_type: str, markers: list[str], where: str
) -> tuple[Step, ...]:
    """Validate an Effect's `do` list and build its steps (CatalogueError naming the field)."""
    if not isinstance(raw, list):
        _fail(f"expected a list of steps, got {raw!r}", card_id, where)
    lasting = "while_placed" in markers
    steps: list[Step] = []
    for index, entry in enumerate(raw):
        at = f"{where}[{index}]"
        if not isinstance(entry, Mapping) or entry.get("op") not in VERBS:
            _fail(f"a step is an object whose op is one of {sorted(VERBS)}, got {entry!r}", card_id, at)
        op = entry["op"]
        allowed = VERBS[op]
        unknown = sorted(set(entry) - {"op"} - set(allowed))
        if unknown:
            _fail(f"unknown argument(s) {unknown} for {op!r}", card_id, at)
        missing = [name for name in _REQUIRED.get(op, ()) if name not in entry]
        if missing:
            _fail(f"{op!r} needs {missing}", card_id, at)
        if (op in LASTING_VERBS) != lasting:
            _fail(f"{op!r} is {'not ' if lasting else ''}a lasting (◊) verb", card_id, at)
        if op == "discard_from_hand" and card_type != "TRAP":
            _fail(
                "only a TRAP makes the opponent discard from their hand (they choose, on their turn)",
                card_id,
                at,
            )
        if op == "shoot" and entry["n"] == "per_keyword" and "keyword" not in entry:
            _fail("a shot per keyword names the keyword", card_id, at)
        if op == "shoot" and entry["at"] == "volley" and index != len(raw) - 1:
            # the defender's distribution is a decision of theirs: nothing may follow it in the same Effect
            _fail("a volley is the last step of an Effect", card_id, at)
        args = tuple(
            (name, _check_value(allowed[name], entry[name], card_id, f"{at}.{name}"))
            for name in sorted(entry)
            if name != "op"
        )
        steps.append(Step(op, args))
    return tuple(steps)
