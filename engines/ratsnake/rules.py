"""Rat-Snake: the rules (rulebook "PLAYING RAT-SNAKE", Steps One to Four, "SIDE BETS", and the
SIDE BETS and THROWER summary cards).

One thrower at a time: he antes six coins into his silo, non-throwers may wager face down on his
throw, the dice are thrown (a chance event), the throw is settled, and he continues or bows out when
the rules let him choose. Wherever the rules leave exactly one possibility the engine moves on by
itself, so every `Decision` it returns is a real choice. docs/games/rat-snake.md lists every reading
of an unclear sentence made here.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from engines.bots import RandomBot
from engines.chance import ChanceRequest
from engines.errors import IllegalAction
from engines.protocol import Action, Bot, Decision, Event, Game, Outcome, View
from engines.ratsnake import money
from engines.ratsnake.bots import HeuristicBot
from engines.ratsnake.spec import MUST_CONTINUE, SILO_ANTE, SPEC, Options
from engines.ratsnake.state import (
    CHECK_THE_SILO,
    CONTINUE_OR_BOW_OUT,
    DOUBLE_DOWN,
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
}
ACTIONS_OF_PHASE: dict[str, frozenset[str]] = {
    SIDE_BETS: frozenset({"side_bet", "no_bet"}),
    DOUBLE_DOWN: frozenset({"double_down"}),
    CONTINUE_OR_BOW_OUT: frozenset({"continue", "bow_out"}),
}
# A bet or a call is made face down; the view reveals it when its window closes.
FACE_DOWN_ACTIONS = frozenset({"side_bet", "no_bet", "double_down"})


class RatSnake(Game[RatSnakeState]):
    spec = SPEC

    # --- setting up -------------------------------------------------------------------------------
    def initial_state(self, *, seats: int, options: dict[str, Any]) -> RatSnakeState:
        resolved = Options.from_resolved(options)
        state = RatSnakeState(options=resolved, purses=(resolved.starting_purse,) * seats, phase=THROW)
        return _start_turn(state)

    def seat_count(self, state: RatSnakeState) -> int:
        return state.seats

    # --- asking -----------------------------------------------------------------------------------
    def decision(self, state: RatSnakeState) -> Decision:
        if state.phase in (SIDE_BETS, DOUBLE_DOWN):
            return Decision.simultaneous(state.waiting, state.phase)
        if state.phase in (THROW, CHECK_THE_SILO):
            return Decision.chance(state.phase)
        if state.phase == CONTINUE_OR_BOW_OUT:
            return Decision.turn(state.thrower, state.phase)
        return Decision.over()

    def chance_request(self, state: RatSnakeState) -> ChanceRequest:
        if state.phase in (THROW, CHECK_THE_SILO):
            # "The thrower rolls two dice"; the check is a second throw of the same two dice.
            return ChanceRequest.dice(state.phase, count=2)
        raise IllegalAction("no throw is expected now", code="chance/not_expected")

    def legal_actions(self, state: RatSnakeState, seat: int) -> list[Action]:
        if seat not in self.decision(state).seats:
            return []
        if state.phase == SIDE_BETS:
            actions: list[Action] = [{"type": "no_bet"}]
            for prediction in PREDICTIONS:
                for stake in range(1, _stake_limit(state, seat, prediction) + 1):
                    actions.append({"type": "side_bet", "prediction": prediction, "stake": stake})
            return actions
        if state.phase == DOUBLE_DOWN:
            return [{"type": "double_down", "call": call} for call in CALLS]
        if state.phase == CONTINUE_OR_BOW_OUT:
            actions = []
            if _can_meet_ante(state):
                actions.append({"type": "continue"})
            if not _must_continue(state):
                actions.append({"type": "bow_out"})
            return actions
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

    # --- changing ---------------------------------------------------------------------------------
    def apply_action(self, state: RatSnakeState, seat: int, action: Action) -> RatSnakeState:
        kind = action.get("type")
        if not isinstance(kind, str) or kind not in ACTION_FIELDS:
            raise IllegalAction(f"Rat-Snake has no action {kind!r}", code="action/unknown")
        if set(action) != ACTION_FIELDS[kind]:
            expected = ", ".join(sorted(ACTION_FIELDS[kind]))
            raise IllegalAction(f"a {kind} action has exactly the fields {expected}", code="action/malformed")
        if kind not in ACTIONS_OF_PHASE.get(state.phase, frozenset()):
            raise IllegalAction(f"no {kind} now: the table is at {state.phase}", code="action/not_now")
        if kind in ("side_bet", "no_bet"):
            return _answer_side_bets(state, seat, action)
        if kind == "double_down":
            return _double_down(state, seat, action["call"])
        if seat != state.thrower:
            raise IllegalAction(f"seat {seat} is not the thrower", code="turn/not_your_turn")
        if kind == "continue":
            if not _can_meet_ante(state):
                raise IllegalAction(
                    f"silo {state.silo} and purse {state.purses[seat]} cannot make the ante of {SILO_ANTE}",
                    code="thrower/cannot_meet_ante",
                )
            return _continue(state)
        if _must_continue(state):
            raise IllegalAction(
                "after a rat and pips the thrower must continue play if possible",
                code="thrower/must_continue",
            )
        return _end_turn(state)

    def apply_chance(self, state: RatSnakeState, outcome: dict[str, Any]) -> RatSnakeState:
        dice = (outcome["dice"][0], outcome["dice"][1])
        if state.phase == THROW:
            return _throw(state, dice)
        return _check_the_silo(state, dice)

    def apply_forfeit(self, state: RatSnakeState, seat: int, reason: str) -> RatSnakeState:
        purses = list(state.purses)
        # Outstanding side bets are called off first: no throw decided them.
        for bet in state.bets:
            purses[bet.seat] += bet.stake
        # The thrower's silo is still his: everyone is ranked by purse + silo.
        purses[state.thrower] += state.silo
        return replace(
            state,
            purses=tuple(purses),
            silo=0,
            bets=(),
            window=frozenset(),
            waiting=frozenset(),
            phase=OVER,
            end_reason=FORFEIT,
            forfeited=seat,
        )

    # --- bots -------------------------------------------------------------------------------------
    def bots(self) -> Mapping[str, Bot]:
        return {"random": RandomBot(), "heuristic": HeuristicBot()}


# --- the flow of a session ------------------------------------------------------------------------


def _start_turn(state: RatSnakeState) -> RatSnakeState:
    """The dice reach the next seat: Step One, "The current player ... antes six coins"."""
    purses = state.purses
    turns = state.turns_taken
    skipped: list[int] = []
    while True:
        if turns >= state.options.passes * state.seats:
            return _end_session(replace(state, turns_taken=turns, skipped=tuple(skipped)))
        if all(purse < SILO_ANTE for purse in purses):
            # Nobody can ante any more, so the dice can never be thrown again.
            return _end_session(replace(state, turns_taken=turns, skipped=tuple(skipped)))
        seat = turns % state.seats
        if purses[seat] >= SILO_ANTE:
            break
        # "Play continues with the current thrower until he is unable to meet the ante of six
        # coins": a seat that cannot ante at all never becomes the thrower; its turn still counts.
        skipped.append(seat)
        turns += 1
    purses = _with(purses, seat, -SILO_ANTE)
    state = replace(
        state, purses=purses, thrower=seat, silo=SILO_ANTE, turns_taken=turns, skipped=tuple(skipped), bets=()
    )
    return _before_throw(state)


def _before_throw(state: RatSnakeState) -> RatSnakeState:
    """Open the side-bet window if anyone can wager, else go straight to the throw."""
    if state.options.side_bets:
        # "Players not currently throwing can place side bets": any non-thrower with a coin.
        eligible = frozenset(
            seat for seat in range(state.seats) if seat != state.thrower and state.purses[seat] > 0
        )
        if eligible:
            return replace(state, phase=SIDE_BETS, window=eligible, waiting=eligible, bets=())
    return replace(state, phase=THROW, window=frozenset(), waiting=frozenset(), bets=())


def _answer_side_bets(state: RatSnakeState, seat: int, action: Action) -> RatSnakeState:
    if seat not in state.waiting:
        if seat in state.window:
            raise IllegalAction(f"seat {seat} has already answered this throw", code="bet/already_placed")
        raise IllegalAction(f"seat {seat} may not bet on this throw", code="turn/not_your_turn")
    purses = state.purses
    bets = state.bets
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
        purses = _with(purses, seat, -stake)
        bets = bets + (SideBet(seat=seat, prediction=prediction, stake=stake),)
    waiting = state.waiting - {seat}
    state = replace(state, purses=purses, bets=bets, waiting=waiting)
    if not waiting:
        return replace(state, phase=THROW, window=frozenset())
    return state


def _double_down(state: RatSnakeState, seat: int, call: Any) -> RatSnakeState:
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
    doubled = replace(bet, stake=bet.stake + extra, call=call)
    bets = tuple(doubled if other.seat == seat else other for other in state.bets)
    waiting = state.waiting - {seat}
    state = replace(state, purses=_with(state.purses, seat, -extra), bets=bets, waiting=waiting)
    if not waiting:
        return replace(state, phase=CHECK_THE_SILO, window=frozenset())
    return state


def _throw(state: RatSnakeState, dice: tuple[int, int]) -> RatSnakeState:
    """Step Three: "The roll determines the fate of the thrower."""
    result = classify(dice)
    # `settled` shows the bets decided by this throw and its check, so the last throw's list goes.
    record = ThrowRecord(thrower=state.thrower, dice=dice, result=result)
    state = replace(state, last_throw=record, settled=())
    state = _settle_first_throw_bets(state, result)
    if result == RATS_EYES:
        # "the thrower loses his entire silo of coins and play passes to his right."
        return _end_turn(_thrower_loses(state, state.silo))
    if result == TWIST:
        # "the thrower wins a number of coins equal to the current stakes in his silo" (card: 1:1).
        return _may_continue(_thrower_wins(state, state.silo))
    if result == SNAKE_AND_PIPS:
        return _may_continue(_thrower_wins(state, pips(dice)))
    if result == RAT_AND_PIPS:
        # The text lets him "continue to play, or bow out"; the card says "must continue play if
        # possible". The option `rat_and_pips` picks one.
        forced = state.options.rat_and_pips == MUST_CONTINUE
        return _may_continue(_thrower_loses(state, pips(dice)), forced=forced)
    if result == PIPS_ON_BOTH:
        # "the thrower must immediately roll again": no side-bet window before the check.
        callers = frozenset(bet.seat for bet in state.bets if bet.prediction == CHECK_THE_SILO_BET)
        if callers:
            return replace(state, phase=DOUBLE_DOWN, window=callers, waiting=callers)
        return replace(state, phase=CHECK_THE_SILO)
    # Snake and rat: "neither gains nor loses any coins and may continue to play or bow out."
    return _may_continue(state)


