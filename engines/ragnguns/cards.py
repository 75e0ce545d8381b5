"""Rag'n'Guns: the catalogue compiled for play (rules 0.3: TYPES OF CARDS, EFFECTS, BACKUPS).

The engine reads cards only through these records, built once from catalogue.json: the numbers
(cost, ♠, ♥), the keywords, and each Effect's timing (∞ once per turn, ↓ on placing, ◊ while
placed), zone, payment and steps. No card is named here.
"""

from __future__ import annotations

from dataclasses import dataclass

from engines.ragnguns.catalogue import Card, Catalogue, load_catalogue
from engines.ragnguns.vocabulary import Step

_ARGS = (
    "n",
    "at",
    "on",
    "keyword",
    "keywords",
    "zones",
    "type",
    "whose",
    "turn",
    "per_keyword",
    "if_hideout_keyword",
    "if_wounded",
    "others",
)
# Verbs whose playability depends on the table, or that take a choice (see effects.options).
_CONDITIONAL = frozenset({"require", "pick", "hide_top", "swap", "boost", "move_wound"})


class Op:
    """A catalogue step with its arguments as attributes (None when absent): read on the hot path."""

    __slots__ = ("op", *_ARGS)

    def __init__(self, step: Step) -> None:
        self.op = step.op
        for name in _ARGS:
            setattr(self, name, step.get(name))

    def __repr__(self) -> str:
        return f"Op({self.op!r})"


@dataclass(frozen=True, slots=True)
class Play:
    """One Effect as the engine plays it."""

    index: int
    cost: int
    readings: tuple[tuple[str, int], ...]
    once_per_turn: bool  # ∞: the card stays; one use per turn
    on_place: bool  # ↓
    while_placed: bool  # ◊
    zone: str | None  # ALLEY, SHELTER, HIDEOUT, HAND or None
    from_belt: bool  # a GUNSLINGER's Effect, paid from the Cartridge Belt
    steps: tuple[Op, ...]
    simple: bool  # playable whenever paid for, with no choice to make

    def cost_under(self, reading: str) -> int:
        for name, cost in self.readings:
            if name == reading:
                return cost
        return self.cost


@dataclass(frozen=True, slots=True)
class Info:
    id: str
    type: str
    cost: int  # 0 for ACTION/TRAP/GUNSLINGER
    firepower: int
    durability: int
    keywords: frozenset[str]
    placeable: bool  # a WEAPON, ITEM or BACKUP: "Only cards with statistics ... can be placed"
    plays: tuple[Play, ...]  # Effects a player pays for and plays (not ↓, not ◊)
    on_place: tuple[tuple[str, Play], ...]  # (zone, ↓ Effect)
    lasting: tuple[tuple[str, Op], ...]  # (zone, ◊ step)
    cheapest: int  # the lowest printed cost among `plays` (a quick "cannot pay any" test)

    def on_place_in(self, zone: str) -> Play | None:
        for where, play in self.on_place:
            if where == zone:
                return play
        return None


def _compile(card: Card) -> Info:
    plays: list[Play] = []
    on_place: list[tuple[str, Play]] = []
    lasting: list[tuple[str, Op]] = []
    for index, effect in enumerate(card.effects):
        play = Play(
            index=index,
            cost=effect.cost,
            readings=effect.readings,
            once_per_turn=effect.once_per_turn,
            on_place="on_place" in effect.markers,
            while_placed="while_placed" in effect.markers,
            zone=effect.zone,
            from_belt=effect.paid_from == "cartridge_belt",
            steps=tuple(Op(step) for step in effect.do),
            simple=not any(
                step.op in _CONDITIONAL or (step.op == "heal" and step.get("on") == "any")
                for step in effect.do
            ),
        )
        if play.on_place:
            on_place.append((effect.zone.lower(), play))
        elif play.while_placed:
            lasting.extend((effect.zone.lower(), step) for step in play.steps)
        else:
            plays.append(play)
    return Info(
        id=card.id,
        type=card.type,
        cost=card.cost if isinstance(card.cost, int) else 0,
        firepower=card.firepower or 0,
        durability=card.durability or 0,
        keywords=frozenset(card.keywords),
        placeable=card.type in ("WEAPON", "ITEM", "BACKUP"),
        plays=tuple(plays),
        on_place=tuple(on_place),
        lasting=tuple(lasting),
        cheapest=min((min([play.cost, *(cost for _, cost in play.readings)]) for play in plays), default=99),
    )


def compile_catalogue(catalogue: Catalogue) -> dict[str, Info]:
    return {card.id: _compile(card) for card in catalogue}


CARDS: dict[str, Info] = compile_catalogue(load_catalogue())
