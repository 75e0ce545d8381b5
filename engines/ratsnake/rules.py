"""Rat-Snake: the rules (rulebook "PLAYING RAT-SNAKE", Steps One to Four, "SIDE BETS", and the
SIDE BETS and THROWER summary cards).

One thrower at a time: he antes six coins into his silo, non-throwers may wager face down on his
throw, the dice are thrown (a chance event), the throw is settled, and he continues or bows out when
the rules let him choose (or leaves the ring, at the two moments the rules offer it). Wherever the
rules leave exactly one possibility the engine moves on by itself, so every `Decision` it returns is
a real choice. docs/games/rat-snake.md lists every reading of an unclear sentence made here.

The state is changed in place (see `engines.protocol.EngineState`): every `apply_*` checks the
event completely before its first assignment, so a refused event leaves the state as it was.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from engines.bots import RandomBot
from engines.chance import ChanceRequest
from engines.errors import IllegalAction
from engines.protocol import Action, Bot, Decision, Event, Game, Outcome, View
from engines.ratsnake import money
from engines.ratsnake.bots import HeuristicBot
from engines.ratsnake.sentences import describe_event
from engines.ratsnake.spec import BY_STAKE, MUST_CONTINUE, SILO_ANTE, SPEC, Options
from engines.ratsnake.state import (
    CHECK_THE_SILO,
    CONTINUE_OR_BOW_OUT,
    DOUBLE_DOWN,
    LEAVE_OR_REMAIN,
    LOST,
    OVER,
    RETURNED,
    SIDE_BETS,
    THROW,
    WON,
    RatSnakeState,
    SettledBet,
    SideBet,
    ThrowRecord,
)
from engines.ratsnake.throws import (
    CALLS,
    DOUBLE_DOWN_ODDS,
    GAIN,
    LOSE,
    PIPS_ON_BOTH,
    PREDICTION_OF_RESULT,
    PREDICTIONS,
    RAT_AND_PIPS,
    RATS_EYES,
    RATS_OUT,
    SIDE_BET_ODDS,
    SNAKE_AND_PIPS,
    TWIST,
    check_call,
    check_total,
    classify,
    pips,
)
from engines.ratsnake.throws import CHECK_THE_SILO as CHECK_THE_SILO_BET

SESSION_OVER = "session_over"
FORFEIT = "forfeit"

# Every action type this game knows, with the exact fields each carries.
ACTION_FIELDS: dict[str, frozenset[str]] = {
    "side_bet": frozenset({"type", "prediction", "stake"}),
    "no_bet": frozenset({"type"}),
    "double_down": frozenset({"type", "call"}),
    "continue": frozenset({"type"}),
    "bow_out": frozenset({"type"}),
    "leave_ring": frozenset({"type"}),
    "remain": frozenset({"type"}),
}
ACTIONS_OF_PHASE: dict[str, frozenset[str]] = {
    SIDE_BETS: frozenset({"side_bet", "no_bet"}),
    DOUBLE_DOWN: frozenset({"double_down"}),
    CONTINUE_OR_BOW_OUT: frozenset({"continue", "bow_out", "leave_ring"}),
    LEAVE_OR_REMAIN: frozenset({"leave_ring", "remain"}),
}
# A bet or a call is made face down; the view reveals it when its window closes.
FACE_DOWN_ACTIONS = frozenset({"side_bet", "no_bet", "double_down"})


class RatSnake(Game[RatSnakeState]):
    spec = SPEC

    # --- setting up -------------------------------------------------------------------------------
    def initial_state(self, *, seats: int, options: dict[str, Any]) -> RatSnakeState:
        resolved = Options.from_resolved(options)
        state = RatSnakeState(options=resolved, purses=(resolved.starting_purse,) * seats, phase=THROW)
        _start_turn(state)
        return state

    def seat_count(self, state: RatSnakeState) -> int:
        return state.seats

    # --- asking -----------------------------------------------------------------------------------
    def decide(self, state: RatSnakeState) -> Decision:
        phase = state.phase
        if phase in (SIDE_BETS, DOUBLE_DOWN):
            return _window_decision(state.waiting, phase)
        if phase in (CONTINUE_OR_BOW_OUT, LEAVE_OR_REMAIN):
            return _turn_decision(state.thrower, phase)
        return _FIXED_DECISIONS[phase]

    def chance_request(self, state: RatSnakeState) -> ChanceRequest:
        if state.phase in (THROW, CHECK_THE_SILO):
            # "The thrower rolls two dice"; the check is a second throw of the same two dice.
            return _DICE[state.phase]
        raise IllegalAction("no throw is expected now", code="chance/not_expected")

    def legal_actions(self, state: RatSnakeState, seat: int) -> list[Action]:
        if seat not in self.decision(state).seats:
            return []
        if state.phase == SIDE_BETS:
            limits = _stake_limit(state, seat, RATS_OUT), _stake_limit(state, seat, CHECK_THE_SILO_BET)
            return list(_side_bet_actions(*limits))
        if state.phase == DOUBLE_DOWN:
            return [{"type": "double_down", "call": call} for call in CALLS]
        if state.phase == CONTINUE_OR_BOW_OUT:
            actions = []
            if _can_meet_ante(state):
                actions.append({"type": "continue"})
            if not _must_continue(state):
                actions.append({"type": "bow_out"})
            if _may_leave_with_winnings(state):
                actions.append({"type": "leave_ring"})
            return actions
        if state.phase == LEAVE_OR_REMAIN:
            return [{"type": "leave_ring"}, {"type": "remain"}]
        return []

    def outcome(self, state: RatSnakeState) -> Outcome | None:
        if state.phase != OVER:
            return None
        last = frozenset() if state.forfeited is None else frozenset({state.forfeited})
        return Outcome.from_scores(tuple(state.purses), state.end_reason or SESSION_OVER, last=last)

    def event_audience(self, state_before: RatSnakeState, event: Event) -> frozenset[int] | None:
        # Side bets and double-down calls are simultaneous: "unseen by the others" until the window
        # closes. The log hides the payload from everyone but its author; the view reveals the bets
        # once the window has closed, and the service publishes the payloads when the match ends.
        kind = event.payload.get("type") if event.kind == "action" else None
        if isinstance(kind, str) and kind in FACE_DOWN_ACTIONS and event.seat is not None:
            return frozenset({event.seat})
        return None

    def view(self, state: RatSnakeState, seat: int | None) -> View:
        return _view(self, state, seat)

    def describe_event(
        self,
        event: Event,
        *,
        viewer: int | None,
        seat_names: Sequence[str],
        state_before: RatSnakeState | None = None,
    ) -> str:
        return describe_event(event, viewer=viewer, seat_names=seat_names)

    # --- changing ---------------------------------------------------------------------------------
    def apply_action(self, state: RatSnakeState, seat: int, action: Action) -> None:
        kind = action.get("type")
        if not isinstance(kind, str) or kind not in ACTION_FIELDS:
            raise IllegalAction(f"Rat-Snake has no action {kind!r}", code="action/unknown")
        if set(action) != ACTION_FIELDS[kind]:
            expected = ", ".join(sorted(ACTION_FIELDS[kind]))
            raise IllegalAction(f"a {kind} action has exactly the fields {expected}", code="action/malformed")
        if kind not in ACTIONS_OF_PHASE.get(state.phase, frozenset()):
            raise IllegalAction(f"no {kind} now: the table is at {state.phase}", code="action/not_now")
        if kind in ("side_bet", "no_bet"):
            _answer_side_bets(state, seat, action)
            return
        if kind == "double_down":
            _double_down(state, seat, action["call"])
            return
        if seat != state.thrower:
            raise IllegalAction(f"seat {seat} is not the thrower", code="turn/not_your_turn")
        if state.phase == LEAVE_OR_REMAIN:
            # Rat's eyes: "The former thrower can either leave the ring or remain, making side bets
            # and awaiting the dice to come his way again."
            if kind == "leave_ring":
                state.left_ring = state.left_ring | {seat}
            _end_turn(state)
            return
        if kind == "continue":
            if not _can_meet_ante(state):
                raise IllegalAction(
                    f"silo {state.silo} and purse {state.purses[seat]} cannot make the ante of {SILO_ANTE}",
                    code="thrower/cannot_meet_ante",
                )
            _continue(state)
            return
        if _must_continue(state):
            raise IllegalAction(
                "after a rat and pips the thrower must continue play if possible",
                code="thrower/must_continue",
            )
        if kind == "leave_ring":
            if not _may_leave_with_winnings(state):
                raise IllegalAction(
                    "the thrower leaves the ring only after rat's eyes or with the winnings of a check",
                    code="thrower/cannot_leave_now",
                )
            # A check won: "He can either take his winnings and leave the ring or throw again."
            state.left_ring = state.left_ring | {seat}
        _end_turn(state)

    def apply_chance(self, state: RatSnakeState, outcome: dict[str, Any]) -> None:
        dice = (outcome["dice"][0], outcome["dice"][1])
        if state.phase == THROW:
            _throw(state, dice)
        else:
            _check_the_silo(state, dice)

    def apply_forfeit(self, state: RatSnakeState, seat: int, reason: str) -> None:
        purses = list(state.purses)
        # Outstanding side bets are called off first: no throw decided them.
        for bet in state.bets:
            purses[bet.seat] += bet.stake
        # The thrower's silo is still his: everyone is ranked by purse + silo.
        purses[state.thrower] += state.silo
        state.purses = tuple(purses)
        state.silo = 0
        _close_window(state)
        state.phase = OVER
        state.end_reason = FORFEIT
        state.forfeited = seat

    # --- bots -------------------------------------------------------------------------------------
    def bots(self) -> Mapping[str, Bot]:
        return {"random": RandomBot(), "heuristic": HeuristicBot()}


_DICE = {phase: ChanceRequest.dice(phase, count=2) for phase in (THROW, CHECK_THE_SILO)}
# Decisions are values: the few a session can reach are made once and shared.
_FIXED_DECISIONS = {
    THROW: Decision.chance(THROW),
    CHECK_THE_SILO: Decision.chance(CHECK_THE_SILO),
    OVER: Decision.over(),
}


@lru_cache(maxsize=4096)
def _window_decision(waiting: frozenset[int], phase: str) -> Decision:
    return Decision.simultaneous(waiting, phase)


@lru_cache(maxsize=64)
def _turn_decision(seat: int, phase: str) -> Decision:
    return Decision.turn(seat, phase)


@lru_cache(maxsize=1024)
def _side_bet_actions(limit: int, check_limit: int) -> tuple[Action, ...]:
    """Every answer to a side-bet window for the given stake limits, in a fixed order (shared and
    never mutated: `legal_actions` hands out a new list of them)."""
    actions: list[Action] = [{"type": "no_bet"}]
    for prediction in PREDICTIONS:
        top = check_limit if prediction == CHECK_THE_SILO_BET else limit
        actions.extend(
            {"type": "side_bet", "prediction": prediction, "stake": stake} for stake in range(1, top + 1)
        )
    return tuple(actions)


# --- the flow of a session ------------------------------------------------------------------------


def _start_turn(state: RatSnakeState) -> None:
    """The dice reach the next seat: Step One, "The current player ... antes six coins"."""
    purses, turns, left, seats = state.purses, state.turns_taken, state.left_ring, state.seats
    skipped: list[int] = []
    # The session lasts `passes` turns of every seat, and while the ring has two or more players in
    # it ("Rat-Snake is played with two or more players, called a ring").
    while turns < state.options.passes * seats and len(left) <= seats - 2:
        seat = turns % seats
        if seat not in left and purses[seat] >= SILO_ANTE:
            state.purses = _with(purses, seat, -SILO_ANTE)
            state.thrower, state.silo, state.turns_taken, state.skipped = (
                seat,
                SILO_ANTE,
                turns,
                tuple(skipped),
            )
            _before_throw(state)
            return
        if all(purses[other] < SILO_ANTE for other in range(seats) if other not in left):
            break  # nobody in the ring can ante any more: the dice can never be thrown again
        # "Play continues with the current thrower until he is unable to meet the ante of six
        # coins": a seat that cannot ante never becomes the thrower, nor does one that left the
        # ring; its turn still counts.
        skipped.append(seat)
        turns += 1
    state.turns_taken, state.skipped = turns, tuple(skipped)
    _end_session(state)


def _before_throw(state: RatSnakeState) -> None:
    """Open the side-bet window if anyone can wager, else go straight to the throw."""
    state.bets = ()
    if state.options.side_bets:
        # "Players not currently throwing can place side bets": any non-thrower in the ring with a coin.
        eligible = frozenset(
            seat
            for seat in range(state.seats)
            if seat != state.thrower and state.purses[seat] > 0 and seat not in state.left_ring
        )
        if eligible:
            state.phase = SIDE_BETS
            state.window = state.waiting = eligible
            return
    state.phase = THROW
    state.window = state.waiting = frozenset()


def _answer_side_bets(state: RatSnakeState, seat: int, action: Action) -> None:
    if seat not in state.waiting:
        if seat in state.window:
            raise IllegalAction(f"seat {seat} has already answered this throw", code="bet/already_placed")
        raise IllegalAction(f"seat {seat} may not bet on this throw", code="turn/not_your_turn")
    if action["type"] == "side_bet":
        prediction = action["prediction"]
        if prediction not in PREDICTIONS:
            raise IllegalAction(
                f"a prediction is one of {', '.join(PREDICTIONS)}, not {prediction!r}",
                code="bet/bad_prediction",
            )
        stake = action["stake"]
        limit = _stake_limit(state, seat, prediction)
        if isinstance(stake, bool) or not isinstance(stake, int) or not 1 <= stake <= limit:
            raise IllegalAction(
                f"a stake on {prediction} is a whole number from 1 to {limit}", code="bet/stake_out_of_range"
            )
        state.purses = _with(state.purses, seat, -stake)
        state.bets = state.bets + (SideBet(seat=seat, prediction=prediction, stake=stake),)
    state.waiting = state.waiting - {seat}
    if not state.waiting:
        state.phase = THROW
        state.window = frozenset()


def _double_down(state: RatSnakeState, seat: int, call: Any) -> None:
    if seat not in state.waiting:
        if seat in state.window:
            raise IllegalAction(
                f"seat {seat} has already called the check", code="double_down/already_called"
            )
        raise IllegalAction(f"seat {seat} has no check bet to double", code="turn/not_your_turn")
    if call not in CALLS:
        raise IllegalAction(f"a call is one of {', '.join(CALLS)}, not {call!r}", code="double_down/bad_call")
    bet = state.bet_of(seat)
    assert bet is not None
    # "requires the side-betting player to double down on his bet": a second stake as large as the
    # first. The purse was checked to cover it when the bet was placed and nothing touches a
    # bettor's purse before the check, so `min` only guards the invariant.
    extra = min(bet.stake, state.purses[seat])
    doubled = SideBet(seat, bet.prediction, bet.stake + extra, call)
    state.bets = tuple(doubled if other.seat == seat else other for other in state.bets)
    state.purses = _with(state.purses, seat, -extra)
    state.waiting = state.waiting - {seat}
    if not state.waiting:
        state.phase = CHECK_THE_SILO
        state.window = frozenset()


def _throw(state: RatSnakeState, dice: tuple[int, int]) -> None:
    """Step Three: "The roll determines the fate of the thrower."""
    result = classify(dice)
    # `settled` shows the bets decided by this throw and its check, so the last throw's list goes.
    state.last_throw = ThrowRecord(thrower=state.thrower, dice=dice, result=result)
    state.settled = ()
    _settle_first_throw_bets(state, result)
    if result == RATS_EYES:
        # "the thrower loses his entire silo of coins and play passes to his right. The former
        # thrower can either leave the ring or remain".
        _thrower_loses(state, state.silo)
        _leave_or_remain(state)
    elif result == TWIST:
        # "the thrower wins a number of coins equal to the current stakes in his silo" (card: 1:1).
        _thrower_wins(state, state.silo)
        _may_continue(state)
    elif result == SNAKE_AND_PIPS:
        _thrower_wins(state, pips(dice))
        _may_continue(state)
    elif result == RAT_AND_PIPS:
        # The text lets him "continue to play, or bow out"; the card says "must continue play if
        # possible". The option `rat_and_pips` picks one.
        _thrower_loses(state, pips(dice))
        _may_continue(state, forced=state.options.rat_and_pips == MUST_CONTINUE)
    elif result == PIPS_ON_BOTH:
        # "the thrower must immediately roll again": no side-bet window before the check.
        callers = frozenset(bet.seat for bet in state.bets if bet.prediction == CHECK_THE_SILO_BET)
        if callers:
            state.phase = DOUBLE_DOWN
            state.window = state.waiting = callers
        else:
            state.phase = CHECK_THE_SILO
    else:
        # Snake and rat: "neither gains nor loses any coins and may continue to play or bow out."
        _may_continue(state)