def _check_the_silo(state: RatSnakeState, dice: tuple[int, int]) -> RatSnakeState:
    record = state.last_throw
    assert record is not None and record.first_total is not None
    first_total = record.first_total
    call = check_call(first_total, check_total(dice))
    state = replace(state, last_throw=replace(record, check=dice, check_result=call))
    state = _settle_check_bets(state, call)
    if call == GAIN:
        # "he wins a number of coins equal to the result of the initial throw."
        return _may_continue(_thrower_wins(state, first_total))
    if call == LOSE:
        # "loses a number of coins equal to the first throw (not to exceed his silo)."
        return _may_continue(_thrower_loses(state, first_total))
    return _may_continue(state)


def _may_continue(state: RatSnakeState, *, forced: bool = False) -> RatSnakeState:
    """After a settled throw: ask the thrower only when he really has a choice."""
    if state.silo == 0:
        # "If this reduces his silo of coins to zero, he is out and play passes to his right."
        return _end_turn(state)
    if not _can_meet_ante(state):
        # Step Four: play continues "until he is unable to meet the ante of six coins": he bows out
        # with his remaining stakes.
        return _end_turn(state)
    if forced:
        return _continue(state)
    return replace(state, phase=CONTINUE_OR_BOW_OUT)


def _continue(state: RatSnakeState) -> RatSnakeState:
    # "increase his ante back up to six coins" (and after a lost check "increasing his stakes back to
    # six if the loss reduced his silo to less than that amount"): a silo above six rides as it is.
    top_up = max(0, SILO_ANTE - state.silo)
    state = replace(state, purses=_with(state.purses, state.thrower, -top_up), silo=state.silo + top_up)
    return _before_throw(state)


