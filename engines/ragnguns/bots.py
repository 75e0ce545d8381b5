"""Rag'n'Guns: the heuristic bot (rules 0.3, GAMEPLAY and GUNFIGHT).

It plays from its own view and legal actions only, like any client: bring the first legal pre-built
deck, fill the Alley then the Shelter with the strongest card it can pay for, play Effects that
shoot or heal, shoot with everything in a GUNFIGHT, move a ready GUNSLINGER out when the Alley is
empty, defuse a TRAP only when it is cheap, keep the Alley card when distributing only if the
GUNSLINGER is safe, and otherwise end the turn.
"""

from __future__ import annotations

import random
from typing import Any

from engines.protocol import Action, Bot, Turn
from engines.ragnguns.cards import CARDS


class HeuristicBot(Bot):
    name = "heuristic"

    def act(self, turn: Turn, rng: random.Random) -> Action:
        actions = turn.legal_actions
        prompt = turn.decision.prompt
        if len(actions) == 1 or prompt in ("bring_deck",):
            return actions[0]
        view = turn.view
        me = view["seats"][turn.seat]
        if prompt == "defuse":
            cheap = [a for a in actions if a["type"] == "follow"]
            return cheap[0] if cheap and me["bullets"] >= 4 else actions[-1]
        if prompt == "distribute":
            # keep the GUNSLINGER safe first: the Alley takes as much as it can
            return max(actions, key=lambda a: a["alley"])
        if prompt == "choose_trap" or prompt == "discard_from_hand":
            return actions[0]
        if prompt == "hide":
            return actions[0]
        return self._main(actions, me, rng)

    def _main(self, actions: list[Action], me: dict[str, Any], rng: random.Random) -> Action:
        by_type: dict[str, list[Action]] = {}
        for action in actions:
            by_type.setdefault(action["type"], []).append(action)
        alley, shelter = me["alley"], me["shelter"]
        # shoot first: the biggest GUNFIGHT
        if "gunfight" in by_type:
            return max(by_type["gunfight"], key=lambda a: a["bullets"])

        def power(action: Action) -> int:
            info = CARDS[action["card"]]
            return info.firepower if action["zone"] == "alley" else info.durability

        places = by_type.get("place", [])
        if alley is None and not me["gunslinger_in_alley"]:
            fill = [a for a in places if a["zone"] == "alley"]
            if fill:
                return max(fill, key=power)
            if "ready" in by_type:
                return by_type["ready"][0]
        if shelter is None:
            fill = [a for a in places if a["zone"] == "shelter"]
            if fill:
                return max(fill, key=power)
        plays = by_type.get("play", [])
        useful = []
        for action in plays:
            info = CARDS[action["card"]]
            play = next(p for p in info.plays if p.index == action["effect"])
            ops = tuple(step.op for step in play.steps)
            if "shoot" in ops or "heal" in ops or "boost" in ops or "extra_gunfight" in ops or "pick" in ops:
                useful.append(action)
        if useful:
            return useful[0]
        if alley is not None and not me["gunslinger_in_alley"]:
            better = [
                a
                for a in places
                if a["zone"] == "alley" and CARDS[a["card"]].firepower > CARDS[alley["card"]].firepower
            ]
            if better:
                return max(better, key=power)
        if me["bullets"] >= 2 and "trap" in by_type:
            return by_type["trap"][min(1, len(by_type["trap"]) - 1)]
        return by_type["end_turn"][0]