def _check_the_silo(state: RatSnakeState, dice: tuple[int, int]) -> None:
    record = state.last_throw
    assert record is not None and record.first_total is not None
    first_total = record.first_total
    call = check_call(first_total, check_total(dice))
    state.last_throw = ThrowRecord(record.thrower, record.dice, record.result, dice, call)
    _settle_check_bets(state, call)
    if call == GAIN:
        # "he wins a number of coins equal to the result of the initial throw."
        _thrower_wins(state, first_total)
    elif call == LOSE:
        # "loses a number of coins equal to the first throw (not to exceed his silo)."
        _thrower_loses(state, first_total)
    _may_continue(state)


def _may_continue(state: RatSnakeState, *, forced: bool = False) -> None:
    """After a settled throw: ask the thrower only when he really has a choice."""
    if state.silo == 0:
        # "If this reduces his silo of coins to zero, he is out and play passes to his right."
        _end_turn(state)
    elif not _can_meet_ante(state) and not _may_leave_with_winnings(state):
        # Step Four: play continues "until he is unable to meet the ante of six coins": he bows out
        # with his remaining stakes.
        _end_turn(state)
    elif forced:
        _continue(state)
    else:
        state.phase = CONTINUE_OR_BOW_OUT
        _close_window(state)


def _leave_or_remain(state: RatSnakeState) -> None:
    """After rat's eyes the silo is empty and the dice pass; first the former thrower says whether he
    stays in the ring. Asked only when staying could matter: he has a coin to bet or to ante with
    later, and there is a ring of two or more to stay in."""
    _close_window(state)
    if state.purses[state.thrower] > 0 and len(state.ring) >= 2:
        state.phase = LEAVE_OR_REMAIN
    else:
        _end_turn(state)