def _end_turn(state: RatSnakeState) -> RatSnakeState:
    """The dice pass to the right; the thrower takes what is left in his silo back to his purse."""
    state = replace(
        state,
        purses=_with(state.purses, state.thrower, state.silo),
        silo=0,
        bets=(),
        window=frozenset(),
        waiting=frozenset(),
        turns_taken=state.turns_taken + 1,
    )
    return _start_turn(state)


def _end_session(state: RatSnakeState) -> RatSnakeState:
    return replace(
        state, phase=OVER, silo=0, bets=(), window=frozenset(), waiting=frozenset(), end_reason=SESSION_OVER
    )


# --- money -----------------------------------------------------------------------------------------


def _thrower_wins(state: RatSnakeState, amount: int) -> RatSnakeState:
    """Winnings go into the silo, paid by the house or, without one, by the other players."""
    if state.options.house:
        return replace(state, silo=state.silo + amount, house_net=state.house_net - amount)
    payers = money.ring_from_right(state.thrower, state.seats)
    purses, paid = money.collect(state.purses, amount, payers)
    # A player who cannot cover his share pays what he has; the thrower gains only what was paid.
    return replace(state, purses=purses, silo=state.silo + paid)


def _thrower_loses(state: RatSnakeState, amount: int) -> RatSnakeState:
    """Losses leave the silo, never more than it holds, to the house or the other players."""
    lost = min(amount, state.silo)
    if state.options.house:
        return replace(state, silo=state.silo - lost, house_net=state.house_net + lost)
    receivers = money.ring_from_right(state.thrower, state.seats)
    return replace(state, purses=money.pay_out(state.purses, lost, receivers), silo=state.silo - lost)


