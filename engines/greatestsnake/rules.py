"""The Greatest Snake: the rules (rulebook "Setting Up", "Order of a Turn", "Card Limit", "Card Types",
"Sleeping", "Squeezing", "The Discard Pile", "The Pit", "The Pit-y Rule", "Card Resolution Order",
"Clarifications").

A turn: wake up, draw (a rat is played face up and eaten or placed in the Pit; Rat King is eaten by
itself; the drawer may play powers before deciding about the rat), then equip, play powers and use
abilities until "Digest!". Every action a player takes is put on a stack and opens a response window
for every other player who has an answer to give ("Whenever a player tries to take an action in the
game, the other players have an opportunity to respond to it before it fully takes effect"; nobody
is asked who could only pass); an answer goes on top and reopens the window; when everyone asked has
passed, the stack resolves from the top ("the last action resolves first"). Wherever the rules leave
one possibility the engine moves on by itself.

Every `apply_*` checks the whole event before its first change: an action is checked against the
seat's legal actions (worked out once per state), so a refused action leaves the state as it was.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from engines.bots import RandomBot
from engines.chance import ChanceRequest
from engines.errors import IllegalAction
from engines.greatestsnake.bots import HeuristicBot
from engines.greatestsnake.catalogue import (
    CARDS,
    COST,
    EFFECT,
    FASHIONABLE_BODIES,
    IS_REAL_RAT,
    KIND,
    POWER_EFFECT,
    RAT_KING,
    SPEED,
    UNSQUEEZABLE,
    deck,
)
from engines.greatestsnake.sentences import describe_event
from engines.greatestsnake.spec import HAND_LIMIT, SPEC, STARTING_HAND, WIN_LENGTH, Options
from engines.greatestsnake.state import (
    DRAW,
    FIRST_PLAYER,
    MAIN,
    NO_CARD,
    OVER,
    RAT,
    RAT_KING_BACK,
    REFILL,
    RESPOND,
    SHUFFLE,
    Entry,
    SnakeState,
)
from engines.greatestsnake.view import view_of
from engines.protocol import Action, Bot, Decision, Event, Game, Outcome, View

WON = "length_7"
ROUND_LIMIT = "round_limit"
FORFEIT = "forfeit"

ACTION_TYPES = frozenset(
    {
        "draw",
        "draw_from_pit",
        "eat",
        "to_pit",
        "equip",
        "play",
        "use",
        "discard",
        "discard_equipment",
        "digest",
        "pass",
    }
)
CHANCE_PHASES = frozenset({FIRST_PLAYER, SHUFFLE, RAT_KING_BACK, REFILL})
SECRET_SHUFFLES = frozenset({SHUFFLE, RAT_KING_BACK, REFILL})  # each permutation is a deck order
_CHANCE_DECISIONS = {phase: Decision.chance(phase) for phase in CHANCE_PHASES}
_OVER = Decision.over()
_TURNS: dict[tuple[int, str], Decision] = {}
_RESPONSES: dict[frozenset[int], Decision] = {}
_DRAW_ACTIONS = ({"type": "draw"}, {"type": "draw_from_pit"})
_RAT_ACTIONS = ({"type": "eat"}, {"type": "to_pit"})
_PASS = {"type": "pass"}
_DIGEST = {"type": "digest"}
_BOTS: dict[str, Bot] = {"random": RandomBot(), "heuristic": HeuristicBot()}


class GreatestSnake(Game[SnakeState]):
    spec = SPEC

    # --- setting up -------------------------------------------------------------------------------
    def initial_state(self, *, seats: int, options: dict[str, Any]) -> SnakeState:
        resolved = Options.from_resolved(options, seats)
        state = SnakeState(options=resolved, seats=seats)
        # "Take the rest of the cards and shuffle them to form the Deck."
        state.deck = deck(resolved.expansion)
        state.hands = [[] for _ in range(seats)]
        # "Each player picks one of each of these types of cards": seat i takes the i-th snake.
        state.bodies = [[FASHIONABLE_BODIES[seat]] for seat in range(seats)]
        state.gear = [[NO_CARD] for _ in range(seats)]
        state.spaces = [[NO_CARD, NO_CARD, NO_CARD] for _ in range(seats)]  # Head, Body, Tail
        state.awake = [True] * seats  # "Place your Head Card on the awake side"
        state.glue = [NO_CARD] * seats
        if resolved.first_player is None:
            state.phase = FIRST_PLAYER
        else:
            state.active = resolved.first_player
            state.phase = SHUFFLE
        return state

    def seat_count(self, state: SnakeState) -> int:
        return state.seats

    # --- asking -----------------------------------------------------------------------------------
    def decide(self, state: SnakeState) -> Decision:
        phase = state.phase
        if phase == RESPOND:
            seats = state.window - state.passed
            decision = _RESPONSES.get(seats)
            if decision is None:
                decision = _RESPONSES[seats] = Decision.response(seats, RESPOND)
            return decision
        if phase in CHANCE_PHASES:
            return _CHANCE_DECISIONS[phase]
        if phase == OVER:
            return _OVER
        key = (state.active, phase)
        decision = _TURNS.get(key)
        if decision is None:
            decision = _TURNS[key] = Decision.turn(state.active, phase)
        return decision

    def chance_request(self, state: SnakeState) -> ChanceRequest:
        phase = state.phase
        if phase == FIRST_PLAYER:
            return ChanceRequest.choice(FIRST_PLAYER, size=state.seats)
        if phase in (SHUFFLE, RAT_KING_BACK):
            return ChanceRequest.shuffle(phase, size=len(state.deck))
        if phase == REFILL:
            return ChanceRequest.shuffle(REFILL, size=len(state.discard) + len(state.pit))
        raise IllegalAction("no draw is expected now", code="chance/not_expected")

    def legal_actions(self, state: SnakeState, seat: int) -> list[Action]:
        decision = state.decision_cache or self.decision(state)
        if seat not in decision.seats:
            return []
        cached = state.legal_cache
        if cached is not None and cached[0] == seat:
            return cached[1]
        phase = state.phase
        if phase == RESPOND:
            actions = [_PASS]
            _power_actions(state, seat, actions)
        elif phase == MAIN:
            actions = _main_actions(state, seat)
        elif phase == DRAW:
            actions = list(_DRAW_ACTIONS)
        elif phase == RAT:
            # "Power Cards ... can be played at any time, during any player's turn": the drawer may
            # play them (and use equipment) before deciding whether to eat the rat lying face up.
            actions = list(_RAT_ACTIONS)
            _power_actions(state, seat, actions)
        else:
            actions = []
        state.legal_cache = (seat, actions)
        return actions

    def outcome(self, state: SnakeState) -> Outcome | None:
        if state.phase != OVER:
            return None
        # "If more than one snake manages this at the same time, it's a tie": every snake of 7 or
        # more scores 7, so two that grew past 7 in one Digest! still tie.
        scores = tuple(float(min(state.length(seat), WIN_LENGTH)) for seat in range(state.seats))
        last = frozenset() if state.forfeited < 0 else frozenset({state.forfeited})
        return Outcome.from_scores(scores, state.end_reason, last=last)

    def event_audience(self, state_before: SnakeState, event: Event) -> frozenset[int] | None:
        # A shuffle's permutation is the order of the Deck, which nobody may see. Every action is
        # public: a played, equipped or discarded card is face up, and a draw's card is never in a
        # payload (the drawer sees it in their view only).
        if event.kind == "chance" and state_before.phase in SECRET_SHUFFLES:
            return frozenset()
        return None

    def describe_event(
        self,
        event: Event,
        *,
        viewer: int | None,
        seat_names: Sequence[str],
        state_before: SnakeState | None = None,
    ) -> str:
        return describe_event(event, viewer=viewer, seat_names=seat_names)

    def view(self, state: SnakeState, seat: int | None) -> View:
        return view_of(state, seat, self.decision(state))

    # --- changing ---------------------------------------------------------------------------------
    def apply_action(self, state: SnakeState, seat: int, action: Action) -> None:
        kind = action["type"]
        if kind not in ACTION_TYPES:
            raise IllegalAction(f"The Greatest Snake has no action {kind!r}", code="action/unknown")
        if len(action) > 1:
            for name, value in action.items():
                if name != "type" and type(value) is not int:
                    raise IllegalAction(f"{name} is a card, seat or index number", code="action/malformed")
        legal = self.legal_actions(state, seat)
        if action not in legal:
            if not any(candidate["type"] == kind for candidate in legal):
                raise IllegalAction(f"no {kind} now (the table is at {state.phase})", code="action/not_now")
            raise IllegalAction(
                f"{action} is not one of the legal {kind} actions", code=f"{kind}/not_allowed"
            )
        state.legal_cache = None
        if kind != "pass":
            state.targets = None
        _ACT[kind](state, seat, action)

    def apply_chance(self, state: SnakeState, outcome: dict[str, Any]) -> None:
        phase = state.phase
        if phase == FIRST_PLAYER:
            state.active = outcome["index"]
            state.phase = SHUFFLE
        elif phase == REFILL:
            # "Shuffle it back into the Deck if the Deck runs out of cards": the Discard Pile and the
            # Pit together, in that order, permuted.
            pile = state.discard + state.pit
            state.deck = [pile[index] for index in outcome["permutation"]]
            state.discard = []
            state.pit = []
            _draw_from_deck(state)
        else:
            cards = state.deck
            state.deck = [cards[index] for index in outcome["permutation"]]
            _deal(state)
        state.legal_cache = state.targets = None

    def apply_forfeit(self, state: SnakeState, seat: int, reason: str) -> None:
        state.phase = OVER
        state.forfeited = seat
        state.end_reason = FORFEIT
        state.legal_cache = state.targets = None

    def bots(self) -> Mapping[str, Bot]:
        return _BOTS


# --- set-up and the turn ------------------------------------------------------------------------------


def _deal(state: SnakeState) -> None:
    """ "Each player draws 3 cards from the Deck, putting any Rat Cards into the Pit. Keep drawing until
    each player has 3 cards they can keep in their hand. If one of the Rat Cards is Rat King, shuffle
    it back into the Deck." Fake Rat is kept: it is a Power Card as well as a rat."""
    cards, pit = state.deck, state.pit
    for hand in state.hands:
        while len(hand) < STARTING_HAND:
            card = cards.pop()  # the catalogue has far more keepable cards than 3 per seat
            if card == RAT_KING:
                cards.append(card)
                state.phase = RAT_KING_BACK
                return
            if IS_REAL_RAT[card]:
                pit.append(card)
            else:
                hand.append(card)
    _start_turn(state)


