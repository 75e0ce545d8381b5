"""The Greatest Snake engine tests, one file per rule area. States are driven through events exactly as
the service would (`Game.apply`); where a rulebook example starts mid-game, `table()` lays the cards
out directly. Each helper returns a new state (a clone advanced in place), so a test may keep the
state before an event and compare."""

from __future__ import annotations

from typing import Any

from engines.greatestsnake import GAME
from engines.greatestsnake.catalogue import CARDS, DECK_CARDS, FASHIONABLE_BODIES, IS_RAT
from engines.greatestsnake.state import MAIN, NO_CARD, SnakeState
from engines.protocol import Event


def card(key: str, copy: int = 0) -> int:
    """The id of the `copy`-th physical card with this key."""
    return [c.id for c in CARDS if c.key == key][copy]


def after(state: SnakeState, event: Event) -> SnakeState:
    following = state.clone()
    GAME.apply(following, event)
    return following


def act(state: SnakeState, seat: int, action: dict[str, Any]) -> SnakeState:
    return after(state, Event.action(seat, action))


def chance(state: SnakeState, outcome: dict[str, Any]) -> SnakeState:
    return after(state, Event.chance_outcome(outcome))


def pass_all(state: SnakeState) -> SnakeState:
    """Every seat still asked in the open response window passes, lowest seat first."""
    while state.phase == "respond":
        state = act(state, min(GAME.decision(state).seats), {"type": "pass"})
    return state


def top_first(pile: list[int], cards: list[int]) -> list[int]:
    """A permutation of `pile` that puts `cards` on top, the first of them drawn first (pile tops
    are list ends), the rest below in their order."""
    rest = [index for index, c in enumerate(pile) if c not in cards]
    return rest + [pile.index(c) for c in reversed(cards)]


def table(
    seats: int = 3,
    *,
    active: int = 0,
    hands: dict[int, list[int]] | None = None,
    deck_top: list[int] | None = None,
    rats: dict[int, dict[int, int]] | None = None,
    bodies: dict[int, list[int]] | None = None,
    gear: dict[int, dict[int, int]] | None = None,
    pit: list[int] | None = None,
    phase: str = MAIN,
    **options: Any,
) -> SnakeState:
    """A state in the middle of `active`'s turn (after the draw, by default), laid out directly.

    hands: seat -> cards; deck_top: the next cards drawn, first first; rats: seat -> {position: rat}
    (0 is the Head); bodies: seat -> digested rats after the Fashionable Body; gear: seat -> {Body
    Card index: equipment}; pit: bottom to top. Every other card of the Deck lies under deck_top."""
    state = GAME.new_state(seats=seats, options={"first_player": str(active), **options})
    hands = hands or {}
    bodies = bodies or {}
    placed = set(deck_top or []) | set(pit or [])
    for cards in [*hands.values(), *bodies.values()]:
        placed |= set(cards)
    for spaces in (rats or {}).values():
        placed |= set(spaces.values())
    for equipped in (gear or {}).values():
        placed |= set(equipped.values())
    state.deck = [c for c in state.deck if c not in placed] + list(reversed(deck_top or []))
    state.hands = [list(hands.get(seat, [])) for seat in range(seats)]
    state.pit = list(pit or [])
    for seat in range(seats):
        state.bodies[seat] = [FASHIONABLE_BODIES[seat], *bodies.get(seat, [])]
        state.gear[seat] = [NO_CARD] * len(state.bodies[seat])
        for index, equipment in (gear or {}).get(seat, {}).items():
            state.gear[seat][index] = equipment
        state.spaces[seat] = [NO_CARD] * (len(state.bodies[seat]) + 2)
        for position, rat in (rats or {}).get(seat, {}).items():
            state.spaces[seat][position] = rat
    state.active = active
    state.turn_number = 1
    state.phase = phase
    state.decision_cache = state.legal_cache = state.targets = None
    return state


def every_card(state: SnakeState) -> list[int]:
    """Every card on the table, wherever it is (each id must appear exactly once)."""
    cards = [*state.deck, *state.discard, *state.pit]
    for seat in range(state.seats):
        cards += state.hands[seat]
        cards += state.bodies[seat][1:]
        cards += [c for c in state.gear[seat] if c >= 0]
        cards += [c for c in state.spaces[seat] if c >= 0]
        if state.glue[seat] >= 0:
            cards.append(state.glue[seat])
    for used in state.ammo.values():
        cards += used
    if state.drawn >= 0:
        cards.append(state.drawn)
    cards += [entry.card for entry in state.stack if entry.what in ("eat", "equip", "play")]
    return cards


def deck_cards(state: SnakeState) -> list[int]:
    return [c for c in DECK_CARDS if state.options.expansion or not CARDS[c].expansion]


__all__ = ["GAME", "IS_RAT", "act", "after", "card", "chance", "every_card", "pass_all", "table", "top_first"]
