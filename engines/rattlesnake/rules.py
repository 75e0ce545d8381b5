"""Rattlesnake: the rules (rulebook "Setup", "How to Play", "Buying a Card", "Attacking & Defending",
"Card Abilities", "Graveyard").

Set-up is a series of chance events (the saloon's shuffles, each player's deck, the pistol). A turn:
both players draw up to the hand size (an empty deck asks for a shuffle of the discard), then the
active player buys, attacks, uses abilities, in any order, until passing the pistol. An attack is
played face down by the attacker (the count is public), then by the defender; then the cards are
revealed and either player may use abilities before the winner is declared. Cards are used "at any
time, on any turn": the defender may also use Patch Up or Scavenge before defending, and the other
player at the end of the active player's main phase (`turn_end`). Every ability waits on a stack
while its owner's opponent may answer with *Take Cover*. A seat is asked only when it holds a card it
can use, and wherever the rules leave exactly one possibility the engine moves on by itself, so every
`Decision` is a real choice (never a lone "pass").
docs/games/rattlesnake.md lists every reading made here.

The state is changed in place (see `engines.protocol.EngineState`): every `apply_*` checks the event
completely before its first assignment, so a refused event leaves the state as it was.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from engines.bots import RandomBot
from engines.chance import ChanceRequest
from engines.errors import IllegalAction
from engines.protocol import Action, Bot, Decision, Event, Game, Outcome, View
from engines.rattlesnake.bots import HeuristicBot
from engines.rattlesnake.catalogue import ABILITY, CATALOGUE, COMBAT_ABILITIES, HIGH, HIT, LOW, RANK, VALUE
from engines.rattlesnake.combos import judged, strongest
from engines.rattlesnake.sentences import describe_event
from engines.rattlesnake.spec import SEAT_0, SPEC, Options
from engines.rattlesnake.state import (
    CHANCE_PHASES,
    DEFEND,
    MAIN,
    OVER,
    PISTOL,
    PLAYER_DECK,
    RESPOND,
    REVEAL,
    SALOON_ACTIONS,
    SALOON_EVENTS,
    SALOON_PILE,
    SHUFFLE_DISCARD,
    TURN_END,
    AttackRecord,
    Pending,
    RattlesnakeState,
    Rules,
)

NO_HITS = "no_hits"
_CACHE = 1 << 16  # bound of each cache below (hands and numbers met in practice: a few thousand)
FORFEIT = "forfeit"

EVENTS = {event.name: event for event in CATALOGUE.events}
CARDS = frozenset(RANK)
PLAYER_CARDS = CATALOGUE.player_cards()
ACTION_CARDS = CATALOGUE.action_cards
SHUFFLED_EVENTS = CATALOGUE.shuffled_events
TAKE_COVER = frozenset(name for name, ability in ABILITY.items() if ability == "cancel")

# The fields of each action, exactly (an ability's fields depend on its kind).
ACTION_FIELDS: dict[str, frozenset[str]] = {
    "buy": frozenset({"type", "discard", "card"}),
    "attack": frozenset({"type", "cards"}),
    "defend": frozenset({"type", "cards"}),
    "pass": frozenset({"type"}),
    "end_turn": frozenset({"type"}),
    "use": frozenset({"type", "card"}),  # plus the fields of USE_FIELDS
}
USE_FIELDS: dict[str, frozenset[str]] = {
    "set_value": frozenset({"index", "value"}),
    "raise": frozenset({"index"}),
    "lower": frozenset({"index"}),
    "disarm": frozenset({"index"}),
    "swap": frozenset({"index", "other"}),
    "cancel": frozenset(),
    "patch_up": frozenset(),
    "scavenge": frozenset({"pick"}),
}
ACTIONS_OF_PHASE: dict[str, frozenset[str]] = {
    MAIN: frozenset({"buy", "attack", "use", "end_turn"}),
    DEFEND: frozenset({"defend", "use"}),
    REVEAL: frozenset({"use", "pass"}),
    RESPOND: frozenset({"use", "pass"}),
    TURN_END: frozenset({"use", "pass"}),
}
FACE_DOWN = frozenset({"attack", "defend"})
END_TURN: Action = {"type": "end_turn"}
PASS: Action = {"type": "pass"}


@lru_cache(maxsize=256)  # a function of the events in the saloon, of which there are few sets
def rules_with(events: tuple[str, ...]) -> Rules:
    """The rules as the events in the saloon leave them ("its text immediately comes into effect")."""
    hand_size, buy_cost, hits_per_win = CATALOGUE.hand_size, CATALOGUE.buy_cost, CATALOGUE.hits_per_win
    run_beats_set, defender_min = False, 0
    for name in events:
        for effect, value in EVENTS[name].effects:
            if effect == "hand_size":
                hand_size += value
            elif effect == "buy_cost":
                buy_cost += value
            elif effect == "hits_per_win":
                hits_per_win = max(hits_per_win, value)
            elif effect == "run_beats_set":
                run_beats_set = value
            elif effect == "defender_min":
                defender_min = max(defender_min, value)
    return Rules(max(1, hand_size), max(0, buy_cost), hits_per_win, run_beats_set, defender_min)


BASE_RULES = rules_with(())


class Rattlesnake(Game[RattlesnakeState]):
    spec = SPEC

    # --- setting up -------------------------------------------------------------------------------
    def initial_state(self, *, seats: int, options: dict[str, Any]) -> RattlesnakeState:
        # "Take 4 Hit cards matching your deck and place them in front of you."
        # "Find and place the High Noon event card face down where the saloon deck will be placed".
        return RattlesnakeState(
            options=Options.from_resolved(options),
            rules=BASE_RULES,
            hits=(CATALOGUE.hits,) * seats,
            saloon_deck=(CATALOGUE.bottom_event.name,),
            decks=(PLAYER_CARDS,) * seats,  # each deck in box order until its shuffle
        )

    def seat_count(self, state: RattlesnakeState) -> int:
        return 2

    # --- asking -----------------------------------------------------------------------------------
    def decide(self, state: RattlesnakeState) -> Decision:
        phase = state.phase
        if phase == MAIN:
            return _MAIN_TURNS[state.active]
        if phase == DEFEND:
            return _DEFEND_TURNS[1 - state.active]
        if phase == REVEAL:
            return _REVEAL_WINDOWS.get(state.window) or _response(state.window, REVEAL)
        if phase == RESPOND:
            return _response(frozenset({1 - state.stack[-1].seat}), RESPOND)
        if phase == TURN_END:
            return _TURN_END_WINDOWS[1 - state.active]
        return _FIXED[phase]

    def chance_request(self, state: RattlesnakeState) -> ChanceRequest:
        phase = state.phase
        if phase == SALOON_ACTIONS:
            return _shuffle(phase, len(ACTION_CARDS))
        if phase == SALOON_EVENTS:
            return _shuffle(phase, len(SHUFFLED_EVENTS))
        if phase == SALOON_PILE:
            return _shuffle(phase, len(state.piles[state.shuffling]))
        if phase == PLAYER_DECK:
            return _shuffle(phase, len(PLAYER_CARDS))
        if phase == SHUFFLE_DISCARD:
            return _shuffle(phase, len(state.discards[state.shuffling]))
        if phase == PISTOL:
            return _PISTOL
        raise IllegalAction("no draw is expected now", code="chance/not_expected")

    def legal_actions(self, state: RattlesnakeState, seat: int) -> list[Action]:
        if seat not in (state.decision_cache or self.decision(state)).seats:
            return []
        phase = state.phase
        hand = state.hands[seat]
        # A new list on every call, copied from the tuples of shared actions the hand offers, kept
        # with its choices (see "legal actions" below).
        if phase == MAIN:
            actions: list[Action] = []
            offers = _offers(hand)
            if not state.bought and state.buyable and len(hand) >= state.rules.buy_cost:
                cost = state.rules.buy_cost
                purchases = offers.purchases
                if cost == BASE_RULES.buy_cost:
                    for card in state.buyable:
                        actions += purchases.get(card) or offers.purchases_of(card, cost)
                else:
                    for card in state.buyable:
                        actions += purchases.get((cost, card)) or offers.purchases_of(card, cost)
            if hand:
                if not state.attacked:
                    actions += offers.attacks or offers.make_attacks()
                if hand[-1] in ABILITY:  # saloon cards come last in a hand
                    actions += _use_actions(state, seat)
            actions.append(END_TURN)
            return actions
        if phase == DEFEND:
            offers = _offers(hand)
            defenses = offers.defenses or offers.make_defenses()
            # The empty defense comes first: under Rattled a defender holding cards must play one.
            actions = list(defenses[1:] if state.rules.defender_min and hand else defenses)
            # "at any time, on any turn": Patch Up and Scavenge before choosing the defense.
            return actions + _use_actions(state, seat) if hand and hand[-1] in ABILITY else actions
        if phase == REVEAL or phase == TURN_END:
            return [PASS, *_use_actions(state, seat)]
        if phase == RESPOND:
            return [PASS, *_cover_actions(hand)]
        return []

    def outcome(self, state: RattlesnakeState) -> Outcome | None:
        if state.phase != OVER:
            return None
        assert state.winner is not None
        scores = tuple(1.0 if seat == state.winner else 0.0 for seat in range(2))
        last = frozenset() if state.forfeited is None else frozenset({state.forfeited})
        return Outcome.from_scores(scores, state.end_reason or NO_HITS, last=last)

    def event_audience(self, state_before: RattlesnakeState, event: Event) -> frozenset[int] | None:
        if event.kind == "chance":
            # Every shuffle orders cards nobody may see (decks, the saloon deck, the cards left in the
            # box); the pistol is public.
            return None if state_before.phase == PISTOL else frozenset()
        kind = event.payload.get("type") if event.kind == "action" else None
        # "plays them face down, declaring how many cards they played": the cards are the author's
        # until the reveal (the view shows the others the count); the log keeps them until the end.
        if isinstance(kind, str) and kind in FACE_DOWN and event.seat is not None:
            return frozenset({event.seat})
        return None

    def describe_event(
        self,
        event: Event,
        *,
        viewer: int | None,
        seat_names: Sequence[str],
        state_before: RattlesnakeState | None = None,
    ) -> str:
        return describe_event(event, viewer=viewer, seat_names=seat_names)

    def view(self, state: RattlesnakeState, seat: int | None) -> View:
        return _view(self, state, seat)

    # --- changing ---------------------------------------------------------------------------------
    def apply_action(self, state: RattlesnakeState, seat: int, action: Action) -> None:
        kind = action.get("type")
        fields = ACTION_FIELDS.get(kind)  # type: ignore[arg-type]
        if fields is None:
            raise IllegalAction(f"Rattlesnake has no action {kind!r}", code="action/unknown")
        if kind not in ACTIONS_OF_PHASE.get(state.phase, ()):
            raise IllegalAction(f"no {kind} now: the match is at {state.phase}", code="action/not_now")
        if kind == "use":
            _use(state, seat, action)
            return
        if len(action) != len(fields) or not fields.issuperset(action):
            expected = ", ".join(sorted(fields))
            raise IllegalAction(f"a {kind} action has exactly the fields {expected}", code="action/malformed")
        if kind == "buy":
            _buy(state, seat, action)
        elif kind == "attack":
            _attack(state, seat, action["cards"])
        elif kind == "defend":
            _defend(state, seat, action["cards"])
        elif kind == "end_turn":
            # "After performing all chosen actions, pass the pistol to the other player".
            _end_turn(state)
        elif state.phase == REVEAL:  # pass
            state.window = _PASSED[state.window, seat]
            if not state.window:
                _declare(state)
        elif state.phase == TURN_END:  # the other player lets the pistol pass
            _pass_pistol(state)
        else:  # pass on a pending ability: it resolves
            _resolve_top(state)

    def apply_chance(self, state: RattlesnakeState, outcome: dict[str, Any]) -> None:
        phase = state.phase
        if phase == PISTOL:
            state.active = outcome["index"]
            _start_turn(state)
            return
        perm = outcome["permutation"]
        if phase == SALOON_ACTIONS:
            # "Shuffle the saloon action cards and deal 5 face up to the saloon. Divide the remaining
            # saloon action cards into 2 face down piles of 4 cards each, returning the 2 leftover
            # action cards to the box unseen."
            cards = [ACTION_CARDS[i] for i in perm]
            slots, per_pile = CATALOGUE.saloon_slots, CATALOGUE.pile_actions
            state.saloon = tuple(cards[:slots])
            state.buyable = _buyable(state.saloon)
            state.piles = tuple(
                tuple(cards[slots + p * per_pile : slots + (p + 1) * per_pile])
                for p in range(CATALOGUE.piles)
            )
            state.out_of_game = tuple(cards[slots + CATALOGUE.piles * per_pile :])
            state.phase = SALOON_EVENTS
        elif phase == SALOON_EVENTS:
            # "Shuffle 2 events face down into each pile, returning the 1 leftover event card to the box".
            events = [SHUFFLED_EVENTS[i] for i in perm]
            per_pile = CATALOGUE.pile_events
            state.piles = tuple(
                pile + tuple(events[p * per_pile : (p + 1) * per_pile]) for p, pile in enumerate(state.piles)
            )
            state.out_of_game = state.out_of_game + tuple(events[CATALOGUE.piles * per_pile :])
            state.phase, state.shuffling = SALOON_PILE, 0
        elif phase == SALOON_PILE:
            pile = state.piles[state.shuffling]
            state.piles = _replace(state.piles, state.shuffling, tuple(map(pile.__getitem__, perm)))
            if state.shuffling + 1 < len(state.piles):
                state.shuffling += 1
                return
            # "Put the 2 piles, one on top of the other, with High Noon at the bottom": the first pile
            # on top (the last cards of the tuple are the top of the deck).
            deck = state.saloon_deck
            for pile in reversed(state.piles):
                deck += pile
            state.saloon_deck, state.piles = deck, ()
            state.phase, state.shuffling = PLAYER_DECK, 0
        elif phase == PLAYER_DECK:
            # "Take, shuffle, and place one deck of player action cards ... face down in front of you".
            deck = state.decks[state.shuffling]
            state.decks = _pair(state.decks, state.shuffling, tuple(map(deck.__getitem__, perm)))
            if state.shuffling == 0:
                state.shuffling = 1
                return
            if state.options.pistol == SEAT_0:
                state.active = 0
                _start_turn(state)
            else:
                state.phase = PISTOL
        else:  # SHUFFLE_DISCARD
            # "If you ever need to draw or play from an empty player deck, shuffle your discard to
            # create a new deck."
            seat = state.shuffling
            discard = state.discards[seat]
            state.decks = _pair(state.decks, seat, tuple(map(discard.__getitem__, perm)))
            state.discards = _pair(state.discards, seat, ())
            _draw_up(state)

    def apply_forfeit(self, state: RattlesnakeState, seat: int, reason: str) -> None:
        state.phase = OVER
        state.window = frozenset()
        state.winner = 1 - seat
        state.end_reason = FORFEIT
        state.forfeited = seat

    # --- bots -------------------------------------------------------------------------------------
    def bots(self) -> Mapping[str, Bot]:
        return {"random": RandomBot(), "heuristic": HeuristicBot()}


# Decisions are values: the few a match can reach are made once and shared.
_TURN = {(seat, prompt): Decision.turn(seat, prompt) for seat in (0, 1) for prompt in (MAIN, DEFEND)}
_MAIN_TURNS = (_TURN[0, MAIN], _TURN[1, MAIN])  # by seat: no key to build on every event
_DEFEND_TURNS = (_TURN[0, DEFEND], _TURN[1, DEFEND])
_TURN_END_WINDOWS = (Decision.response({0}, TURN_END), Decision.response({1}, TURN_END))
_FIXED = {phase: Decision.chance(phase) for phase in CHANCE_PHASES}
_FIXED[OVER] = Decision.over()
_PISTOL = ChanceRequest.choice(PISTOL, size=2)


@lru_cache(maxsize=64)
def _shuffle(label: str, size: int) -> ChanceRequest:
    return ChanceRequest.shuffle(label, size=size)


@lru_cache(maxsize=16)
def _response(seats: frozenset[int], prompt: str) -> Decision:
    return Decision.response(seats, prompt)


def _replace(items: tuple, index: int, value: Any) -> tuple:
    return items[:index] + (value,) + items[index + 1 :]


def _pair(items: tuple, seat: int, value: Any) -> tuple:
    """A per-seat pair with one seat's entry replaced (the common, cheap case of `_replace`)."""
    return (value, items[1]) if seat == 0 else (items[0], value)