def _start_turn(state: SnakeState) -> None:
    state.turn_number += 1
    seat = state.active
    # "Wake Up – Firstly, if your snake is asleep, wake it up"
    state.awake[seat] = True
    if _pity(state, seat):
        state.phase = DRAW
    else:
        _draw_from_deck(state)


def _pity(state: SnakeState, seat: int) -> bool:
    """The Pit-y Rule: "If you are the shortest snake or tied for shortest (but at least one player is
    ahead), and you are not currently digesting a rat, you may choose to draw the top rat out of the
    Pit instead of drawing from the Deck"."""
    if not state.pit:
        return False
    lengths = [len(body) for body in state.bodies]
    mine = lengths[seat]
    return mine == min(lengths) and max(lengths) > mine and not state.digesting(seat)


def _draw_from_deck(state: SnakeState) -> None:
    if not state.deck:
        if state.discard or state.pit:
            state.phase = REFILL  # a chance shuffle, after which the draw goes on
            return
        state.phase = MAIN  # every card is in a hand or a snake: nothing to draw
        return
    _take_drawn(state, state.deck.pop())


def _take_drawn(state: SnakeState, card: int) -> None:
    seat = state.active
    state.phase = MAIN
    if card == RAT_KING:
        _rat_king(state, seat, card)
    elif IS_REAL_RAT[card]:
        # "If it's a Rat Card, you must play it face up and decide whether or not to eat it"; a
        # snake that cannot eat places it in the Pit without being asked.
        state.drawn = card
        _offer_drawn(state)
    else:
        state.hands[seat].append(card)