def _continue(state: RatSnakeState) -> None:
    # "increase his ante back up to six coins" (and after a lost check "increasing his stakes back to
    # six if the loss reduced his silo to less than that amount"): a silo above six rides as it is.
    top_up = max(0, SILO_ANTE - state.silo)
    state.purses = _with(state.purses, state.thrower, -top_up)
    state.silo += top_up
    _before_throw(state)


def _end_turn(state: RatSnakeState) -> None:
    """The dice pass to the right; the thrower takes what is left in his silo back to his purse."""
    state.purses = _with(state.purses, state.thrower, state.silo)
    state.silo = 0
    _close_window(state)
    state.turns_taken += 1
    _start_turn(state)


def _close_window(state: RatSnakeState) -> None:
    state.bets = ()
    state.window = state.waiting = frozenset()


def _end_session(state: RatSnakeState) -> None:
    state.phase = OVER
    state.silo = 0
    _close_window(state)
    state.end_reason = SESSION_OVER


# --- money -----------------------------------------------------------------------------------------


def _others_in_ring(state: RatSnakeState) -> tuple[int, ...]:
    """Who acts as the house without one: the other seats still in the ring, from the thrower's right."""
    return tuple(
        seat for seat in money.ring_from_right(state.thrower, state.seats) if seat not in state.left_ring
    )