@lru_cache(maxsize=_CACHE)
def _sorted(cards: tuple[str, ...]) -> tuple[str, ...]:
    """The cards in canonical order (hands are kept so: it makes a hand its own cache key)."""
    return tuple(sorted(cards, key=RANK.__getitem__))


# --- the turn -----------------------------------------------------------------------------------------


def _start_turn(state: RattlesnakeState) -> None:
    """Step 1: "Both players draw from their player deck up to the hand size", the active player first."""
    state.bought = state.attacked = False
    state.to_draw = (state.active, 1 - state.active)
    _draw_up(state)


def _draw_up(state: RattlesnakeState) -> None:
    hand_size = state.rules.hand_size
    to_draw = state.to_draw
    while to_draw:
        seat = to_draw[0]
        hand = state.hands[seat]
        need = hand_size - len(hand)
        if need > 0:
            deck = state.decks[seat]
            if deck:
                if need >= len(deck):
                    taken, need = deck, need - len(deck)
                    state.decks = _pair(state.decks, seat, ())
                else:
                    taken, need = deck[-need:], 0
                    state.decks = _pair(state.decks, seat, deck[: -len(taken)])
                state.hands = _pair(state.hands, seat, _sorted(hand + taken))
            if need > 0 and state.discards[seat]:
                state.to_draw = to_draw
                state.phase, state.shuffling = SHUFFLE_DISCARD, seat
                return
        # A deck and discard both empty: the hand stays short (every card is in the hand or played).
        to_draw = to_draw[1:]
    state.to_draw = to_draw
    _main(state)