def _offer_drawn(state: SnakeState) -> None:
    """The drawn rat lying face up: the drawer chooses to eat it or send it to the Pit; a snake that
    cannot eat places it in the Pit without being asked (the turn goes on to the main phase, where
    every Power Card is offered as it would have been beside the rat)."""
    if _can_eat(state, state.active):
        state.phase = RAT
    else:
        state.pit.append(state.drawn)
        state.drawn = NO_CARD
        state.phase = MAIN


def _rat_king(state: SnakeState, seat: int, card: int) -> None:
    """ "Whoever draws Rat King eats it automatically. Any card blocking it is destroyed" - even when
    asleep, and whatever sits in the mouth (a rat, Fake Rat) or on it (Super Glue)."""
    spaces = state.spaces[seat]
    if spaces[0] >= 0:
        state.discard.append(spaces[0])
    if state.glue[seat] >= 0:
        state.discard.append(state.glue[seat])
        state.glue[seat] = NO_CARD
    spaces[0] = card


def _can_be_fed(state: SnakeState, seat: int) -> bool:
    """Fake Rat needs what eating needs; asleep too unless the option feed_sleeping says otherwise."""
    return (
        state.spaces[seat][0] < 0
        and state.glue[seat] < 0
        and (state.awake[seat] or state.options.feed_sleeping)
    )


