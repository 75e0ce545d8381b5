"""Rattlesnake: the heuristic bot (rulebook "Buying a Card", "Attacking & Defending", "Card Abilities").

It plays from its view and its legal actions only, like any client of the API:
- buys when it can pay with cards it does not need (Hits first, then numbers outside its strongest
  combo), taking the most useful action card on offer;
- attacks every turn with every card that is not a saloon card: only the strongest combo counts and the
  hand is drawn up again at the start of the next turn, so the rest costs nothing and the Hits cycle
  out of the hand; defends the same way;
- after the reveal, uses an ability only when it turns a losing attack/defense into a winning one;
- uses *Patch Up* whenever it may (its own turn, before defending, after a reveal, at the end of the
  opponent's turn), and never *Scavenge*;
- answers an opponent's ability with *Take Cover* when that ability would hurt it.
"""

from __future__ import annotations

import random

from engines.protocol import Action, Bot, Turn
from engines.rattlesnake.catalogue import ABILITY, HIT, RANK, VALUE
from engines.rattlesnake.combos import attacker_wins, strongest

# The saloon cards it would rather own, best first.
WANTED = ("take-cover", "switch-up", "distract", "double-cross", "dead-eye", "disarm", "patch-up", "scavenge")


def _spare(hand: list[str], run_beats_set: bool) -> list[str]:
    """Cards it can give up without weakening its strongest combo, least useful first."""
    numbers = [card for card in hand if card in VALUE]
    combo = list(strongest([VALUE[c] for c in numbers], run_beats_set=run_beats_set).numbers)
    spare = [card for card in hand if card == HIT]
    for card in sorted(numbers, key=VALUE.__getitem__):
        if VALUE[card] in combo:
            combo.remove(VALUE[card])
        else:
            spare.append(card)
    return spare


def _effect(ability: str, yours: list, theirs: list, action: Action) -> tuple[list, list]:
    """What a combat ability would leave of both sides' numbers."""
    yours, theirs = list(yours), list(theirs)
    index = action.get("index")
    if ability == "set_value":
        yours[index] = action["value"]
    elif ability == "raise":
        yours[index] += 1
    elif ability == "lower":
        theirs[index] -= 1
    elif ability == "swap":
        yours[index], theirs[action["other"]] = theirs[action["other"]], yours[index]
    elif ability == "disarm":
        del theirs[index]
    return yours, theirs


def _winning(seat: int, attack: dict, attack_values: list, defense_values: list, rbs: bool) -> bool:
    won = attacker_wins(
        strongest(attack_values, run_beats_set=rbs),
        strongest(defense_values, run_beats_set=rbs),
        run_beats_set=rbs,
    )
    return won if seat == attack["attacker"] else not won


class HeuristicBot(Bot):
    name = "heuristic"

    def act(self, turn: Turn, rng: random.Random) -> Action:
        legal = turn.legal_actions
        prompt = turn.decision.prompt
        view = turn.view
        seat = turn.seat
        hand = view["players"][seat]["hand"]
        rbs = view["rules"]["run_beats_set"]
        if prompt == "main":
            return self._main(view, hand, legal, rbs)
        if prompt == "defend":
            patch_up = _patch_up(legal)
            if patch_up is not None:
                return patch_up
            cards = [card for card in hand if card not in ABILITY]
            action = {"type": "defend", "cards": cards}
            # Under Rattled a hand of saloon cards only must still play one: the largest defense.
            return action if action in legal else [a for a in legal if a["type"] == "defend"][-1]
        if prompt == "reveal":
            return self._reveal(view, seat, legal, rbs)
        if prompt == "turn_end":
            return _patch_up(legal) or {"type": "pass"}
        return self._respond(view, seat, legal, rbs)

    def _main(self, view: dict, hand: list[str], legal: list[Action], rbs: bool) -> Action:
        patch_up = _patch_up(legal)
        if patch_up is not None:
            return patch_up
        if not view["bought"]:
            cost = view["rules"]["buy_cost"]
            spare = _spare(hand, rbs)[:cost]
            if len(spare) == cost:
                offered = {action["card"] for action in legal if action["type"] == "buy"}
                for card in WANTED:
                    if card in offered:
                        action = {"type": "buy", "discard": sorted(spare, key=_rank), "card": card}
                        if action in legal:
                            return action
        if not view["attacked"]:
            cards = [card for card in hand if card not in ABILITY]
            if cards:
                action = {"type": "attack", "cards": cards}
                if action in legal:
                    return action
        return {"type": "end_turn"}

    def _reveal(self, view: dict, seat: int, legal: list[Action], rbs: bool) -> Action:
        attack = view["attack"]
        mine_attack = seat == attack["attacker"]
        yours = attack["attack_values"] if mine_attack else attack["defense_values"]
        theirs = attack["defense_values"] if mine_attack else attack["attack_values"]

        def wins(y: list, t: list) -> bool:
            a, d = (y, t) if mine_attack else (t, y)
            return _winning(seat, attack, a, d, rbs)

        if not wins(yours, theirs):
            for action in legal:
                ability = ABILITY.get(action.get("card", ""))
                combat = action["type"] == "use" and ability not in (None, "patch_up", "scavenge")
                if combat and wins(*_effect(ability, yours, theirs, action)):
                    return action
        return _patch_up(legal) or {"type": "pass"}

    def _respond(self, view: dict, seat: int, legal: list[Action], rbs: bool) -> Action:
        covers = [action for action in legal if action["type"] == "use"]
        if not covers:
            return {"type": "pass"}
        top = view["stack"][-1]
        ability = top["ability"]
        if ability == "patch_up" or ability == "cancel":
            return covers[0]
        attack = view["attack"]
        if attack is None or not attack["revealed"] or ability == "scavenge":
            return {"type": "pass"}
        owner_attacks = top["seat"] == attack["attacker"]
        a, d = attack["attack_values"], attack["defense_values"]
        if owner_attacks:
            a2, d2 = _effect(ability, a, d, top)
        else:
            d2, a2 = _effect(ability, d, a, top)
        if _winning(seat, attack, a, d, rbs) and not _winning(seat, attack, a2, d2, rbs):
            return covers[0]
        return {"type": "pass"}


def _patch_up(legal: list[Action]) -> Action | None:
    for action in legal:
        if action["type"] == "use" and action["card"] == "patch-up":
            return action
    return None


def _rank(card: str) -> int:
    return RANK[card]
