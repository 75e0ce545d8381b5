"""Rattlebones: the rules (rulebook SETUP, ON YOUR TURN, For Each Die Rolled, Board Spaces, Take an
Action, The Gamble Die, Availability of die sides, stars and gold, GAME END).

A turn: the player picks the dice to roll (one free, "one gold ... to roll one extra die", "two gold
... to roll all three"), the dice are rolled (a chance event), then he uses them one at a time "in
the order of his choosing". One `use_die` action carries every choice that die asks for: which pawn
(named by the space it stands on), how far (9-PIP), what to do on the landing space (which side of
*that* die to replace, and with what), how many stars to sell at the store, whom to rob.
`legal_actions` lists the whole product, and `apply_action` accepts exactly the listed actions, so a
refused action never changes anything.
docs/games/rattlebones.md lists every reading of an unclear sentence made here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from itertools import compress, product, repeat
from operator import is_, itemgetter, ne
from typing import Any

from engines.bots import RandomBot
from engines.chance import ChanceRequest
from engines.errors import IllegalAction
from engines.protocol import Action, Bot, Decision, Event, Game, Outcome, View
from engines.rattlebones.bots import HeuristicBot
from engines.rattlebones.catalogue import (
    ARROW,
    ARROW_TO,
    CATALOGUE,
    PIPS,
    PLUS_ONE,
    POINTS,
    RATTLEBONES,
    SIDE_SPACES,
    SPACE_KINDS,
    STORE,
)
from engines.rattlebones.sentences import describe_event
from engines.rattlebones.spec import DIE_ACTIONS, POINTS_SIDES, SPEC
from engines.rattlebones.state import DICE, DOUBLE, GAMBLE, OVER, ROLL, SET_UP, USE_DIE, RattlebonesState

C = CATALOGUE
SPACES = len(C.spaces)
TRACK = len(C.train_track)
THIEF_TAKES = ("gold", "star", "stock")  # "(a) one star or (b) one gold or (c) one stock ticket"
# x2: "the number of gold, stars or points earned is doubled. This does NOT include the Gamble Die":
# by default points earned by a die's own action (POINTS, TRAIN, 1234), the Gamble die excepted; the
# option `x2_points` may narrow it to the POINTS sides.
DOUBLED = {
    DIE_ACTIONS: frozenset({"gold", "star", "train", "1234", *POINTS}),
    POINTS_SIDES: frozenset({"gold", "star", *POINTS}),
}
GAME_END = "rattlebones"  # "the Rattlebones pawn and a player pawn meet or pass"
FORFEIT = "forfeit"
PIP_STEPS = {pip: int(pip) for pip in PIPS}
DICE_EACH = C.dice  # per player (module constants: read on every event)
PAWNS_EACH = C.pawns

ACTION_TYPES = ("roll", "use_die", "double")
PHASE_ACTIONS = {ROLL: "roll", USE_DIE: "use_die", DOUBLE: "double"}

_CHANCE_DECISIONS = {phase: Decision.chance(phase) for phase in (SET_UP, DICE, GAMBLE)}
_OVER = Decision.over()
_SHUFFLE = ChanceRequest.shuffle(SET_UP, size=len(C.tiles))
_GAMBLE_ROLL = ChanceRequest.dice(GAMBLE, count=1, sides=len(C.gamble_die))
_DICE_ROLLS = {count: ChanceRequest.dice(DICE, count=count) for count in (1, 2, 3)}


# Every decision a game can reach, by phase and then by player: `decide` is two lookups.
_DECISIONS = {
    **{
        phase: tuple(Decision.turn(seat, phase) for seat in range(SPEC.max_players))
        for phase in PHASE_ACTIONS
    },
    **{phase: (decision,) * SPEC.max_players for phase, decision in _CHANCE_DECISIONS.items()},
    OVER: (_OVER,) * SPEC.max_players,
}


def supply_kind(side: str) -> str | None:
    """The supply a side goes back to when replaced; None for a pip side (it leaves the game)."""
    if side in PIP_STEPS:
        return None
    return ARROW if side.startswith(ARROW_TO) else side


# Every side a die can carry besides the icon, with its supply (a dict lookup on the hot path).
_SUPPLY_OF = {
    side: supply_kind(side)
    for side in (*PIPS, *C.action_sides, *(f"{ARROW_TO}{index}" for index in range(6)))
    if side != ARROW
}


class Rattlebones(Game[RattlebonesState]):
    spec = SPEC

    # --- setting up -------------------------------------------------------------------------------
    def initial_state(self, *, seats: int, options: dict[str, Any]) -> RattlebonesState:
        return RattlebonesState(
            seats=seats,
            phase=SET_UP,
            board=C.spaces,
            pawns=[0] * (C.pawns * seats),  # "three Monkey pawns on the start space"
            scores=[0] * seats,  # "remaining Mouse pawn on '0' of the score track"
            gold=[0] * seats,
            stars=[0] * seats,
            stock=[0] * seats,
            dice=[C.die_sides] * (C.dice * seats),  # standard dice whose '1' is the icon
            sides={kind: C.sides_each for kind in C.action_sides},
            gold_supply=C.gold,
            star_supply=C.stars,
            stock_supply=C.stock,
            rattlebones=C.rattlebones_start[seats],
            x2_points=options["x2_points"],
        )

    def seat_count(self, state: RattlebonesState) -> int:
        return state.seats

    # --- asking -----------------------------------------------------------------------------------
    def decide(self, state: RattlebonesState) -> Decision:
        return _DECISIONS[state.phase][state.player]

    def chance_request(self, state: RattlebonesState) -> ChanceRequest:
        phase = state.phase
        if phase == DICE:
            return _DICE_ROLLS[len(state.to_roll)]
        if phase == GAMBLE:
            return _GAMBLE_ROLL
        if phase == SET_UP:
            return _SHUFFLE
        raise IllegalAction("no chance is expected now", code="chance/not_expected")

    def legal_actions(self, state: RattlebonesState, seat: int) -> list[Action]:
        if state.phase not in PHASE_ACTIONS or seat != state.player:
            return []
        cache = state.legal_cache
        if cache is None:
            cache = state.legal_cache = _legal(state)
        return list(cache)

    def outcome(self, state: RattlebonesState) -> Outcome | None:
        if state.phase != OVER:
            return None
        # "The player in the lead wins the game. In case of a tie, the player with the most gold +
        # stars + stock tickets wins. Otherwise, it remains a tie." A forfeit ranks its seat last.
        keys = [
            (
                seat != state.forfeited,
                state.scores[seat],
                state.gold[seat] + state.stars[seat] + state.stock[seat],
            )
            for seat in range(state.seats)
        ]
        ranks = tuple(1 + sum(1 for other in keys if other > key) for key in keys)
        return Outcome(ranks, tuple(float(score) for score in state.scores), state.end_reason or GAME_END)

    def describe_event(
        self,
        event: Event,
        *,
        viewer: int | None,
        seat_names: Sequence[str],
        state_before: RattlebonesState | None = None,
    ) -> str:
        return describe_event(event, viewer=viewer, seat_names=seat_names, state_before=state_before)

    def view(self, state: RattlebonesState, seat: int | None) -> View:
        # No hidden information: every seat sees what a spectator sees.
        return _view(self, state)

    # --- changing ---------------------------------------------------------------------------------
    def apply_action(self, state: RattlebonesState, seat: int, action: Action) -> None:
        legal = state.legal_cache
        if legal is None:
            legal = state.legal_cache = _legal(state)
        # A bot hands back one of the listed dicts itself: found by identity at C speed. An action
        # read from JSON is compared by value, and then must not be a bool or float posing as an int.
        if not any(map(is_, legal, repeat(action))) and (action not in legal or not _plain(action)):
            _refuse(state, action)
        kind = action["type"]
        state.legal_cache = None
        if kind == "use_die":
            _use_die(state, action)
        elif kind == "roll":
            _roll(state, action["dice"])
        else:
            _double(state, action["die"])
            _next_player(state)

    def apply_chance(self, state: RattlebonesState, outcome: dict[str, Any]) -> None:
        state.legal_cache = None
        phase = state.phase
        if phase == DICE:
            _dice_rolled(state, outcome["dice"])
        elif phase == GAMBLE:
            _gamble(state, C.gamble_die[outcome["dice"][0] - 1])
        else:
            _set_up(state, outcome["permutation"])

    def apply_forfeit(self, state: RattlebonesState, seat: int, reason: str) -> None:
        state.legal_cache = None
        state.phase = OVER
        state.end_reason = FORFEIT
        state.forfeited = seat

    # --- bots -------------------------------------------------------------------------------------
    def bots(self) -> Mapping[str, Bot]:
        return {"random": RandomBot(), "heuristic": HeuristicBot()}


# --- checking an action -----------------------------------------------------------------------------


def _plain(action: Action) -> bool:
    """JSON numbers are ints here: `True == 1` and `1.0 == 1` must not pass for a listed action."""
    for value in action.values():
        kind = type(value)
        if kind is bool or kind is float:
            return False
        if kind is list and any(type(item) in (bool, float) for item in value):
            return False
    return True


def _refuse(state: RattlebonesState, action: Action) -> None:
    """Say why an action is not among the legal ones (the state is untouched)."""
    kind = action.get("type")
    if kind not in ACTION_TYPES:
        raise IllegalAction(f"Rattlebones has no action {kind!r}", code="action/unknown")
    if PHASE_ACTIONS.get(state.phase) != kind:
        raise IllegalAction(f"no {kind} now: the game is at {state.phase}", code="action/not_now")
    if kind == "roll":
        dice = action.get("dice")
        if set(action) != {"type", "dice"} or type(dice) is not list:
            raise IllegalAction('a roll is {"type": "roll", "dice": [...]}', code="action/malformed")
        if len(dice) > 1 and state.gold[state.player] < len(dice) - 1:
            raise IllegalAction("one gold per extra die, two for all three", code="roll/not_enough_gold")
        raise IllegalAction(
            "roll one, two or all three of your dice, each once, in order", code="roll/bad_dice"
        )
    die = action.get("die")
    if kind == "double":
        raise IllegalAction("an x2 doubles one die that earned gold, stars or points", code="x2/bad_die")
    if not any(die == showing and type(die) is int for showing, _ in state.showing):
        raise IllegalAction(f"die {die!r} is not showing a rolled side", code="die/not_rolled")
    raise IllegalAction(
        f"{action} is not a legal use of die {die}: see legal_actions for each choice it asks",
        code="die/illegal_use",
    )


# --- legal actions ----------------------------------------------------------------------------------


def _legal(state: RattlebonesState) -> tuple[Action, ...] | list[Action]:
    """Every legal action, possibly a shared tuple: kept as `legal_cache`, which `legal_actions`
    copies into a new list for its caller."""
    phase = state.phase
    if phase == USE_DIE:
        showing = state.showing
        if len(showing) == 1:
            return _uses(state, *showing[0])
        actions: list[Action] = []
        for die, side in showing:
            actions += _uses(state, die, side)
        return actions
    if phase == ROLL:
        return _ROLL_ACTIONS[min(state.gold[state.player], 2)]
    if phase == DOUBLE:
        return [{"type": "double", "die": die} for die in _x2_targets(state)]
    return []


def _roll_actions(gold: int) -> tuple[Action, ...]:
    """The rolls a player may choose: "He selects one of his dice to roll. If he has gold, he may spend
    one gold ... to roll one extra die. Likewise, he may spend two gold ... to roll all three dice."
    """
    actions: list[Action] = [{"type": "roll", "dice": [die]} for die in range(C.dice)]
    if gold >= 1:
        actions += [{"type": "roll", "dice": [a, b]} for a in range(C.dice) for b in range(a + 1, C.dice)]
    if gold >= 2:
        actions.append({"type": "roll", "dice": list(range(C.dice))})
    return tuple(actions)


_ROLL_ACTIONS = tuple(
    _roll_actions(gold) for gold in range(3)
)  # by gold, up to the two that pay for all three


def effective_side(sides: tuple[str, ...], index: int) -> str | None:
    """What a rolled side does. An ARROW does "the action of the side to which the arrow points",
    following arrows that point at arrows; arrows pointing round in a circle do nothing (None)."""
    seen = 0
    side = sides[index]
    while side.startswith(ARROW_TO):
        seen |= 1 << index
        index = int(side[len(ARROW_TO) :])
        if seen >> index & 1:
            return None
        side = sides[index]
    return side


def _uses(state: RattlebonesState, die: int, side: int) -> tuple[Action, ...] | list[Action]:
    seat = state.player
    sides = state.dice[seat * DICE_EACH + die]
    effect = sides[side]
    if effect in _ARROWS:
        effect = effective_side(sides, side)
    if effect in PIP_STEPS:
        return _moves(state, die, sides, _STEPS[effect])
    if effect is None or effect in _NO_CHOICE:
        return _PLAIN_USE[die]
    if effect == RATTLEBONES:
        if state.rattlebones - 1 <= max(state.scores):
            return _PLAIN_USE[die]  # the game ends before any pawn moves
        return _moves(state, die, sides, _STEPS[RATTLEBONES])
    if effect == "9_pip":
        return _moves(state, die, sides, _STEPS[effect])  # "from 1-9 spaces forward"
    if effect == "roll_again":
        # "Any ROLL AGAIN sides showing when all dice have been rolled are disregarded."
        return _roll_again_uses(die, state.rolled)
    # THIEF: "one star or one gold or one stock ticket from each other player"; "If a player does not
    # have anything to steal, nothing can be stolen from him."
    choices = []
    for other in range(state.seats):
        if other == seat:
            continue
        have = (state.gold[other], state.stars[other], state.stock[other])
        choices.append(tuple(take for take, count in zip(THIEF_TAKES, have) if count) or (None,))
    return _thief_uses(die, tuple(choices))


_ARROWS = frozenset(f"{ARROW_TO}{index}" for index in range(6))  # every ARROW side, by where it points
_NO_CHOICE = frozenset({"gold", "star", "train", "1234", "stock", "x2", "gamble", *POINTS})
_PLAIN_USE = tuple(({"type": "use_die", "die": die},) for die in range(C.dice))
_ICON_STEPS = (1,)  # the icon: "one of his pawns ... one space clockwise"
_STEPS = {
    **{pip: (steps,) for pip, steps in PIP_STEPS.items()},
    RATTLEBONES: _ICON_STEPS,
    "9_pip": tuple(range(1, 10)),
}
_POINTS_OF = {side: points for points, side in enumerate(POINTS, 1)}


@lru_cache(maxsize=64)
def _roll_again_uses(die: int, rolled: int) -> tuple[Action, ...]:
    unrolled = [other for other in range(C.dice) if not rolled >> other & 1]
    return tuple({"type": "use_die", "die": die, "with": other} for other in unrolled) or (
        {"type": "use_die", "die": die, "with": None},
    )


@lru_cache(maxsize=1024)
def _thief_uses(die: int, choices: tuple[tuple[str | None, ...], ...]) -> tuple[Action, ...]:
    return tuple({"type": "use_die", "die": die, "steal": list(steal)} for steal in product(*choices))


def _moves(
    state: RattlebonesState, die: int, sides: tuple[str, ...], distances: tuple[int, ...]
) -> list[Action]:
    seat = state.player
    base = seat * PAWNS_EACH
    board = state.board
    supply = state.sides
    stars = state.stars[seat]
    pawns = state.pawns
    actions: list[Action] = []
    # "moves one of his pawns": a player's three pawns are alike, so a move names the space the pawn
    # leaves ("from"), and two pawns on one space are one choice, not two.
    for start in _STARTS[(pawns[base] * SPACES + pawns[base + 1]) * SPACES + pawns[base + 2]]:
        row = (die * SPACES + start) * _MAX_STEPS
        for steps in distances:
            space = board[(start + steps) % SPACES]
            move = _MOVES[space][row + steps]
            if move is None:
                move = _MOVES[space][row + steps] = _Move(die, start, steps, space)
            # the usual landings as `_offers` gives them, without the call
            if move.side and supply[space]:
                if space not in sides:
                    actions += move.every
                elif sides.count(space) == 1:
                    actions += move.without[sides.index(space)]
                else:
                    actions += _offers(move, space, sides, supply, stars)
            elif space == PLUS_ONE and supply["points_1"] and _POINTS_SIDES.isdisjoint(sides):
                actions += move.every
            else:
                actions += _offers(move, space, sides, supply, stars)
    return actions


def _offers(
    move: _Move, space: str, sides: tuple[str, ...], supply: dict[str, int], stars: int
) -> Sequence[Action]:
    """What a pawn moved by `move` onto `space` may do there, possibly a shared sequence."""
    if move.side:  # a side space: the usual case
        if not supply[space]:
            return move.only_nothing  # nothing to take: "Do nothing" only
        if space in sides:
            # never a replacement that leaves the die as it was: `every` without that side
            if sides.count(space) == 1:
                return move.without[sides.index(space)]
            return [move.nothing, *compress(move.replace, map(ne, sides[1:], repeat(space)))]
        return move.every  # "Do nothing" or any of the five sides
    if space == STORE:
        # "The player may sell as many STARS as he chooses using the chart on the space."
        return move.sales(stars)
    if space == PLUS_ONE:
        if supply["points_1"] and _POINTS_SIDES.isdisjoint(sides):
            return move.every  # the usual die: a 1 pt side on any side
        return move.plus_one(sides, _points_available(supply))
    if not supply[space]:
        return move.only_nothing
    if _ARROWS.isdisjoint(sides):
        return move.every  # the usual die: every direction on every side
    return move.arrows(sides)


def _offer_count(space: str, sides: tuple[str, ...], supply: dict[str, int], stars: int) -> int:
    """`len(_offers(...))`: the same for every landing on that kind of space with this die."""
    if space in _SIDE_KINDS:
        # "Do nothing" and each of the five sides not showing it already, or "Do nothing" alone
        return 6 - sides.count(space) if supply[space] else 1
    if space == STORE:
        return stars + 1
    if space == PLUS_ONE:
        if supply["points_1"] and _POINTS_SIDES.isdisjoint(sides):
            return 6
        available = _points_available(supply)
        if not available:
            return 1
        count = 1
        for old in sides[1:]:
            if available & 1 and old != POINTS[0]:
                count += 1
            value = _NEXT_POINTS.get(old)
            if value is not None and available >> value & 1:
                count += 1
        return count
    if not supply[space]:
        return 1
    # ARROW: each side may point at each side next to it, less the way it points already
    return 1 + sum(
        len(C.adjacent[index]) - (sides[index] in _ARROW_TO_ADJACENT[index]) for index in range(1, 6)
    )


_SIDE_KINDS = SIDE_SPACES - {ARROW}  # the spaces that offer their own side (`_Move.side`)
_ARROW_TO_ADJACENT = tuple(frozenset(f"{ARROW_TO}{target}" for target in targets) for targets in C.adjacent)


def _nine_pip_count(state: RattlebonesState, sides: tuple[str, ...]) -> tuple[int, tuple[Any, ...]]:
    """`len(_moves(...))` for a 9-PIP, without listing them: its up to 27 landings fall on a dozen
    kinds of space, each counted once, and only the one taken is listed (`_nine_pip_at`)."""
    seat = state.player
    base = seat * PAWNS_EACH
    pawns = state.pawns
    board = state.board * 2  # the nine spaces ahead of a start are one slice
    supply = state.sides
    stars = state.stars[seat]
    starts = _STARTS[(pawns[base] * SPACES + pawns[base + 1]) * SPACES + pawns[base + 2]]
    kinds = set()
    for start in starts:
        kinds.update(board[start + 1 : start + 10])
    counts = {}
    for space in kinds:
        if space in _SIDE_KINDS:  # `_offer_count`'s usual case
            counts[space] = 6 - sides.count(space) if supply[space] else 1
        else:
            counts[space] = _offer_count(space, sides, supply, stars)
    size = counts.__getitem__
    sizes = []
    for start in starts:
        sizes.append(sum(map(size, board[start + 1 : start + 10])))
    return sum(sizes), (starts, sizes, counts, board)


def _nine_pip_at(
    state: RattlebonesState, die: int, sides: tuple[str, ...], index: int, plan: tuple[Any, ...]
) -> Action:
    """`_moves(...)[index]` for a 9-PIP, listing only the landing it is on (`plan` from
    `_nine_pip_count`)."""
    starts, sizes, counts, board = plan
    for start, size in zip(starts, sizes):
        if index < size:
            for steps in range(1, 10):
                space = board[start + steps]
                count = counts[space]
                if index < count:
                    row = (die * SPACES + start) * _MAX_STEPS
                    move = _MOVES[space][row + steps]
                    if move is None:
                        move = _MOVES[space][row + steps] = _Move(die, start, steps, space)
                    return _offers(move, space, sides, state.sides, state.stars[state.player])[index]
                index -= count
        index -= size
    raise IndexError(f"no move {index} of die {die}")


# The spaces a player's three pawns leave from, sorted and each once, for every placing of the three.
_STARTS = tuple(tuple(sorted({a, b, c})) for a in range(SPACES) for b in range(SPACES) for c in range(SPACES))
assert PAWNS_EACH == 3, "_STARTS is made for three pawns a player"


class _Move:
    """The actions of one move of one die (`die`, `from`, `steps`) onto one kind of space, made once
    and shared by every state that asks (never mutated: `legal_actions` hands out a new list of
    them). Offers come "Do nothing" first, then by the side replaced (never the icon, index 0)."""

    __slots__ = (
        "_arrows",
        "_points",
        "_sales",
        "die",
        "every",
        "nothing",
        "only_nothing",
        "replace",
        "side",
        "start",
        "steps",
        "without",
    )

    def __init__(self, die: int, start: int, steps: int, space: str) -> None:
        self.die, self.start, self.steps = die, start, steps
        self.side = space in SIDE_SPACES and space != ARROW  # the space offers its own side
        self.nothing = self._landing(None, None)
        self.only_nothing = (self.nothing,)
        self._sales: list[Action] = []
        if self.side:
            self.replace = tuple(self._landing(index, space) for index in range(1, 6))
            # "Do nothing" or any of the five sides: the offers on a die without that side
            self.every = (self.nothing, *self.replace)
            # the offers on a die with that side on one index: all but the replacement of it by itself
            self.without = tuple(self.every[:index] + self.every[index + 1 :] for index in range(6))
        elif space == ARROW:
            self._arrows = tuple(
                tuple(
                    (f"{ARROW_TO}{target}", self._landing(index, f"{ARROW_TO}{target}"))
                    for target in C.adjacent[index]
                )
                for index in range(1, 6)
            )
            # the offers on a die with no ARROW side: no direction to leave out
            self.every = (self.nothing, *(action for offers in self._arrows for _, action in offers))
        elif space == PLUS_ONE:
            self._points = tuple(
                tuple(self._landing(index, value) for value in POINTS) for index in range(1, 6)
            )
            # the offers on a die with no POINTS side, with 1 pt sides in the supply: one on any side
            self.every = (self.nothing, *(offers[0] for offers in self._points))

    def _landing(self, replace: int | None, new: str | None) -> Action:
        return {
            "type": "use_die",
            "die": self.die,
            "from": self.start,
            "steps": self.steps,
            "replace_side": replace,
            "new_side": new,
        }

    def sales(self, stars: int) -> list[Action]:
        """Sell 0 to `stars` stars."""
        sales = self._sales
        while len(sales) <= stars:
            sales.append(
                {
                    "type": "use_die",
                    "die": self.die,
                    "from": self.start,
                    "steps": self.steps,
                    "sell": len(sales),
                }
            )
        return sales[: stars + 1]

    def arrows(self, sides: tuple[str, ...]) -> list[Action]:
        """An ARROW points at an adjacent side ("The player should make sure it's pointing in the
        desired direction"), never the direction an arrow already on that side points. (A die with no
        ARROW side takes `every`.)"""
        actions = [self.nothing]
        for old, offers in zip(sides[1:], self._arrows):
            actions.extend(action for new, action in offers if new != old)
        return actions

    def plus_one(self, sides: tuple[str, ...], available: int) -> list[Action]:
        """+1: "either add a 1 pt action side or increase the value of a previously placed point action
        side by one. 5 is the maximum value" - only with that value in the supply (a bit per value in
        `available`). (A die with no POINTS side, with 1 pt sides in the supply, takes `every`.)"""
        if not available:
            return [self.nothing]
        actions = [self.nothing]
        ones = available & 1
        for old, offers in zip(sides[1:], self._points):
            if old in _POINTS_SIDES:
                if ones and old != POINTS[0]:
                    actions.append(offers[0])
                value = _NEXT_POINTS.get(old)
                if value is not None and available >> value & 1:
                    actions.append(offers[value])
            elif ones:
                actions.append(offers[0])
        return actions


# The actions of each move, by the space landed on and then by (die, from, steps) as one index: at
# most 14 x 3 x 20 x 10 of them, fewer in practice (the printed spaces never change), made when first
# needed and kept for the life of the process.
_MAX_STEPS = 10  # steps 1 to 9 (a 9-PIP)
_MOVES: dict[str, list[_Move | None]] = {
    space: [None] * (C.dice * SPACES * _MAX_STEPS) for space in SPACE_KINDS
}
_NEXT_POINTS = {old: index + 1 for index, old in enumerate(POINTS[:4])}  # points_k -> index of k + 1
_POINTS_SIDES = frozenset(POINTS)


def _points_available(supply: dict[str, int]) -> int:
    """Which POINTS sides a +1 landing can take ("If the desired point action side is not available in
    the supply, the player may not increase a point action side to that value"): a bit per value."""
    return (
        (supply["points_1"] > 0)
        | (supply["points_2"] > 0) << 1
        | (supply["points_3"] > 0) << 2
        | (supply["points_4"] > 0) << 3
        | (supply["points_5"] > 0) << 4
    )


# --- the turn ---------------------------------------------------------------------------------------


def _set_up(state: RattlebonesState, permutation: list[int]) -> None:
    """The board tiles: "Shuffle them and place 7 randomly on the blank spaces": the first seven tiles
    of the shuffled order go on the blank spaces in board order; the rest go back in the box."""
    board = list(state.board)
    for space, tile in zip(C.tile_spaces, permutation):
        board[space] = C.tiles[tile]
    state.board = tuple(board)
    state.phase = ROLL


def _roll(state: RattlebonesState, dice: list[int]) -> None:
    if len(dice) == 1:  # the usual turn: one die, free
        die = dice[0]
        state.rolled |= 1 << die
        state.to_roll = _ONE_DIE[die]
        state.phase = DICE
        return
    seat = state.player
    extra = len(dice) - 1  # "one gold ... one extra die", "two gold ... all three dice"
    state.gold[seat] -= extra
    state.gold_supply += extra
    for die in dice:
        state.rolled |= 1 << die
    state.to_roll = tuple(dice)
    state.phase = DICE


_ONE_DIE = tuple((die,) for die in range(C.dice))
_MOVERS = frozenset({*PIPS, "9_pip"})  # sides that move a pawn by the steps the action names


def _use_die(state: RattlebonesState, action: Action) -> None:
    seat = state.player
    die = action["die"]
    showing = state.showing
    if len(showing) == 1:  # the usual case: the last die
        index = showing[0][1]
        state.showing = ()
    elif len(showing) == 2:
        first, second = showing
        if first[0] == die:
            index = first[1]
            state.showing = (second,)
        else:
            index = second[1]
            state.showing = (first,)
    else:
        rest = []
        for pair in showing:
            if pair[0] == die:
                index = pair[1]
            else:
                rest.append(pair)
        state.showing = tuple(rest)
    slot = seat * DICE_EACH + die
    sides = state.dice[slot]
    effect = sides[index]
    if effect in _ARROWS:
        effect = effective_side(sides, index)
    earned = 0
    if effect is None:
        pass  # arrows pointing round in a circle
    elif effect in _MOVERS:
        _move(state, slot, action)
    elif effect == RATTLEBONES:
        # "moves the Rattlebones pawn one space backwards ... If Rattlebones lands on a space with one
        # or more players, the game ends immediately, otherwise the player then chooses one of his
        # pawns ... to move one space clockwise".
        state.rattlebones -= 1
        if not _ended(state):
            _move(state, slot, action)
    elif effect == "roll_again":
        other = action["with"]
        if other is not None:
            # "picks up the die on which the ROLL AGAIN action side was rolled. He adds another
            # (previously unrolled) die and rolls both."
            state.rolled |= 1 << other
            state.to_roll = (die, other) if die < other else (other, die)
            state.phase = DICE
    elif effect in _POINTS_OF:
        earned = _POINTS_OF[effect]
        _score(state, seat, earned)
    elif effect == "gold":
        earned = _take_gold(state, seat, 1)
    elif effect == "star":
        earned = _take_stars(state, seat, 1)
    elif effect == "train":
        # "earns a number of points equal to the space where the train currently sits. The player then
        # moves the train one space clockwise".
        earned = C.train_track[state.train]
        _score(state, seat, earned)
        if state.phase != OVER:
            state.train = (state.train + 1) % TRACK
    elif effect == "1234":
        # "points equal to his place on the score track", ties sharing the better place.
        earned = 1 + sum(1 for score in state.scores if score > state.scores[seat])
        _score(state, seat, earned)
    elif effect == "stock":
        _take_stock(state, seat)
    elif effect == "gamble":
        state.gamble_for = die
        state.phase = GAMBLE
    elif effect == "thief":
        _steal(state, seat, action["steal"])
    # x2: nothing now; it doubles at the end of the turn.
    if state.phase != USE_DIE:
        state.used += ((die, effect or "nothing", earned),)
    elif state.used or state.showing or state.to_roll:
        state.used += ((die, effect or "nothing", earned),)
        _after_die(state)
    else:
        _next_player(state)  # the usual turn: its one die used, no x2 to settle (it needs two dice)


def _after_die(state: RattlebonesState) -> None:
    if state.phase == OVER:
        return
    if state.to_roll:
        state.phase = DICE
    elif state.showing:
        state.phase = USE_DIE
        _one_way(state)
    else:
        _end_of_turn(state)


def _dice_rolled(state: RattlebonesState, values: list[int]) -> None:
    """A d6 lands on one of its six sides: the value drawn is the side index plus one."""
    to_roll = state.to_roll
    if len(to_roll) == 1 and not state.showing:  # the usual turn: one die, nothing showing
        die, side = to_roll[0], values[0] - 1
        state.showing = _SHOWING[die][side]
        state.to_roll = ()
        state.phase = USE_DIE
        uses = _uses(state, die, side)  # `_one_way`, for the one die
        if len(uses) == 1:
            _use_die(state, uses[0])
        else:
            state.legal_cache = uses
        return
    if not state.showing:  # dice rolled together: `to_roll` is ascending, so is the result
        if len(to_roll) == 2:
            state.showing = ((to_roll[0], values[0] - 1), (to_roll[1], values[1] - 1))
        else:
            state.showing = tuple(zip(to_roll, [value - 1 for value in values]))
    else:
        rolled = tuple((die, value - 1) for die, value in zip(to_roll, values))
        state.showing = tuple(sorted(state.showing + rolled))
    state.to_roll = ()
    state.phase = USE_DIE
    _one_way(state)


_SHOWING = tuple(tuple(((die, side),) for side in range(6)) for die in range(C.dice))


def _one_way(state: RattlebonesState) -> None:
    """A last die that can be used in exactly one way (a GOLD, a POINTS side, a TRAIN, ...) is used
    without asking: the player has no choice to make, so the game moves on by itself."""
    showing = state.showing
    if len(showing) == 1:
        die, side = showing[0]
        sides = state.dice[state.player * DICE_EACH + die]
        if sides[side] == "9_pip":
            # up to 27 landings: counted, and listed only when asked for (`legal_cache` stays None)
            count, plan = _nine_pip_count(state, sides)
            if count == 1:
                _use_die(state, _nine_pip_at(state, die, sides, 0, plan))
            return
        uses = _uses(state, die, side)
        if len(uses) == 1:
            _use_die(state, uses[0])
        else:
            state.legal_cache = uses


def _gamble(state: RattlebonesState, face: str) -> None:
    # "If he rolls 2, 3, 4 or 5 pts, he scores them as normal. If he rolls a Rattlebones symbol, he
    # moves Rattlebones backwards one space. He does not move his pawn." Never doubled by an x2.
    state.gamble_for = None
    state.phase = USE_DIE
    if face == RATTLEBONES:
        state.rattlebones -= 1
        _ended(state)
    else:
        _score(state, state.player, int(face))
    _after_die(state)


def _move(state: RattlebonesState, slot: int, action: Action) -> None:
    """Move a pawn clockwise; the landing space offers its side for *this* die, or the store."""
    seat = state.player
    start = action["from"]
    pawn = state.pawns.index(start, seat * PAWNS_EACH, (seat + 1) * PAWNS_EACH)
    space_index = (start + action["steps"]) % SPACES
    state.pawns[pawn] = space_index
    if state.board[space_index] == STORE:
        sell = action["sell"]
        if sell:
            state.stars[seat] -= sell
            state.star_supply += sell  # "Sold stars go back into the main supply."
            _score(state, seat, star_value(sell))
        return
    replace = action["replace_side"]
    if replace is None:
        return  # "Do nothing."
    new = action["new_side"]
    sides = state.dice[slot]
    old_kind = _SUPPLY_OF[sides[replace]]
    # "Any replaced pip sides go out of the game. Any replaced action sides go back to their supply."
    if old_kind is None:
        state.pips_out += 1
    else:
        state.sides[old_kind] += 1
    state.sides[_SUPPLY_OF[new]] -= 1
    state.dice[slot] = _WITH_SIDE[replace](sides, new)


# A die with side `index` (never the icon, 0) replaced, made as one tuple (faster than slices joined).
_WITH_SIDE = (
    None,
    lambda sides, new: (sides[0], new, sides[2], sides[3], sides[4], sides[5]),
    lambda sides, new: (sides[0], sides[1], new, sides[3], sides[4], sides[5]),
    lambda sides, new: (sides[0], sides[1], sides[2], new, sides[4], sides[5]),
    lambda sides, new: (sides[0], sides[1], sides[2], sides[3], new, sides[5]),
    lambda sides, new: (sides[0], sides[1], sides[2], sides[3], sides[4], new),
)


def star_value(count: int) -> int:
    """The store's chart, 1/2/3/4 stars for 3/7/11/15; more than four sell as fours and the rest."""
    fours, rest = divmod(count, 4)
    return fours * C.star_chart[4] + C.star_chart[rest]


def _take_gold(state: RattlebonesState, seat: int, count: int) -> int:
    taken = min(count, state.gold_supply)  # "If there is no gold remaining ... he takes none."
    state.gold_supply -= taken
    state.gold[seat] += taken
    return taken


def _take_stars(state: RattlebonesState, seat: int, count: int) -> int:
    taken = min(count, state.star_supply)
    state.star_supply -= taken
    state.stars[seat] += taken
    return taken


def _take_stock(state: RattlebonesState, seat: int) -> None:
    if not state.stock_supply:
        return
    state.stock_supply -= 1
    state.stock[seat] += 1
    if state.stock_supply:
        return
    # "When all are taken, score them." then "all stock tickets are returned to the supply".
    awards = stock_awards(state.stock)
    for other, points in enumerate(awards):
        state.scores[other] += points
    state.stock = [0] * state.seats
    state.stock_supply = C.stock
    _ended(state)


def stock_awards(held: list[int]) -> list[int]:
    """Most tickets 10, second 5; tied for most 7 each and second 2; ties for second 2 each; all five
    15. Only holders of a ticket place."""
    awards = [0] * len(held)
    counts = sorted({count for count in held if count}, reverse=True)
    if not counts:
        return awards
    first = [seat for seat, count in enumerate(held) if count == counts[0]]
    if len(first) == 1 and len(counts) == 1:
        awards[first[0]] = 15  # "If one player holds all five stock pieces, he earns the total 15 pts."
        return awards
    if len(first) > 1:
        for seat in first:
            awards[seat] = 7
        second_points = 2
        second_count = counts[1] if len(counts) > 1 else None
    else:
        awards[first[0]] = 10
        second_count = counts[1]
        tied = sum(1 for count in held if count == second_count)
        second_points = 5 if tied == 1 else 2
    if second_count is not None:
        for seat, count in enumerate(held):
            if count == second_count:
                awards[seat] = second_points
    return awards


def _steal(state: RattlebonesState, seat: int, steal: list[str | None]) -> None:
    others = [other for other in range(state.seats) if other != seat]
    for other, take in zip(others, steal):
        if take == "gold":
            state.gold[other] -= 1
            state.gold[seat] += 1
        elif take == "star":
            state.stars[other] -= 1
            state.stars[seat] += 1
        elif take == "stock":
            state.stock[other] -= 1
            state.stock[seat] += 1


def _score(state: RattlebonesState, seat: int, points: int) -> None:
    state.scores[seat] += points
    _ended(state)


def _ended(state: RattlebonesState) -> bool:
    """GAME END: "The game ends immediately whenever the Rattlebones pawn and a player pawn meet or
    pass on the score track." """
    if state.rattlebones <= max(state.scores):
        state.phase = OVER
        state.end_reason = GAME_END
        state.showing = state.to_roll = ()
        return True
    return False


def _x2_targets(state: RattlebonesState) -> list[int]:
    doubled = DOUBLED[state.x2_points]
    return [die for die, effect, earned in state.used if effect in doubled and earned]


def _end_of_turn(state: RattlebonesState) -> None:
    """x2: "If, at the end of a player's turn, the X2 is showing with gold, stars or points rolled that
    turn, then the number ... earned is doubled." Each x2 doubles one die, never the same die twice."""
    used = state.used
    doublers = list(map(_EFFECT_OF_USE, used)).count("x2") if len(used) > 1 else 0
    if doublers and (targets := _x2_targets(state)):
        if len(targets) > doublers:
            earnings = {(effect, earned) for die, effect, earned in state.used if die in targets}
            if len(earnings) > 1:
                state.phase = DOUBLE  # "may take two coins and one star or one coin and two stars"
                return
            targets = targets[:doublers]  # X2, Coin, Coin: either coin, the same three coins
        for die in targets:
            _double(state, die)
            if state.phase == OVER:
                return
    _next_player(state)


_EFFECT_OF_USE = itemgetter(1)  # of a `used` entry (die, effect, earned)


def _double(state: RattlebonesState, die: int) -> None:
    seat = state.player
    for used_die, effect, earned in state.used:
        if used_die == die and effect in DOUBLED[state.x2_points] and earned:
            if effect == "gold":
                _take_gold(state, seat, earned)
            elif effect == "star":
                _take_stars(state, seat, earned)
            else:
                _score(state, seat, earned)
            return


def _next_player(state: RattlebonesState) -> None:
    if state.phase == OVER:
        return
    state.player = (state.player + 1) % state.seats  # "Player turns will continue clockwise"
    state.rolled = 0
    state.showing = state.to_roll = ()
    state.used = ()
    state.phase = ROLL


# --- the view ---------------------------------------------------------------------------------------


def _view(game: Rattlebones, state: RattlebonesState) -> View:
    seat = state.player
    outcome = game.outcome(state)
    players = []
    for other in range(state.seats):
        players.append(
            {
                "score": state.scores[other],
                "gold": state.gold[other],
                "stars": state.stars[other],
                "stock": state.stock[other],
                "pawns": sorted(state.pawns[other * C.pawns : (other + 1) * C.pawns]),
                "dice": [list(state.dice[other * C.dice + die]) for die in range(C.dice)],
            }
        )
    dice_of_player = state.dice[seat * C.dice : (seat + 1) * C.dice]
    return {
        "game": SPEC.key,
        "options": {"x2_points": state.x2_points},
        "seats": state.seats,
        "phase": state.phase,
        "decision": game.decision(state).to_json(),
        "player": None if state.phase == OVER else seat,
        "board": list(state.board),
        "rattlebones": state.rattlebones,
        "train": {"space": state.train, "points": C.train_track[state.train], "track": list(C.train_track)},
        "players": players,
        "supply": {
            "sides": dict(state.sides),
            "gold": state.gold_supply,
            "stars": state.star_supply,
            "stock": state.stock_supply,
        },
        "pips_out": state.pips_out,
        "turn": {
            "rolled": [die for die in range(C.dice) if state.rolled >> die & 1],
            "to_roll": list(state.to_roll),
            "showing": [
                {
                    "die": die,
                    "side": side,
                    "face": dice_of_player[die][side],
                    "acts_as": effective_side(dice_of_player[die], side),
                }
                for die, side in state.showing
            ],
            "used": [
                {"die": die, "acted_as": effect, "earned": earned} for die, effect, earned in state.used
            ],
            "gamble_for": state.gamble_for,
        },
        "outcome": None if outcome is None else outcome.to_json(),
    }