def _thrower_wins(state: RatSnakeState, amount: int) -> None:
    """Winnings go into the silo, paid by the house or, without one, by the other players."""
    if state.options.house:
        state.silo += amount
        state.house_net -= amount
        return
    purses, paid = money.collect(state.purses, amount, _others_in_ring(state))
    # A player who cannot cover his share pays what he has; the thrower gains only what was paid.
    state.purses = purses
    state.silo += paid


def _thrower_loses(state: RatSnakeState, amount: int) -> None:
    """Losses leave the silo, never more than it holds, to the house or the other players."""
    lost = min(amount, state.silo)
    state.silo -= lost
    if state.options.house:
        state.house_net += lost
    else:
        state.purses = money.pay_out(state.purses, lost, _others_in_ring(state))


def _settle_first_throw_bets(state: RatSnakeState, result: str) -> None:
    if not state.bets:
        return
    if result == PIPS_ON_BOTH and any(bet.prediction == CHECK_THE_SILO_BET for bet in state.bets):
        if state.options.house:
            # Check bets "pay nothing" yet and ride into the double-down; the rest lost to the house.
            riding = tuple(bet for bet in state.bets if bet.prediction == CHECK_THE_SILO_BET)
            losing = tuple(bet for bet in state.bets if bet.prediction != CHECK_THE_SILO_BET)
            _settle_with_house(state, losing, lambda bet: False, SIDE_BET_ODDS)
            state.bets = riding
        # Without a house the pot is shared only once the check has named the winners.
        return
    winning = PREDICTION_OF_RESULT[result]
    if state.options.house:
        _settle_with_house(state, state.bets, lambda bet: bet.prediction == winning, SIDE_BET_ODDS)
    else:
        _settle_without_house(state, lambda bet: bet.prediction == winning)
    state.bets = ()