def _settle_first_throw_bets(state: RatSnakeState, result: str) -> RatSnakeState:
    if not state.bets:
        return state
    if result == PIPS_ON_BOTH and any(bet.prediction == CHECK_THE_SILO_BET for bet in state.bets):
        if state.options.house:
            # Check bets "pay nothing" yet and ride into the double-down; the rest lost to the house.
            riding = tuple(bet for bet in state.bets if bet.prediction == CHECK_THE_SILO_BET)
            losing = tuple(bet for bet in state.bets if bet.prediction != CHECK_THE_SILO_BET)
            state = _settle_with_house(state, losing, lambda bet: False, SIDE_BET_ODDS)
            return replace(state, bets=riding)
        # Without a house the pot is shared only once the check has named the winners.
        return state
    winning = PREDICTION_OF_RESULT[result]
    if state.options.house:
        state = _settle_with_house(state, state.bets, lambda bet: bet.prediction == winning, SIDE_BET_ODDS)
    else:
        state = _settle_without_house(state, lambda bet: bet.prediction == winning)
    return replace(state, bets=())


def _settle_check_bets(state: RatSnakeState, call: str) -> RatSnakeState:
    if not state.bets:
        return state

    def right(bet: SideBet) -> bool:
        return bet.prediction == CHECK_THE_SILO_BET and bet.call == call

    if state.options.house:
        odds = {CHECK_THE_SILO_BET: DOUBLE_DOWN_ODDS[call]}
        state = _settle_with_house(state, state.bets, right, odds)
    else:
        state = _settle_without_house(state, right)
    return replace(state, bets=())


def _settle_with_house(state: RatSnakeState, bets, won, odds: Mapping[str, int]) -> RatSnakeState:
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
    return replace(state, purses=purses, house_net=house_net, settled=state.settled + tuple(settled))


def _settle_without_house(state: RatSnakeState, won) -> RatSnakeState:
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
        return replace(state, purses=purses, settled=state.settled + tuple(settled))
    pot = sum(bet.stake for bet in state.bets if not won(bet))
    order = money.ring_from_right(state.thrower, state.seats)
    winner_seats = tuple(seat for seat in order if any(bet.seat == seat for bet in winners))
    shares = money.split_equally(pot, winner_seats)
    for bet in state.bets:
        if won(bet):
            returned = bet.stake + shares[bet.seat]
            purses = _with(purses, bet.seat, returned)
            settled.append(_settled(bet, WON, returned))
        else:
            settled.append(_settled(bet, LOST, 0))
    return replace(state, purses=purses, settled=state.settled + tuple(settled))


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
    return min(state.options.max_side_bet, purse)


def _can_meet_ante(state: RatSnakeState) -> bool:
    return state.silo + state.purses[state.thrower] >= SILO_ANTE


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
    return tuple(purse + change if index == seat else purse for index, purse in enumerate(purses))


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
