"""Rattlebones: the heuristic bot (rulebook ON YOUR TURN, Board Spaces, Take an Action).

It reads its view and legal actions only, like any client of the API, and scores each legal action
by a fixed worth of the die sides it gains and loses: points sides by their value, stars and trains
above gold, pips near nothing. It always rolls as many dice as its gold pays for, improves the die it
rolled at every landing (never "do nothing" when a better side is offered), sells all its stars at
the store, robs stars before stock before gold, and doubles the die that earned most.
"""

from __future__ import annotations

import random

from engines.protocol import Action, Bot, Turn

WORTH = {
    "rattlebones": 0.0,
    "2": 0.3,
    "3": 0.35,
    "4": 0.4,
    "5": 0.45,
    "6": 0.5,
    "gold": 1.2,
    "star": 2.4,
    "roll_again": 1.0,
    "train": 2.6,
    "9_pip": 0.8,
    "points_1": 1.0,
    "points_2": 2.0,
    "points_3": 3.0,
    "points_4": 4.0,
    "points_5": 5.0,
    "thief": 1.6,
    "1234": 2.2,
    "stock": 1.6,
    "x2": 1.3,
    "gamble": 2.6,
}
STEAL = {"star": 3.0, "stock": 2.0, "gold": 1.0, None: 0.0}
STAR_KEPT = 3.0  # a star in hand: a sale at the chart's worst rate, and a tie-breaker
CHART = (0, 3, 7, 11, 15)


def side_worth(side: str, sides: list[str]) -> float:
    if side.startswith("arrow_to_"):
        target = sides[int(side[len("arrow_to_") :])]
        return 0.0 if target.startswith("arrow_to_") else 0.9 * WORTH.get(target, 0.0)
    return WORTH.get(side, 0.0)


def sale(count: int) -> int:
    fours, rest = divmod(count, 4)
    return fours * CHART[4] + CHART[rest]


class HeuristicBot(Bot):
    name = "heuristic"

    def act(self, turn: Turn, rng: random.Random) -> Action:
        actions = turn.legal_actions
        if not actions:
            raise ValueError("a bot was asked to act with no legal action")
        if len(actions) == 1:
            return actions[0]
        view = turn.view
        me = view["players"][turn.seat]
        best, best_worth = [], float("-inf")
        for action in actions:
            worth = self.worth(action, view, me)
            if worth > best_worth + 1e-9:
                best, best_worth = [action], worth
            elif worth > best_worth - 1e-9:
                best.append(action)
        return rng.choice(best)

    def worth(self, action: Action, view: dict, me: dict) -> float:
        kind = action["type"]
        if kind == "roll":
            return len(action["dice"])  # more dice, more actions: gold is worth most when spent
        if kind == "double":
            used = next(entry for entry in view["turn"]["used"] if entry["die"] == action["die"])
            return used["earned"] * (3.0 if used["acted_as"] == "star" else 1.0)
        worth = 0.0
        if "steal" in action:
            worth += sum(STEAL[take] for take in action["steal"])
        if "sell" in action:
            worth += sale(action["sell"]) - STAR_KEPT * action["sell"]
        if action.get("replace_side") is not None:
            sides = me["dice"][action["die"]]
            new_sides = list(sides)
            new_sides[action["replace_side"]] = action["new_side"]
            worth += side_worth(action["new_side"], new_sides) - side_worth(
                sides[action["replace_side"]], sides
            )
        return worth