def _settle_check_bets(state: RatSnakeState, call: str) -> None:
    if not state.bets:
        return

    def right(bet: SideBet) -> bool:
        return bet.prediction == CHECK_THE_SILO_BET and bet.call == call

    if state.options.house:
        _settle_with_house(state, state.bets, right, {CHECK_THE_SILO_BET: DOUBLE_DOWN_ODDS[call]})
    else:
        _settle_without_house(state, right)
    state.bets = ()


def _settle_with_house(state: RatSnakeState, bets, won, odds: Mapping[str, int]) -> None:
    """Against the house: a right prediction keeps its stake and is paid stake x odds; a wrong one
    loses its stake to the house."""
    purses = state.purses
    house_net = state.house_net
    settled = []
    for bet in bets:
        if won(bet):
            winnings = bet.stake * odds[bet.prediction]
            purses = _with(purses, bet.seat, bet.stake + winnings)
            house_net -= winnings
            settled.append(_settled(bet, WON, bet.stake + winnings))
        else:
            house_net += bet.stake
            settled.append(_settled(bet, LOST, 0))
    state.purses = purses
    state.house_net = house_net
    state.settled = state.settled + tuple(settled)


def _settle_without_house(state: RatSnakeState, won) -> None:
    """'the losers' wagers are won by whichever non-throwing player(s) correctly predicted the
    thrower's outcome': the wrong wagers form a pot shared equally by the right predictors, who also
    keep their own wagers. With nobody right there is nobody to win them, so every wager goes back."""
    winners = [bet for bet in state.bets if won(bet)]
    purses = state.purses
    settled = []
    if not winners:
        for bet in state.bets:
            purses = _with(purses, bet.seat, bet.stake)
            settled.append(_settled(bet, RETURNED, bet.stake))
    else:
        pot = sum(bet.stake for bet in state.bets if not won(bet))
        stake_of = {bet.seat: bet.stake for bet in winners}
        in_order = tuple(
            (seat, stake_of[seat])
            for seat in money.ring_from_right(state.thrower, state.seats)
            if seat in stake_of
        )
        if state.options.pot_split == BY_STAKE:
            shares = money.split_by_stake(pot, in_order)
        else:
            shares = money.split_equally(pot, tuple(seat for seat, _ in in_order))
        for bet in state.bets:
            if won(bet):
                returned = bet.stake + shares[bet.seat]
                purses = _with(purses, bet.seat, returned)
                settled.append(_settled(bet, WON, returned))
            else:
                settled.append(_settled(bet, LOST, 0))
    state.purses = purses
    state.settled = state.settled + tuple(settled)