def _can_eat(state: SnakeState, seat: int) -> bool:
    """ "If your head is already covered (mouth is full) or you're asleep, you can't eat a rat"; nor
    with a glued mouth."""
    return state.spaces[seat][0] < 0 and state.awake[seat] and state.glue[seat] < 0


# --- actions ----------------------------------------------------------------------------------------


def _act_draw(state: SnakeState, seat: int, action: Action) -> None:
    _draw_from_deck(state)


def _act_draw_from_pit(state: SnakeState, seat: int, action: Action) -> None:
    # "Rat effects are treated the same when drawn from the Pit as from the Deck"
    _take_drawn(state, state.pit.pop())


def _act_eat(state: SnakeState, seat: int, action: Action) -> None:
    card, state.drawn = state.drawn, NO_CARD
    _push(state, Entry(seat, "eat", card))


def _act_to_pit(state: SnakeState, seat: int, action: Action) -> None:
    state.pit.append(state.drawn)
    state.drawn = NO_CARD
    state.phase = MAIN


def _act_equip(state: SnakeState, seat: int, action: Action) -> None:
    card = action["card"]
    state.hands[seat].remove(card)
    _push(state, Entry(seat, "equip", card, target=action["body"]))


def _act_play(state: SnakeState, seat: int, action: Action) -> None:
    card = action["card"]
    state.hands[seat].remove(card)
    _push(state, _aimed(state, seat, "play", card, EFFECT[card], action))


def _act_use(state: SnakeState, seat: int, action: Action) -> None:
    equipment = action["equipment"]
    effect = EFFECT[equipment]
    entry = _aimed(state, seat, "use", equipment, effect, action)
    # Costs are paid as the ability is used, before any response: dodging with equipment puts the
    # snake to sleep at once, "because the dodging would resolve before the rat was in the snake's
    # mouth".
    if COST[equipment] == "sleep":
        state.awake[seat] = False
    else:
        ammo = action["ammo"]
        state.hands[seat].remove(ammo)
        used = state.ammo.get(equipment, ()) + (ammo,)
        state.ammo[equipment] = used
        if len(used) >= CARDS[equipment].ammo:
            _destroy_equipment(state, equipment)  # used up: it and its ammo go to the Discard Pile
    _push(state, entry)


def _act_discard(state: SnakeState, seat: int, action: Action) -> None:
    # "if you end your turn with any more than that, you must discard or play some"
    state.hands[seat].remove(action["card"])
    state.discard.append(action["card"])


def _act_discard_equipment(state: SnakeState, seat: int, action: Action) -> None:
    # Equipment stays "until a card or effect says otherwise, or you decide to discard them".
    _destroy_equipment(state, action["equipment"])


def _act_digest(state: SnakeState, seat: int, action: Action) -> None:
    _push(state, Entry(seat, "digest", NO_CARD))


def _act_pass(state: SnakeState, seat: int, action: Action) -> None:
    state.passed = passed = state.passed | {seat}
    if state.window <= passed:
        _resolve_all(state)


