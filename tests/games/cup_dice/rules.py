"""Cup Dice: the rules (the package's docstring states them)."""

from __future__ import annotations

from engines.bots import RandomBot
from engines.chance import ChanceRequest
from engines.errors import IllegalAction
from engines.protocol import Action, Bot, Decision, Event, Game, Outcome, View
from tests.games.cup_dice.spec import ROUNDS, SPEC
from tests.games.cup_dice.state import FOLD, CupDiceState
from tests.games.cup_dice.view import cup_dice_view

ROLL, STAKE = "roll", "stake"  # the two moments of a round, and the prompts of their decisions
CHIPS = (1, 2, 3)
ACTION_FIELDS = {"fold": frozenset({"type"}), "stake": frozenset({"type", "chips"})}
_ANSWERS = ({"type": "fold"}, *({"type": "stake", "chips": chips} for chips in CHIPS))
_ROLL = ChanceRequest.dice("the die under a cup", count=1)
_BOTS: dict[str, Bot] = {"random": RandomBot()}


class CupDice(Game[CupDiceState]):
    spec = SPEC

    def initial_state(self, *, seats: int, options: dict) -> CupDiceState:
        return CupDiceState(rounds=options[ROUNDS], chips=(0,) * seats, stakes=(None,) * seats)

    def decide(self, state: CupDiceState) -> Decision:
        if state.over:
            return Decision.over()
        if len(state.dice) < state.seats:
            return Decision.chance(ROLL)
        return Decision.simultaneous(
            {seat for seat, stake in enumerate(state.stakes) if stake is None}, STAKE
        )

    def legal_actions(self, state: CupDiceState, seat: int) -> list[Action]:
        if seat not in self.decision(state).seats:
            return []
        return [dict(answer) for answer in _ANSWERS]  # copies: a caller may keep or change its list

    def chance_request(self, state: CupDiceState) -> ChanceRequest:
        if self.decision(state).kind != "chance":
            raise IllegalAction("no die is to be rolled now", code="chance/not_expected")
        return _ROLL

    def view(self, state: CupDiceState, seat: int | None) -> View:
        return cup_dice_view(state, seat)

    def outcome(self, state: CupDiceState) -> Outcome | None:
        if state.forfeited is not None:
            return Outcome.from_scores(state.chips, "forfeit", last=frozenset({state.forfeited}))
        if state.round > state.rounds:
            return Outcome.from_scores(state.chips, "rounds_played")
        return None

    def event_audience(self, state_before: CupDiceState, event: Event) -> frozenset[int] | None:
        if event.kind == "chance":  # the die is rolled under the cup of the next seat without one
            return frozenset({len(state_before.dice)})
        if event.kind == "action":  # a stake is face down until the cups are lifted
            return frozenset({event.seat})
        return None

    def apply_action(self, state: CupDiceState, seat: int, action: Action) -> None:
        kind = action["type"]
        if kind not in ACTION_FIELDS:
            raise IllegalAction(f"Cup Dice has no action {kind!r}", code="action/unknown")
        if set(action) != ACTION_FIELDS[kind]:
            expected = ", ".join(sorted(ACTION_FIELDS[kind]))
            raise IllegalAction(f"a {kind} action has exactly the fields {expected}", code="action/malformed")
        chips = FOLD if kind == "fold" else action["chips"]
        if kind == "stake" and (type(chips) is not int or chips not in CHIPS):
            raise IllegalAction(f"a stake is {CHIPS[0]} to {CHIPS[-1]} chips", code="stake/out_of_range")
        stakes = (*state.stakes[:seat], chips, *state.stakes[seat + 1 :])
        if None in stakes:
            state.stakes = stakes
        else:
            _lift_the_cups(state, stakes)

    def apply_chance(self, state: CupDiceState, outcome: dict) -> None:
        state.dice = (*state.dice, outcome["dice"][0])

    def apply_forfeit(self, state: CupDiceState, seat: int, reason: str) -> None:
        state.forfeited = seat

    def seat_count(self, state: CupDiceState) -> int:
        return state.seats

    def bots(self) -> dict[str, Bot]:
        return _BOTS


def _lift_the_cups(state: CupDiceState, stakes: tuple[int, ...]) -> None:
    """Of the players who staked, the highest dice win their stakes and the others lose theirs."""
    staked = [seat for seat, stake in enumerate(stakes) if stake != FOLD]
    best = max((state.dice[seat] for seat in staked), default=0)
    chips = list(state.chips)
    for seat in staked:
        chips[seat] += stakes[seat] if state.dice[seat] == best else -stakes[seat]
    state.chips = tuple(chips)
    state.lifted = tuple(zip(state.dice, stakes))
    state.dice, state.stakes, state.round = (), (None,) * state.seats, state.round + 1