def _settled(bet: SideBet, result: str, returned: int) -> SettledBet:
    return SettledBet(
        seat=bet.seat,
        prediction=bet.prediction,
        stake=bet.stake,
        call=bet.call,
        result=result,
        returned=returned,
    )


# --- small rules ------------------------------------------------------------------------------------


def _stake_limit(state: RatSnakeState, seat: int, prediction: str) -> int:
    purse = state.purses[seat]
    if prediction == CHECK_THE_SILO_BET:
        # A check bet "requires the side-betting player to double down": his purse must hold both
        # stakes when he places the first.
        purse //= 2
    cap = state.options.max_side_bet
    return min(cap, purse) if cap else purse


def _can_meet_ante(state: RatSnakeState) -> bool:
    return state.silo + state.purses[state.thrower] >= SILO_ANTE


def _may_leave_with_winnings(state: RatSnakeState) -> bool:
    """After a check that gained: "He can either take his winnings and leave the ring or throw again"."""
    last = state.last_throw
    return last is not None and last.thrower == state.thrower and last.check_result == GAIN


def _must_continue(state: RatSnakeState) -> bool:
    """The THROWER card's reading after a rat and pips: "must continue play if possible"."""
    return (
        state.phase == CONTINUE_OR_BOW_OUT
        and state.options.rat_and_pips == MUST_CONTINUE
        and state.last_throw is not None
        and state.last_throw.result == RAT_AND_PIPS
        and state.last_throw.thrower == state.thrower
        and _can_meet_ante(state)
    )