_ACT = {
    "draw": _act_draw,
    "draw_from_pit": _act_draw_from_pit,
    "eat": _act_eat,
    "to_pit": _act_to_pit,
    "equip": _act_equip,
    "play": _act_play,
    "use": _act_use,
    "discard": _act_discard,
    "discard_equipment": _act_discard_equipment,
    "digest": _act_digest,
    "pass": _act_pass,
}


def _aimed(state: SnakeState, seat: int, what: str, card: int, effect: str, action: Action) -> Entry:
    """The stack entry for a power or ability, with the snake it is aimed at (what Dodge answers)."""
    if effect in ("glue", "sleep", "feed"):
        return Entry(seat, what, card, effect, snake=action["snake"])
    if effect == "dodge":
        return Entry(seat, what, card, effect, target=action["entry"])
    if effect == "squeeze":
        rat = action["rat"]
        return Entry(seat, what, card, effect, snake=_find_rat(state, rat)[0], target=rat)
    if effect == "steal":
        equipment = action["equipment"]
        return Entry(
            seat, what, card, effect, _find_equipment(state, equipment)[0], equipment, action["body"]
        )
    if effect == "swap":
        theirs = action["theirs"]
        return Entry(seat, what, card, effect, _find_equipment(state, theirs)[0], action["mine"], theirs)
    # shoot
    target = action["target"]
    return Entry(seat, what, card, effect, snake=_find_equipment(state, target)[0], target=target)


# --- responses and resolution ------------------------------------------------------------------------


def _push(state: SnakeState, entry: Entry) -> None:
    """Put an action on the stack and open the window for every other player who could answer: one
    holding a Power Card it can play now or owning an ability it can use now (the same code that
    lists its answers decides it), so that nobody is asked who could only pass. With nobody to ask,
    the stack resolves at once. The first seat's answers are kept as its legal actions, the list
    `legal_actions` makes, rather than listed again when that seat is asked (the engine loop asks the
    lowest seat first)."""
    state.stack.append(entry)
    state.passed = frozenset()
    author = entry.author
    hands, gear = state.hands, state.gear
    window = []
    first = None
    for seat in range(state.seats):
        if seat != author and (hands[seat] or max(gear[seat]) >= 0):
            answers = [_PASS]
            _power_actions(state, seat, answers)
            if len(answers) > 1:
                window.append(seat)
                if first is None:
                    first = (seat, answers)
    if window:
        state.window = frozenset(window)
        state.phase = RESPOND
        state.legal_cache = first
    else:
        _resolve_all(state)


def _resolve_all(state: SnakeState) -> None:
    """ "The last action resolves first": the whole stack, top to bottom. The bottom is always the
    active player's own action; after it the turn goes on (or, after "Digest!", the next begins)."""
    state.phase = MAIN
    state.targets = None
    stack = state.stack
    cancelled = state.cancelled
    state.window = state.passed = frozenset()
    while stack:
        index = len(stack) - 1
        entry = stack.pop()
        if index in cancelled:
            if entry.what == "play":
                state.discard.append(entry.card)  # a dodged Power Card is still used up
            continue
        _resolve(state, entry)
        if entry.effect == "dodge":
            cancelled = cancelled | {entry.target}
    state.cancelled = frozenset()
    if state.drawn >= 0 and state.phase == MAIN:
        # A power played while a drawn rat lay face up: the drawer decides about the rat now, unless
        # the answers left a snake that cannot eat, whose rat goes to the Pit without asking.
        _offer_drawn(state)