def _main(state: RattlesnakeState) -> None:
    """Step 2, or step 3 when the active player has nothing left to choose but passing the pistol
    (no attack or buy left, no Patch Up or Scavenge in hand it could use): a decision is made only
    where there is a choice."""
    state.phase = MAIN
    seat = state.active
    if (state.hands[seat] and not state.attacked) or _can_buy(state) or _holds_usable(state, seat):
        return
    _end_turn(state)


def _holds_usable(state: RattlesnakeState, seat: int) -> bool:
    """Whether the seat holds in its hand a saloon card it could use now: every window is opened
    only for such a seat, so that no seat is ever asked when it could only pass."""
    return bool(state.owned[seat]) and bool(_use_actions(state, seat))


def _end_turn(state: RattlesnakeState) -> None:
    """The end of the active player's main phase. Cards "may be used for their ability at any time, on
    any turn": before the pistol passes, the other player may use a Patch Up or Scavenge it holds
    (nothing the active player does outside an attack touches its hand, discard or Hits, so this last
    moment of the phase offers all that an earlier one would, and it comes before the next draw)."""
    if _holds_usable(state, 1 - state.active):
        state.phase = TURN_END
        return
    _pass_pistol(state)


def _pass_pistol(state: RattlesnakeState) -> None:
    """Step 3: "pass the pistol to the other player and start a new turn"."""
    state.active = 1 - state.active
    state.turn += 1
    _start_turn(state)


