"""The Greatest Snake: the heuristic bot (rulebook "Order of a Turn", "Card Resolution Order").

It plays from its view and legal actions only, like any client of the API. Its plan: always eat
(the Pit-y Rule's rat included), equip what it draws, squeeze opponents' rats that are close to
being digested, steal equipment, and in a response window stop an opponent's meal (Fake Rat, Super
Glue or Lullaby on that snake), dodge what is aimed at it, and squeeze a rat about to be digested
when an opponent declares "Digest!". It never declines a rat and never discards its own equipment.
"""

from __future__ import annotations

import random

from engines.greatestsnake.catalogue import CARDS
from engines.protocol import Action, Bot, Turn

BLOCKERS = ("feed", "glue", "sleep")  # what stops a snake from eating, in the order it spends them


def _effect(action: Action) -> str:
    card = action.get("card", action.get("equipment"))
    return CARDS[card].effect if isinstance(card, int) else ""


class HeuristicBot(Bot):
    name = "heuristic"

    def act(self, turn: Turn, rng: random.Random) -> Action:
        legal = turn.legal_actions
        prompt = turn.decision.prompt
        if prompt == "draw":
            return {"type": "draw_from_pit"}
        if prompt == "rat":
            return {"type": "eat"}
        if prompt == "main":
            return self._main(turn, legal)
        if prompt == "respond":
            return self._respond(turn, legal)
        return legal[0]

    # --- my turn ------------------------------------------------------------------------------------
    def _main(self, turn: Turn, legal: list[Action]) -> Action:
        by_type: dict[str, list[Action]] = {}
        for action in legal:
            by_type.setdefault(action["type"], []).append(action)
        if "discard" in by_type:
            # Over the hand limit: let go of the least useful card, keeping Dodge and blockers.
            order = {"swap": 0, "steal": 1, "squeeze": 2, "sleep": 3, "glue": 4, "feed": 5, "dodge": 6}
            return min(by_type["discard"], key=lambda action: order.get(CARDS[action["card"]].effect, -1))
        if "equip" in by_type:
            return by_type["equip"][0]
        if "steal" in {_effect(action) for action in by_type.get("play", ())}:
            return next(action for action in by_type["play"] if _effect(action) == "steal")
        view = turn.view
        squeeze = self._best_squeeze(view, turn.seat, by_type.get("use", []) + by_type.get("play", []))
        if squeeze is not None and (squeeze["type"] == "use" or len(view["hand"]) > 2):
            return squeeze
        return by_type.get("digest", legal)[0]

    # --- someone else's action ------------------------------------------------------------------------
    def _respond(self, turn: Turn, legal: list[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        view = turn.view
        seat = turn.seat
        stack = view["stack"]
        top = stack[-1]
        if top["author"] != seat and top["what"] == "eat":
            for effect in BLOCKERS:
                for action in legal:
                    if (
                        action["type"] == "play"
                        and action.get("snake") == top["author"]
                        and _effect(action) == effect
                    ):
                        return action
        if top["snake"] == seat and top["author"] != seat:
            my_meal = stack[0]["what"] == "eat" and stack[0]["author"] == seat
            for action in legal:
                if action.get("entry") == len(stack) - 1 and (action["type"] == "play" or not my_meal):
                    return action
        if top["what"] == "digest" and top["author"] != seat:
            squeeze = self._best_squeeze(view, seat, legal, near_tail_only=True)
            if squeeze is not None:
                return squeeze
        return {"type": "pass"}

    @staticmethod
    def _best_squeeze(
        view: dict, seat: int, actions: list[Action], near_tail_only: bool = False
    ) -> Action | None:
        """A squeeze of the opponent's rat closest to being digested, longest snake first."""
        value: dict[int, tuple[int, int]] = {}
        for snake in view["snakes"]:
            if snake["seat"] == seat:
                continue
            spaces = [snake["head"]["rat"], *(part["rat"] for part in snake["body"]), snake["tail"]["rat"]]
            for position, rat in enumerate(spaces):
                if rat is not None:
                    from_tail = len(spaces) - 1 - position
                    if near_tail_only and from_tail > 0:
                        continue
                    value[rat["id"]] = (snake["length"], -from_tail)
        best = None
        for action in actions:
            rat = action.get("rat")
            if rat in value and (best is None or value[rat] > value[best["rat"]]):
                best = action
        return best