def _resolve(state: SnakeState, entry: Entry) -> None:
    what, author, card = entry.what, entry.author, entry.card
    if what == "eat":
        # "If you can't eat it, or don't want to, place it face up in the Pit."
        if _can_eat(state, author):
            state.spaces[author][0] = card
        else:
            state.pit.append(card)
        return
    if what == "digest":
        _digest(state)
        return
    if what == "equip":
        gear = state.gear[author]
        if gear[entry.target] < 0:
            gear[entry.target] = card
        else:
            state.hands[author].append(card)
        return
    effect = entry.effect
    spent = what == "play"  # a Power Card goes to the Discard Pile once used; equipment stays
    if effect == "glue":
        if state.glue[entry.snake] < 0:
            state.glue[entry.snake] = card  # on the Head until its owner's "Digest!"
            spent = False
    elif effect == "sleep":
        state.awake[entry.snake] = False
    elif effect == "feed":
        # Fake Rat "is treated like other rats": it needs an empty, unglued (and awake) mouth.
        if _can_be_fed(state, entry.snake):
            state.spaces[entry.snake][0] = card
            spent = False
    elif effect == "squeeze":
        seat, position = _find_rat(state, entry.target)
        if seat >= 0:
            chain = _squeeze_chain(state, seat, position)
            if chain is not None:
                _squeeze(state, seat, chain)
    elif effect == "steal":
        seat, index = _find_equipment(state, entry.target)
        gear = state.gear[author]
        if seat >= 0 and seat != author and gear[entry.extra] < 0:
            state.gear[seat][index] = NO_CARD
            gear[entry.extra] = entry.target  # its ammo goes with it: state.ammo is keyed by card
    elif effect == "swap":
        mine_seat, mine_index = _find_equipment(state, entry.target)
        their_seat, their_index = _find_equipment(state, entry.extra)
        if mine_seat == author and their_seat >= 0 and their_seat != author:
            state.gear[author][mine_index] = entry.extra
            state.gear[their_seat][their_index] = entry.target
    elif effect == "shoot" and _find_equipment(state, entry.target)[0] >= 0:
        _destroy_equipment(state, entry.target)
    # dodge: `_resolve_all` marks its target cancelled
    if spent:
        state.discard.append(card)


def _destroy_equipment(state: SnakeState, equipment: int) -> None:
    seat, index = _find_equipment(state, equipment)
    state.gear[seat][index] = NO_CARD
    state.discard.append(equipment)
    used = state.ammo.pop(equipment, None)
    if used:
        state.discard.extend(used)


def _find_rat(state: SnakeState, rat: int) -> tuple[int, int]:
    for seat, spaces in enumerate(state.spaces):
        if rat in spaces:
            return seat, spaces.index(rat)
    return -1, -1


def _find_equipment(state: SnakeState, equipment: int) -> tuple[int, int]:
    for seat, gear in enumerate(state.gear):
        if equipment in gear:
            return seat, gear.index(equipment)
    return -1, -1


# --- squeezing and digestion ----------------------------------------------------------------------


def _squeeze_chain(state: SnakeState, seat: int, position: int) -> list[int] | None:
    """The positions that move when the rat at `position` is squeezed, or None when it is safe.

    "When a rat is squeezed, it moves 1 space closer to the head ... If a rat is squeezed into another
    rat, both rats move up 1 space. A squeeze targets both a rat, and the part of the snake it's in.
    If either is unsqueezable, the rat is safe. Heads cannot be squeezed by anything, but tails can."
    Read: every rat that would move must be squeezable where it is, so a rat in the Head (or an
    unsqueezable rat or part ahead) stops the whole squeeze.
    """
    spaces = state.spaces[seat]
    gear = state.gear[seat]
    tail = len(spaces) - 1
    chain = []
    while spaces[position] >= 0:
        if position == 0 or UNSQUEEZABLE[spaces[position]]:
            return None
        if position < tail:
            equipment = gear[position - 1]
            if equipment >= 0 and EFFECT[equipment] == "unsqueezable":
                return None
        chain.append(position)
        position -= 1
    return chain


def _squeeze(state: SnakeState, seat: int, chain: list[int]) -> None:
    spaces = state.spaces[seat]
    for position in reversed(chain):
        rat = spaces[position]
        spaces[position] = NO_CARD
        if position == 1:
            _leave_snake(state, rat)  # "If it reaches the head, it is vomited up and goes to the Pit."
        else:
            spaces[position - 1] = rat


def _leave_snake(state: SnakeState, rat: int) -> None:
    # Fake Rat differs from other rats in "what happens when it exits a snake": it is discarded.
    if IS_REAL_RAT[rat]:
        state.pit.append(rat)
    else:
        state.discard.append(rat)