# --- buying -------------------------------------------------------------------------------------------


def _buyable(saloon: tuple[str | None, ...]) -> tuple[str, ...]:
    """The action cards on offer, each name once ("It cannot be bought": events never are)."""
    return tuple(sorted({card for card in saloon if card in ABILITY}, key=RANK.__getitem__))


def _can_buy(state: RattlesnakeState) -> bool:
    # "Buy 1 action card": once a turn, with 2 cards to discard and an action card on offer.
    return not state.bought and len(state.hands[state.active]) >= state.rules.buy_cost and bool(state.buyable)


def _buy(state: RattlesnakeState, seat: int, action: Action) -> None:
    if state.bought:
        raise IllegalAction("one action card a turn", code="buy/already_bought")
    card = action["card"]
    if not isinstance(card, str) or card not in ABILITY or card not in state.saloon:
        raise IllegalAction(f"{card!r} is not an action card in the saloon", code="buy/not_in_saloon")
    cost = state.rules.buy_cost
    discard, left = _cards_from_hand(state.hands[seat], action["discard"], "buy")
    if len(discard) != cost:
        raise IllegalAction(f"buying takes discarding exactly {cost} cards", code="buy/wrong_discard")
    # "discard any 2 cards (action or Hits) from your hand to take any action card from the saloon. Put
    # the bought card in your hand, then refill the empty saloon slot with the top card".
    state.hands = _pair(state.hands, seat, _sorted(left + (card,)))
    state.discards = _pair(state.discards, seat, state.discards[seat] + discard)
    slot = state.saloon.index(card)
    refill = state.saloon_deck[-1] if state.saloon_deck else None
    state.saloon_deck = state.saloon_deck[:-1]
    state.saloon = _replace(state.saloon, slot, refill)
    state.buyable = _buyable(state.saloon)
    if refill is not None and refill in EVENTS:
        # "If you add an event to the saloon, its text immediately comes into effect ... It cannot be
        # bought and will never be replaced."
        state.rules = rules_with(tuple(name for name in state.saloon if name in EVENTS))
    state.owned = _pair(state.owned, seat, state.owned[seat] + 1)
    state.bought = True
    _main(state)


