"""Rattlebones engine tests, one file per rule area. The helpers drive a state through events exactly
as the service would (`Game.apply`); each returns a new state (a clone advanced), so a test may keep
the state before an event and compare. `table()` sets a state up directly where a rulebook example
starts mid-game (dice already customised, pieces in hand)."""

from __future__ import annotations

from typing import Any

from engines.protocol import Event
from engines.rattlebones import GAME
from engines.rattlebones.catalogue import CATALOGUE
from engines.rattlebones.state import RattlebonesState

STANDARD = CATALOGUE.die_sides  # ("rattlebones", "2", "3", "4", "5", "6")


def new(seats: int = 2) -> RattlebonesState:
    return GAME.new_state(seats=seats)


def after(state: RattlebonesState, event: Event) -> RattlebonesState:
    following = state.clone()
    GAME.apply(following, event)
    return following


def act(state: RattlebonesState, action: dict[str, Any], seat: int | None = None) -> RattlebonesState:
    return after(state, Event.action(state.player if seat is None else seat, action))


def chance(state: RattlebonesState, outcome: dict[str, Any]) -> RattlebonesState:
    return after(state, Event.chance_outcome(outcome))


def tiles_permutation(placed: dict[int, str]) -> list[int]:
    """A set-up shuffle that puts the named tiles on the named blank spaces (the rest in any order)."""
    tiles = list(CATALOGUE.tiles)
    order: list[int | None] = [None] * len(tiles)
    for space, tile in placed.items():
        order[CATALOGUE.tile_spaces.index(space)] = tiles.index(tile)
    rest = iter(index for index in range(len(tiles)) if index not in order)
    return [next(rest) if index is None else index for index in order]


def set_up(seats: int = 2, placed: dict[int, str] | None = None) -> RattlebonesState:
    return chance(new(seats), {"permutation": tiles_permutation(placed or {})})


def table(seats: int = 2, placed: dict[int, str] | None = None, **fields: Any) -> RattlebonesState:
    """A set-up state, then changed directly: `dice={slot: sides}`, `pawns={slot: space}` and any plain
    field (gold=[...], stars=[...], scores=[...], rattlebones=..., player=...). Side supplies follow
    the dice so that nothing is created or lost."""
    state = set_up(seats, placed)
    for slot, sides in fields.pop("dice", {}).items():
        put_die(state, slot, tuple(sides))
    for slot, space in fields.pop("pawns", {}).items():
        state.pawns[slot] = space
    gold, stars, stock = fields.get("gold"), fields.get("stars"), fields.get("stock")
    for name, value in fields.items():
        setattr(state, name, list(value) if isinstance(value, list) else value)
    if gold is not None:
        state.gold_supply = CATALOGUE.gold - sum(gold)
    if stars is not None:
        state.star_supply = CATALOGUE.stars - sum(stars)
    if stock is not None:
        state.stock_supply = CATALOGUE.stock - sum(stock)
    state.decision_cache = state.legal_cache = None
    return state


def _kind(side: str) -> str | None:
    """The supply of an action side; None for the icon and pip sides."""
    from engines.rattlebones.rules import supply_kind

    return None if side == "rattlebones" else supply_kind(side)


def put_die(state: RattlebonesState, slot: int, sides: tuple[str, ...]) -> None:
    """Give a die these sides, taking action sides from the supply (and giving the old ones back)."""
    for old in state.dice[slot]:
        kind = _kind(old)
        if kind is not None:
            state.sides[kind] += 1
        elif old != "rattlebones":
            state.pips_out += 1
    for new_side in sides:
        kind = _kind(new_side)
        if kind is not None:
            state.sides[kind] -= 1
        elif new_side != "rattlebones":
            state.pips_out -= 1
    state.dice[slot] = sides


def roll(state: RattlebonesState, dice: list[int], sides: list[int]) -> RattlebonesState:
    """The player rolls `dice` and they come up on the given side indices (a d6 value is index + 1)."""
    state = act(state, {"type": "roll", "dice": dice})
    return chance(state, {"dice": [side + 1 for side in sides]})


def use(state: RattlebonesState, die: int, **choices: Any) -> RattlebonesState:
    return act(state, {"type": "use_die", "die": die, **choices})


def move(state: RattlebonesState, die: int, start: int, steps: int, replace: int | None = None,
         new_side: str | None = None) -> RattlebonesState:  # fmt: skip
    return use(state, die, **{"from": start, "steps": steps, "replace_side": replace, "new_side": new_side})


def count_pieces(state: RattlebonesState) -> dict[str, int]:
    """Every piece in the game wherever it is: each side kind on dice and in supply, gold, stars, stock,
    and the pip sides still on dice plus those out of the game."""
    totals = dict(state.sides)
    pips = state.pips_out
    for sides in state.dice:
        for side in sides:
            kind = _kind(side)
            if kind is not None:
                totals[kind] += 1
            elif side != "rattlebones":
                pips += 1
    totals["pips"] = pips
    totals["gold"] = state.gold_supply + sum(state.gold)
    totals["stars"] = state.star_supply + sum(state.stars)
    totals["stock"] = state.stock_supply + sum(state.stock)
    return totals
