"""Rattlesnake engine tests, one file per rule area. The helpers drive a state through events exactly
as the service would (`Game.apply`); each returns the state after the event as a new state (a clone
advanced in place), so a test may keep the state before it. `table()` sets a state up directly where
a rulebook example starts mid-game."""

from __future__ import annotations

from collections import Counter
from typing import Any

from engines.protocol import Event
from engines.rattlesnake import GAME
from engines.rattlesnake.catalogue import CATALOGUE, HIT
from engines.rattlesnake.rules import ABILITY, EVENTS, _buyable, _sorted, rules_with
from engines.rattlesnake.state import MAIN, RattlesnakeState


def new(**options: Any) -> RattlesnakeState:
    return GAME.new_state(seats=2, options=options)


def after(state: RattlesnakeState, event: Event) -> RattlesnakeState:
    following = state.clone()
    GAME.apply(following, event)
    return following


def act(state: RattlesnakeState, seat: int, action: dict[str, Any]) -> RattlesnakeState:
    return after(state, Event.action(seat, action))


def shuffle(state: RattlesnakeState, permutation: list[int] | None = None) -> RattlesnakeState:
    """A shuffle outcome; by default the identity (the pile keeps its order)."""
    size = GAME.chance_request(state).size
    return after(state, Event.chance_outcome({"permutation": permutation or list(range(size))}))


def set_up(pistol: int = 0) -> RattlesnakeState:
    """Every set-up shuffle as the identity, then the pistol to `pistol`: the first turn's MAIN."""
    state = new()
    while GAME.decision(state).kind == "chance" and GAME.chance_request(state).kind == "shuffle":
        state = shuffle(state)
    return after(state, Event.chance_outcome({"index": pistol}))


def table(
    *,
    hands: tuple[list[str], list[str]],
    decks: tuple[list[str], list[str]] = ([], []),
    discards: tuple[list[str], list[str]] = ([], []),
    saloon: list[str | None] | None = None,
    saloon_deck: list[str] | None = None,
    hits: tuple[int, int] = (4, 4),
    active: int = 0,
) -> RattlesnakeState:
    """A state at the active player's step 2 (after the draw), set up directly. Cards not placed
    anywhere are simply not in the game: use it for rule tests, not for counting cards."""
    state = new(pistol="seat_0")
    state.phase = MAIN
    state.hands = tuple(_sorted(tuple(hand)) for hand in hands)
    state.decks = tuple(tuple(deck) for deck in decks)
    state.discards = tuple(tuple(discard) for discard in discards)
    state.saloon = tuple(
        saloon if saloon is not None else ["switch-up", "distract", "take-cover", "dead-eye", "disarm"]
    )
    state.saloon_deck = tuple(saloon_deck or [])
    state.hits = hits
    state.active = active
    state.buyable = _buyable(state.saloon)
    state.rules = rules_with(tuple(name for name in state.saloon if name in EVENTS))
    # The saloon cards each player owns (as if bought earlier): wherever they are in its area.
    state.owned = tuple(
        sum(1 for zone in zones for card in zone if card in ABILITY)
        for zones in zip(state.hands, state.decks, state.discards)
    )
    state.decision_cache = None
    return state


def every_card(state: RattlesnakeState) -> tuple[list[Counter], Counter]:
    """Per seat: its numbered cards and Hits wherever they are (Hits in front counted as "hit");
    and every saloon card wherever it is, the box included."""
    seats = []
    saloon: Counter = Counter()
    for seat in (0, 1):
        cards: Counter = Counter()
        zones = [state.decks[seat], state.hands[seat], state.discards[seat]]
        zones.append(state.attack if seat == state.active else state.defense)
        for zone in zones:
            for card in zone:
                if card in {HIT, *(str(v) for v, _ in CATALOGUE.player_deck)}:
                    cards[card] += 1
                else:
                    saloon[card] += 1
        cards[HIT] += state.hits[seat]
        seats.append(cards)
    for zone in (state.saloon, state.saloon_deck, state.out_of_game, state.graveyard, *state.piles):
        saloon.update(card for card in zone if card is not None)
    saloon.update(pending.card for pending in state.stack)
    return seats, saloon


def full_set() -> tuple[Counter, Counter]:
    """One player's cards and every saloon card, as the box holds them."""
    player = Counter(CATALOGUE.player_cards())
    player[HIT] = CATALOGUE.hits
    saloon = Counter(CATALOGUE.action_cards)
    saloon.update(event.name for event in CATALOGUE.events)
    return player, saloon