def _digest(state: SnakeState) -> None:
    """ "ALL players move any Rat Cards in their snake 1 space closer to their Tail Card" - each rat
    by its digestion speed, the one nearest the Tail first, and "a faster moving rat will be blocked
    by a slower rat". "If a rat passes the Tail Card, which counts as a digestion space, it is
    digested": it becomes the newest Body Card, between the others and the Tail."""
    grew = False
    for seat, spaces in enumerate(state.spaces):
        if max(spaces) < 0:
            continue
        tail = len(spaces) - 1
        moved = [NO_CARD] * (tail + 1)
        ahead = tail + 2  # the position of the rat in front, once one is still inside
        digested = []
        for position in range(tail, -1, -1):
            rat = spaces[position]
            if rat < 0:
                continue
            to = position + SPEED[rat]
            if to >= ahead:
                to = ahead - 1
            if to > tail:
                digested.append(rat)
                ahead = tail + 2
            else:
                moved[to] = rat
                ahead = to
        for rat in digested:
            if IS_REAL_RAT[rat]:
                grew = True
                state.bodies[seat].append(rat)
                state.gear[seat].append(NO_CARD)
                moved.insert(len(moved) - 1, NO_CARD)
            else:
                state.discard.append(rat)
        state.spaces[seat] = moved
    # Super Glue holds until its snake's owner declares "Digest!" (designed, see the docs): glue put
    # on the next player during this "Digest!"'s window still shuts their mouth for their draw.
    glue = state.glue[state.active]
    if glue >= 0:
        state.discard.append(glue)
        state.glue[state.active] = NO_CARD
    lengths = [len(body) + 2 for body in state.bodies]
    winners = tuple(seat for seat, length in enumerate(lengths) if length >= WIN_LENGTH) if grew else ()
    if winners:
        state.winners = winners
        state.end_reason = WON
        state.phase = OVER
        return
    if state.turn_number >= state.options.round_limit * state.seats:
        longest = max(lengths)
        state.winners = tuple(seat for seat, length in enumerate(lengths) if length == longest)
        state.end_reason = ROUND_LIMIT
        state.phase = OVER
        return
    # "After the first player's turn, play continues clockwise around the table."
    state.active = (state.active + 1) % state.seats
    _start_turn(state)


# --- legal actions ----------------------------------------------------------------------------------


def _main_actions(state: SnakeState, seat: int) -> list[Action]:
    actions: list[Action] = []
    hand = state.hands[seat]
    gear = state.gear[seat]
    free = None
    # "You can equip them only on your turn, by placing them directly over top of any Body Card"
    for card in hand:
        if KIND[card] == "equipment":
            if free is None:
                free = [index for index, equipment in enumerate(gear) if equipment < 0]
            for body in free:
                actions.append({"type": "equip", "card": card, "body": body})
    _power_actions(state, seat, actions)
    if max(gear) >= 0:
        for equipment in gear:
            if equipment >= 0:
                actions.append({"type": "discard_equipment", "equipment": equipment})
    if len(hand) > HAND_LIMIT:
        for card in hand:
            actions.append({"type": "discard", "card": card})
    else:
        actions.append(_DIGEST)
    return actions


@lru_cache(maxsize=65_536)
def _card_actions(kind: str, card: int, name: str, targets: tuple[int, ...]) -> tuple[Action, ...]:
    """The actions of one card over a tuple of targets, built once per (card, targets) and shared:
    actions are values nobody changes."""
    if kind == "play":
        return tuple({"type": "play", "card": card, name: target} for target in targets)
    return tuple({"type": "use", "equipment": card, name: target} for target in targets)