def _with(purses: tuple[int, ...], seat: int, change: int) -> tuple[int, ...]:
    changed = list(purses)
    changed[seat] += change
    return tuple(changed)


# --- the view ---------------------------------------------------------------------------------------


def _view(game: RatSnake, state: RatSnakeState, seat: int | None) -> View:
    n = state.seats
    purses = list(state.purses)
    if state.phase == SIDE_BETS:
        # A stake left the purse face down: the others still see the coins as they were.
        for bet in state.bets:
            if bet.seat != seat:
                purses[bet.seat] += bet.stake
        open_bets = [bet.to_json() for bet in state.bets if bet.seat == seat]
    elif state.phase == DOUBLE_DOWN:
        open_bets = [
            bet.to_json() if bet.seat == seat else {**bet.to_json(), "call": None} for bet in state.bets
        ]
    else:
        open_bets = [bet.to_json() for bet in state.bets]
    window = state.phase if state.phase in (SIDE_BETS, DOUBLE_DOWN) else None
    outcome = game.outcome(state)
    circuits_done = state.turns_taken // n
    last = state.last_throw
    checking = state.phase in (DOUBLE_DOWN, CHECK_THE_SILO)
    return {
        "game": SPEC.key,
        "you": seat,
        "options": state.options.to_json(),
        "ante": SILO_ANTE,
        "seats": n,
        "purses": purses,
        "thrower": None if state.phase == OVER else state.thrower,
        "silo": state.silo,
        "phase": state.phase,
        "decision": game.decision(state).to_json(),
        "pass": min(circuits_done + 1, state.options.passes),
        "passes": state.options.passes,
        "passes_remaining": 0 if state.phase == OVER else state.options.passes - circuits_done,
        "turns_taken": state.turns_taken,
        "skipped": list(state.skipped),
        "left_ring": sorted(state.left_ring),
        "last_throw": None if last is None else last.to_json(),
        "first_total": last.first_total if checking and last is not None else None,
        "side_bets": {
            "window": window,
            "asked": sorted(state.window) if window else [],
            "answered": sorted(state.window - state.waiting) if window else [],
            "open": open_bets,
            "settled": [bet.to_json() for bet in state.settled],
        },
        "house": state.options.house,
        "house_net": state.house_net if state.options.house else None,
        "outcome": None if outcome is None else outcome.to_json(),
    }