def _cards_from_hand(hand: tuple[str, ...], cards: Any, area: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The named cards, checked to be in the hand (as many of each as named), in canonical order, and
    the hand without them."""
    if type(cards) is not list:
        raise IllegalAction("cards are a list of card names", code=f"{area}/bad_cards")
    try:
        taken = _take(hand, tuple(cards))
    except TypeError:  # an unhashable name (a list, an object) is no card name either
        taken = None
    if taken is None:
        raise IllegalAction("cards are a list of card names", code=f"{area}/bad_cards")
    if not taken:
        raise IllegalAction("a card is not in your hand (as many times as named)", code=f"{area}/not_in_hand")
    return taken


@lru_cache(maxsize=_CACHE)
def _take(
    hand: tuple[str, ...], cards: tuple[str, ...]
) -> tuple[tuple[str, ...], tuple[str, ...]] | tuple[()] | None:
    """(the cards in canonical order, the hand without them); () when the hand lacks one; None when a
    name is no card (a function of its arguments only, so cached: the same few plays recur)."""
    left = list(hand)
    for name in cards:
        if type(name) is not str or name not in CARDS:
            return None
        if name not in left:
            return ()
        left.remove(name)
    return _sorted(cards), tuple(left)


@lru_cache(maxsize=_CACHE)
def _values(cards: tuple[str, ...]) -> tuple[int | None, ...]:
    return tuple(VALUE.get(name) for name in cards)


# --- attacking ----------------------------------------------------------------------------------------


def _attack(state: RattlesnakeState, seat: int, cards: Any) -> None:
    if state.attacked:
        raise IllegalAction("one attack a turn", code="attack/already_attacked")
    played, left = _cards_from_hand(state.hands[seat], cards, "attack")
    if not played:
        raise IllegalAction("The attacker must always play at least 1 card.", code="attack/no_cards")
    # "The attacker selects cards from their hand and plays them face down".
    state.hands = _pair(state.hands, seat, left)
    state.attack, state.attack_values = played, _values(played)
    state.attacked = True
    _ask_defender(state)


def _ask_defender(state: RattlesnakeState) -> None:
    """Step 2; a defender with no card could only play none (and use nothing), so it is not asked."""
    state.phase = DEFEND
    if not state.hands[1 - state.active]:
        state.defense = state.defense_values = ()
        _reveal(state)


def _defend(state: RattlesnakeState, seat: int, cards: Any) -> None:
    hand = state.hands[seat]
    played, left = _cards_from_hand(hand, cards, "defend")
    least = min(state.rules.defender_min, len(hand))
    if len(played) < least:
        raise IllegalAction(f"the defender must play at least {least} card(s)", code="defend/too_few_cards")
    # "The defender may choose to play no cards."
    state.hands = _pair(state.hands, seat, left)
    state.defense, state.defense_values = played, _values(played)
    _reveal(state)


def _without(hand: tuple[str, ...], cards: tuple[str, ...]) -> tuple[str, ...]:
    left = list(hand)
    for name in cards:
        left.remove(name)
    return tuple(left)


_WINDOWS = {
    (first, second): frozenset(seat for seat, asked in ((0, first), (1, second)) if asked)
    for first in (False, True)
    for second in (False, True)
}


# A window once a seat in it (or not in it) has passed.
_PASSED = {(window, seat): window - {seat} for window in _WINDOWS.values() for seat in (0, 1)}
# The decision of each window a reveal can open (asked on every event while it is open).
_REVEAL_WINDOWS = {window: Decision.response(window, REVEAL) for window in _WINDOWS.values() if window}


def _reveal(state: RattlesnakeState) -> None:
    """Step 3: "Reveal the cards played by both players" and resolve abilities before declaring."""
    state.phase = REVEAL
    owned = state.owned
    if not (owned[0] or owned[1]):  # nobody owns a saloon card: nobody to ask (the common case)
        state.window = frozenset()
        _declare(state)
        return
    state.window = _WINDOWS[_holds_usable(state, 0), _holds_usable(state, 1)]
    if not state.window:
        _declare(state)


def _declare(state: RattlesnakeState) -> None:
    """Steps 4 and 5: declare the winning combo, take the Hit, discard every played card."""
    rules = state.rules
    attack_values, defense_values, rbs = state.attack_values, state.defense_values, rules.run_beats_set
    (attack, attack_strength), (defense, defense_strength) = (
        judged(attack_values, rbs),
        judged(defense_values, rbs),
    )
    # D: "If all previous criteria are tied, the defender wins": the attacker must be strictly ahead.
    won = attack_strength > defense_strength
    attacker, defender = state.active, 1 - state.active
    taken = min(rules.hits_per_win, state.hits[defender]) if won else 0
    # "If the attacker wins, the defender takes 1 Hit from in front of them and places it in their
    # discard." Then "Discard all played cards to their owner's discard, including any not in the combos."
    discards = state.discards
    played = (discards[attacker] + state.attack, discards[defender] + state.defense + (HIT,) * taken)
    state.discards = played if attacker == 0 else (played[1], played[0])
    if taken:
        state.hits = _pair(state.hits, defender, state.hits[defender] - taken)
    state.last_attack = AttackRecord(
        attacker,
        state.attack,
        state.attack_values,
        state.defense,
        state.defense_values,
        attack,
        defense,
        won,
        taken,
    )
    state.attack = state.defense = state.attack_values = state.defense_values = ()
    state.window = frozenset()
    if state.hits[defender] == 0:
        # "Keep taking turns until one player has no Hits in front of them. Their opponent immediately wins!"
        state.phase, state.winner, state.end_reason = OVER, attacker, NO_HITS
        return
    _main(state)


# --- abilities ----------------------------------------------------------------------------------------


def _use(state: RattlesnakeState, seat: int, action: Action) -> None:
    """ "To use a card's ability, it must come from your hand, not from your attack or defense."""
    card = action.get("card")
    ability = ABILITY.get(card) if isinstance(card, str) else None
    if ability is None:
        raise IllegalAction(f"{card!r} is not a saloon action card", code="ability/unknown_card")
    fields = USE_FIELDS[ability]
    if len(action) != len(fields) + 2 or not all(name in action for name in fields):
        expected = ", ".join(sorted(fields | {"type", "card"}))
        raise IllegalAction(f"using {card} takes exactly the fields {expected}", code="action/malformed")
    hand = state.hands[seat]
    if card not in hand:
        raise IllegalAction(f"{card!r} is not in your hand", code="ability/not_in_hand")
    pending = _check_use(state, seat, card, ability, action)
    state.hands = _pair(state.hands, seat, _without(hand, (card,)))
    if state.phase != RESPOND:
        state.resume = state.phase
    state.stack = state.stack + (pending,)
    _after_push(state)


def _index(value: Any, values: tuple, what: str) -> int:
    if type(value) is not int or not 0 <= value < len(values):
        raise IllegalAction(f"{what} is a position from 0 to {len(values) - 1}", code="ability/bad_target")
    return value


def _check_use(state: RattlesnakeState, seat: int, card: str, ability: str, action: Action) -> Pending:
    """Everything about an ability checked before anything changes; the answer is what will resolve."""
    phase = state.phase
    if phase == RESPOND:
        # Only Take Cover answers a pending ability: "cancels another ability before it can be resolved".
        if ability != "cancel":
            raise IllegalAction("only Take Cover answers a pending ability", code="ability/not_now")
        return Pending(seat, card, ability)
    if ability == "cancel":
        raise IllegalAction("Take Cover needs another ability to cancel", code="ability/nothing_to_cancel")
    if ability == "patch_up":
        if HIT not in state.discards[seat]:
            raise IllegalAction("no Hit in your discard", code="ability/no_hit_in_discard")
        return Pending(seat, card, ability)
    if ability == "scavenge":
        pick = action["pick"]
        if type(pick) is not str or pick not in state.discards[seat]:
            raise IllegalAction(f"{pick!r} is not in your discard", code="ability/not_in_discard")
        return Pending(seat, card, ability, pick=pick)
    # The rest change the cards of an attack/defense: only between the reveal and the declaration.
    if phase != REVEAL:
        raise IllegalAction(f"{card} changes revealed cards: only after the reveal", code="ability/not_now")
    yours, theirs = _sides(state, seat)
    if ability in ("set_value", "raise", "swap"):
        index = _index(action["index"], yours, "index")
        current = yours[index]
        if current is None:
            raise IllegalAction("Hits and saloon cards have no value to change", code="ability/no_value")
        if ability == "set_value":
            value = action["value"]
            if type(value) is not int or not LOW <= value <= HIGH or value == current:
                raise IllegalAction(
                    f"a new value from {LOW} to {HIGH}, not {current}", code="ability/bad_value"
                )
            return Pending(seat, card, ability, index=index, value=value)
        if ability == "raise":
            if current >= HIGH:
                raise IllegalAction(f"{current} cannot go higher", code="ability/bad_value")
            return Pending(seat, card, ability, index=index)
        other = _index(action["other"], theirs, "other")
        if theirs[other] is None or theirs[other] == current:
            raise IllegalAction("swap two different values", code="ability/bad_value")
        return Pending(seat, card, ability, index=index, other=other)
    index = _index(action["index"], theirs, "index")
    if ability == "lower" and (theirs[index] is None or theirs[index] <= LOW):
        raise IllegalAction("that card has no value to lower", code="ability/bad_value")
    return Pending(seat, card, ability, index=index)


def _sides(state: RattlesnakeState, seat: int) -> tuple[tuple, tuple]:
    """A seat's own values ("your attack/defense") and its opponent's."""
    if seat == state.active:
        return state.attack_values, state.defense_values
    return state.defense_values, state.attack_values


def _after_push(state: RattlesnakeState) -> None:
    """Every ability opens a window for its owner's opponent to answer with Take Cover; a seat that
    holds no Take Cover could only pass, so it is not asked."""
    opponent = 1 - state.stack[-1].seat
    if state.owned[opponent] and not TAKE_COVER.isdisjoint(state.hands[opponent]):
        state.phase = RESPOND
    else:
        _resolve_top(state)


def _resolve_top(state: RattlesnakeState) -> None:
    """ "Abilities are fully resolved in the order that they are played" except Take Cover, which
    cancels the ability beneath it; either way "place it in the graveyard"."""
    top = state.stack[-1]
    if top.ability == "cancel":
        cancelled = state.stack[-2]
        state.stack = state.stack[:-2]
        state.graveyard = state.graveyard + (cancelled.card, top.card)
        _used(state, cancelled.seat)
        _used(state, top.seat)
    else:
        state.stack = state.stack[:-1]
        _resolve(state, top)
        state.graveyard = state.graveyard + (top.card,)
        _used(state, top.seat)
    if state.stack:
        _after_push(state)
        return
    resume = state.resume
    if resume == REVEAL:
        # Something resolved: everyone may answer again ("Once both players have finished resolving
        # any abilities affecting card combos, move onto step 4").
        _reveal(state)
    elif resume == DEFEND:
        _ask_defender(state)  # the defender, who used it, now chooses the defense
    elif resume == TURN_END:
        _end_turn(state)  # asked again while it holds another usable card
    else:
        _main(state)


def _used(state: RattlesnakeState, seat: int) -> None:
    """A card used for its ability left its owner for the graveyard."""
    state.owned = _pair(state.owned, seat, state.owned[seat] - 1)


def _resolve(state: RattlesnakeState, pending: Pending) -> None:
    seat, ability = pending.seat, pending.ability
    if ability == "patch_up":
        discard = list(state.discards[seat])
        discard.remove(HIT)
        state.discards = _pair(state.discards, seat, tuple(discard))
        state.hits = _pair(state.hits, seat, state.hits[seat] + 1)
        return
    if ability == "scavenge":
        assert pending.pick is not None
        discard = list(state.discards[seat])
        del discard[len(discard) - 1 - discard[::-1].index(pending.pick)]  # the topmost such card
        state.discards = _pair(state.discards, seat, tuple(discard))
        state.hands = _pair(state.hands, seat, _sorted(state.hands[seat] + (pending.pick,)))
        return
    mine_attack = seat == state.active
    yours, theirs = _sides(state, seat)
    index = pending.index
    assert index is not None
    if ability == "set_value":
        yours = _replace(yours, index, pending.value)
    elif ability == "raise":
        yours = _replace(yours, index, yours[index] + 1)
    elif ability == "lower":
        theirs = _replace(theirs, index, theirs[index] - 1)
    elif ability == "swap":
        assert pending.other is not None
        a, b = yours[index], theirs[pending.other]
        yours, theirs = _replace(yours, index, b), _replace(theirs, pending.other, a)
    else:  # disarm: the card leaves the attack/defense for its owner's discard
        owner = 1 - seat
        cards = state.defense if mine_attack else state.attack
        removed = cards[index]
        cards = cards[:index] + cards[index + 1 :]
        theirs = theirs[:index] + theirs[index + 1 :]
        state.discards = _pair(state.discards, owner, state.discards[owner] + (removed,))
        if mine_attack:
            state.defense = cards
        else:
            state.attack = cards
    if mine_attack:
        state.attack_values, state.defense_values = yours, theirs
    else:
        state.defense_values, state.attack_values = yours, theirs


# --- legal actions (the choices of cards worked out once per hand; each action made once and shared) --


class Offers:
    """What one hand offers: every choice of its cards (copies of a card are alike), each in canonical
    order, and the tuples of shared actions made of them, each made the first time it is asked for.
    One per hand met (`_offers`); hands are kept in canonical order, so a hand is its own key."""

    __slots__ = ("any", "attacks", "by_size", "defenses", "purchases", "some")

    def __init__(self, hand: tuple[str, ...]) -> None:
        chosen: list[tuple[str, ...]] = [()]
        index = 0
        while index < len(hand):
            name = hand[index]
            count = hand.count(name)  # the hand is in canonical order: copies sit together
            runs = [(name,) * k for k in range(1, count + 1)]
            chosen += [picked + run for picked in chosen for run in runs]
            index += count
        by_size: list[list[tuple[str, ...]]] = [[] for _ in range(len(hand) + 1)]
        for cards in chosen:
            by_size[len(cards)].append(cards)
        flat = tuple(cards for group in by_size for cards in group)
        self.by_size = tuple(tuple(group) for group in by_size)  # by_size[k]: the choices of k cards
        self.any = flat  # all of them, fewest cards first (a defense may be empty)
        self.some = flat[1:]  # all but the empty one (an attack)
        self.attacks: tuple[Action, ...] = ()
        self.defenses: tuple[Action, ...] = ()
        # by card at the usual cost, by (cost, card) at another (one dict a hand: fewer for the collector)
        self.purchases: dict[str | tuple[int, str], tuple[Action, ...]] = {}

    def make_attacks(self) -> tuple[Action, ...]:
        table = _ATTACKS
        self.attacks = tuple([table.get(cards) or _attack_of(cards) for cards in self.some])
        return self.attacks

    def make_defenses(self) -> tuple[Action, ...]:
        table = _DEFENSES
        self.defenses = tuple([table.get(cards) or _defense(cards) for cards in self.any])
        return self.defenses

    def purchases_of(self, card: str, cost: int) -> tuple[Action, ...]:
        table = _PURCHASES[card]
        actions = tuple([table.get(discard) or _purchase(discard, card) for discard in self.by_size[cost]])
        self.purchases[card if cost == BASE_RULES.buy_cost else (cost, card)] = actions
        return actions


@lru_cache(maxsize=_CACHE)
def _offers(hand: tuple[str, ...]) -> Offers:
    return Offers(hand)


# Each action is made the first time it is offered and shared by every hand that offers it after,
# and each hand keeps the tuples of the actions it offers (`Offers`); `legal_actions` hands out new
# lists copied from them, which nobody changes. The tables are bounded by the game itself (choices
# of at most a hand of cards among 14 names), the hands by `_CACHE`.
_ATTACKS: dict[tuple[str, ...], Action] = {}
_DEFENSES: dict[tuple[str, ...], Action] = {}
_PURCHASES: dict[str, dict[tuple[str, ...], Action]] = {card: {} for card in ABILITY}


def _attack_of(cards: tuple[str, ...]) -> Action:
    action = _ATTACKS[cards] = {"type": "attack", "cards": list(cards)}
    return action


def _defense(cards: tuple[str, ...]) -> Action:
    action = _DEFENSES[cards] = {"type": "defend", "cards": list(cards)}
    return action


def _purchase(discard: tuple[str, ...], card: str) -> Action:
    action = _PURCHASES[card][discard] = {"type": "buy", "discard": list(discard), "card": card}
    return action


def _cover_actions(hand: tuple[str, ...]) -> list[Action]:
    return [action for card, action in _COVERS if card in hand]


# Take Cover's one use per card, in name order (shared: nobody changes them).
_COVERS = tuple((card, {"type": "use", "card": card}) for card in sorted(TAKE_COVER))


@lru_cache(maxsize=_CACHE)
def _saloon_cards(hand: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """The saloon cards of a hand, each name once in canonical order, with its ability."""
    return tuple((card, ABILITY[card]) for card in dict.fromkeys(hand) if card in ABILITY)


def _use_actions(state: RattlesnakeState, seat: int) -> list[Action]:
    hand = state.hands[seat]
    actions: list[Action] = []
    if not hand or hand[-1] not in ABILITY:  # saloon cards come last in a hand
        return actions
    for card, ability in _saloon_cards(hand):
        if ability == "patch_up":
            if HIT in state.discards[seat]:
                actions.append(_PLAIN_USES[card])
        elif ability == "scavenge":
            picks = _SCAVENGES[card]
            actions += [picks[pick] for pick in sorted(set(state.discards[seat]), key=RANK.__getitem__)]
        elif ability in COMBAT_ABILITIES and state.phase == REVEAL:
            yours, theirs = _sides(state, seat)
            actions += _combat_actions(card, ability, yours, theirs)
    return actions


# The uses of a card that take no target, and Scavenge's by the card it takes (shared: nobody changes them).
_PLAIN_USES = {card: {"type": "use", "card": card} for card in ABILITY}
_SCAVENGES = {
    card: {pick: {"type": "use", "card": card, "pick": pick} for pick in RANK}
    for card, ability in ABILITY.items()
    if ability == "scavenge"
}


def _combat_actions(card: str, ability: str, yours: tuple, theirs: tuple) -> list[Action]:
    """Every use of a card that changes revealed numbers. Made afresh: the pairs of numbers recur too
    seldom for a cache to pay (one hit in five), and these dicts hold no list, so the collector does
    not track them while they live."""
    actions: list[Action] = []
    if ability == "set_value":
        for index, current in enumerate(yours):
            if current is not None:
                actions += [
                    {"type": "use", "card": card, "index": index, "value": value}
                    for value in range(LOW, HIGH + 1)
                    if value != current
                ]
    elif ability == "raise":
        actions += [
            {"type": "use", "card": card, "index": i}
            for i, v in enumerate(yours)
            if v is not None and v < HIGH
        ]
    elif ability == "lower":
        actions += [
            {"type": "use", "card": card, "index": i}
            for i, v in enumerate(theirs)
            if v is not None and v > LOW
        ]
    elif ability == "disarm":
        actions += [{"type": "use", "card": card, "index": i} for i in range(len(theirs))]
    else:  # swap
        for index, mine in enumerate(yours):
            for other, value in enumerate(theirs):
                if mine is not None and value is not None and mine != value:
                    actions.append({"type": "use", "card": card, "index": index, "other": other})
    return actions


# --- the view -------------------------------------------------------------------------------------------


def _view(game: Rattlesnake, state: RattlesnakeState, seat: int | None) -> View:
    phase = state.phase
    responding = phase == RESPOND
    revealed = phase == REVEAL or responding and state.resume == REVEAL
    attacking = phase == DEFEND or revealed or responding and state.resume == DEFEND
    players = []
    for owner in (0, 1):
        players.append(
            {
                "seat": owner,
                "hits": state.hits[owner],
                "hand": list(state.hands[owner]) if owner == seat else None,
                "hand_count": len(state.hands[owner]),
                "deck_count": len(state.decks[owner]),
                "discard": list(state.discards[owner]),
            }
        )
    attack = None
    if attacking:
        attacker = state.active
        shown = revealed or seat == attacker
        attack = {
            "attacker": attacker,
            "defender": 1 - attacker,
            # "declaring how many cards they played": the count is public, the cards are not.
            "attack_count": len(state.attack),
            "attack": list(state.attack) if shown else None,
            "attack_values": list(state.attack_values) if shown else None,
            "defense": list(state.defense) if revealed else None,
            "defense_values": list(state.defense_values) if revealed else None,
            "revealed": revealed,
        }
        if revealed:
            rbs = state.rules.run_beats_set
            attack["attack_combo"] = strongest(state.attack_values, run_beats_set=rbs).to_json()
            attack["defense_combo"] = strongest(state.defense_values, run_beats_set=rbs).to_json()
    outcome = game.outcome(state)
    return {
        "game": SPEC.key,
        "you": seat,
        "options": state.options.to_json(),
        "phase": phase,
        "decision": game.decision(state).to_json(),
        "turn": state.turn,
        "active": state.active if phase not in CHANCE_PHASES or state.turn else None,
        "bought": state.bought,
        "attacked": state.attacked,
        "rules": state.rules.to_json(),
        "players": players,
        "saloon": list(state.saloon),
        "saloon_deck_count": len(state.saloon_deck),
        "piles_count": [len(pile) for pile in state.piles],
        "events_in_play": [name for name in state.saloon if name in EVENTS],
        "graveyard": list(state.graveyard),
        "attack": attack,
        "stack": [pending.to_json() for pending in state.stack],
        "window": sorted(state.window) if phase == REVEAL else [],
        "last_attack": None if state.last_attack is None else state.last_attack.to_json(),
        "outcome": None if outcome is None else outcome.to_json(),
    }