def _power_actions(state: SnakeState, seat: int, actions: list[Action]) -> None:
    """Power Cards from the hand and equipment abilities, "at any time, during any player's turn"."""
    seats = range(state.seats)
    targets = state.targets
    squeezable: tuple[int, ...] | None = None if targets is None else targets[3]
    dodgeable: tuple[int, ...] | None = None
    hand = state.hands[seat]
    for card in hand:
        effect = POWER_EFFECT[card]
        if not effect:
            continue
        if effect == "dodge":
            # the commonest card in a window, and mostly with nothing aimed at its holder
            if dodgeable is None:
                dodgeable = _dodgeable(state, seat) if state.stack else ()
            if dodgeable:
                actions.extend(_card_actions("play", card, "entry", dodgeable))
            continue
        if targets is None:
            targets = state.targets = [None, None, None, None]
        if effect == "glue":
            unglued = targets[0]
            if unglued is None:
                glue = state.glue
                unglued = targets[0] = tuple(other for other in seats if glue[other] < 0)
            actions.extend(_card_actions("play", card, "snake", unglued))
        elif effect == "sleep":
            awake = targets[1]
            if awake is None:
                awake = targets[1] = tuple(other for other in seats if state.awake[other])
            actions.extend(_card_actions("play", card, "snake", awake))
        elif effect == "feed":
            hungry = targets[2]
            if hungry is None:
                hungry = targets[2] = tuple(other for other in seats if _can_be_fed(state, other))
            actions.extend(_card_actions("play", card, "snake", hungry))
        elif effect == "squeeze":
            if squeezable is None:
                squeezable = targets[3] = _squeezable_rats(state)
            actions.extend(_card_actions("play", card, "rat", squeezable))
        elif effect == "steal":
            free = [index for index, equipment in enumerate(state.gear[seat]) if equipment < 0]
            for other in seats:
                if other != seat:
                    for equipment in state.gear[other]:
                        if equipment >= 0:
                            actions.extend(
                                {"type": "play", "card": card, "equipment": equipment, "body": body}
                                for body in free
                            )
        elif effect == "swap":
            for mine in state.gear[seat]:
                if mine >= 0:
                    for other in seats:
                        if other != seat:
                            actions.extend(
                                {"type": "play", "card": card, "mine": mine, "theirs": theirs}
                                for theirs in state.gear[other]
                                if theirs >= 0
                            )
    gear = state.gear[seat]
    if max(gear) < 0:
        return
    spaces = state.spaces[seat]
    for index, equipment in enumerate(gear):
        if equipment < 0:
            continue
        cost = COST[equipment]
        # "any ability that isn't constant CANNOT be used if there is a rat on top of that card";
        # "If a piece of equipment requires your snake to go to sleep to use its ability, you cannot
        # use it if your snake is already asleep."
        if cost == "constant" or spaces[index + 1] >= 0:
            continue
        if cost == "sleep" and not state.awake[seat]:
            continue
        if cost == "ammo" and not hand:
            continue
        effect = EFFECT[equipment]
        if effect == "dodge":
            if dodgeable is None:
                dodgeable = _dodgeable(state, seat) if state.stack else ()
            if dodgeable:
                actions.extend(_card_actions("use", equipment, "entry", dodgeable))
        elif effect == "squeeze":
            if squeezable is None:
                if targets is None:
                    targets = state.targets = [None, None, None, None]
                squeezable = targets[3] = _squeezable_rats(state)
            if cost == "sleep":
                actions.extend(_card_actions("use", equipment, "rat", squeezable))
            else:
                for rat in squeezable:
                    actions.extend(
                        {"type": "use", "equipment": equipment, "rat": rat, "ammo": ammo} for ammo in hand
                    )
        elif effect == "shoot":
            for other in seats:
                if other != seat:
                    for target in state.gear[other]:
                        if target >= 0:
                            actions.extend(
                                {"type": "use", "equipment": equipment, "target": target, "ammo": ammo}
                                for ammo in hand
                            )


def _dodgeable(state: SnakeState, seat: int) -> tuple[int, ...]:
    """Stack entries another player aimed at this seat's snake, not already dodged."""
    found = ()
    for index, entry in enumerate(state.stack):
        if entry.snake == seat and entry.author != seat and index not in state.cancelled:
            found += (index,)
    return found


def _squeezable_rats(state: SnakeState) -> tuple[int, ...]:
    rats = []
    for seat, spaces in enumerate(state.spaces):
        if max(spaces) < 0:
            continue
        for position in range(1, len(spaces)):
            if spaces[position] >= 0 and _squeeze_chain(state, seat, position) is not None:
                rats.append(spaces[position])
    return tuple(rats)
