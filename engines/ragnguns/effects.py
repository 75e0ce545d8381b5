"""Rag'n'Guns: Bullets on cards and the effect vocabulary at work (rules 0.3: BULLETS, GUNFIGHT,
EFFECTS, BACKUPS, TRAPS).

Two halves. The table: shooting a card ("it takes the BULLETS until it's discarded"), a volley as in a
GUNFIGHT ("SHELTER takes first", then the defender distributes), healing ("return the chip ... in the chip
pile"), discarding a placed card. The vocabulary: `options` says whether an Effect can be played now
and with which choices (a heal's target, a picked card and its Hideout slot); `execute` applies its
steps. Card data come from engines/ragnguns/cards.py; no card is named here.
"""

from __future__ import annotations

from itertools import product
from typing import Any

from engines.ragnguns.cards import CARDS, Info, Play
from engines.ragnguns.spec import LOSING_WOUNDS
from engines.ragnguns.state import RagnGunsState, Side

SLOTS = (0, 1)
NO_CHOICE: list[dict[str, Any]] = [{}]


# -- the table -----------------------------------------------------------------------------------------


def lose_if_dead(state: RagnGunsState, seat: int) -> None:
    """ "When your opponent take six BULLETS, you win." """
    if state.sides[seat].wounds >= LOSING_WOUNDS and state.phase != "over":
        state.phase = "over"
        state.winner = 1 - seat
        state.end_reason = "six_bullets"
        state.pending = ()


def discard_zone(state: RagnGunsState, side: Side, zone: str) -> None:
    """A placed card is discarded: face up to the discard zone, its wound chips back to the stack."""
    if zone == "alley":
        card, side.alley = side.alley, None
        state.bank += side.alley_wounds
        side.alley_wounds = 0
    else:
        card, side.shelter = side.shelter, None
        state.bank += side.shelter_wounds
        side.shelter_wounds = 0
    if card is not None:
        side.discard.append(card)
        if side.boost is not None and side.boost[0] == card:
            side.boost = None


def shoot_gunslinger(state: RagnGunsState, seat: int, n: int) -> None:
    if n <= 0:
        return
    state.bank -= n
    state.sides[seat].wounds += n
    lose_if_dead(state, seat)


def shoot_card(state: RagnGunsState, seat: int, zone: str, n: int) -> int:
    """`n` Bullets at the card in `zone` of `seat`; the card takes them "until it's discarded" and
    the rest are returned to the stack (nothing carries on past a card shot directly). A GUNSLINGER
    moved into the Alley is the card in the Alley. Returns the Bullets the card took."""
    side = state.sides[seat]
    if n <= 0:
        return 0
    if zone == "alley" and side.in_alley:
        shoot_gunslinger(state, seat, n)
        return n
    card = side.alley if zone == "alley" else side.shelter
    if card is None:
        return 0  # no card there: the Bullets are spent for nothing
    wounds = side.alley_wounds if zone == "alley" else side.shelter_wounds
    taken = min(n, CARDS[card].durability - wounds)
    state.bank -= taken
    if zone == "alley":
        side.alley_wounds += taken
    else:
        side.shelter_wounds += taken
    if wounds + taken >= CARDS[card].durability:
        discard_zone(state, side, zone)
    return taken


def alley_room(side: Side) -> int:
    """How many Bullets the defender's Alley card can take before it is discarded (0: none there)."""
    if side.alley is None or side.in_alley:
        return 0
    return CARDS[side.alley].durability - side.alley_wounds


def volley(state: RagnGunsState, defender: int, n: int, resume: str) -> None:
    """GUNFIGHT: "1. You shoot your BULLETS; 2. SHELTER takes first; 3. The opponent distributes the
    remaining BULLETS between his ALLEY and his GUNSLINGER." The share is the defender's decision
    (phase "distribute") unless only one share is possible."""
    side = state.sides[defender]
    rest = n - shoot_card(state, defender, "shelter", n) if side.shelter is not None else n
    if rest <= 0 or state.phase == "over":
        return
    if alley_room(side) == 0:
        shoot_gunslinger(state, defender, rest)
        return
    state.pending = (defender, rest, resume)
    state.phase = "distribute"


def distribute_choices(state: RagnGunsState) -> range:
    defender, rest, _ = state.pending
    return range(min(rest, alley_room(state.sides[defender])) + 1)


def apply_distribution(state: RagnGunsState, to_alley: int) -> None:
    defender, rest, resume = state.pending
    state.pending = ()
    state.phase = resume
    shoot_card(state, defender, "alley", to_alley)
    shoot_gunslinger(state, defender, rest - to_alley)


def heal(state: RagnGunsState, side: Side, target: str, n: int | str) -> None:
    """Remove chips (n, or "all") from one card; they go back to the chip stack."""
    if target == "alley" and side.in_alley:
        target = "gunslinger"
    have = (
        side.wounds
        if target == "gunslinger"
        else side.alley_wounds
        if target == "alley"
        else side.shelter_wounds
    )
    healed = have if n == "all" else min(int(n), have)
    state.bank += healed
    if target == "gunslinger":
        side.wounds -= healed
    elif target == "alley":
        side.alley_wounds -= healed
    else:
        side.shelter_wounds -= healed


def hide_on_top(side: Side, card: str, slot: int) -> None:
    side.hideout[slot].append(card)
    if CARDS[card].type == "TRAP":  # "TRAPS are the only cards that are hidden face-down"
        side.face_down = side.face_down | {card}


def draw(side: Side, n: int) -> None:
    take = side.deck[:n]
    del side.deck[:n]
    side.hand.extend(take)


# -- cards in play ---------------------------------------------------------------------------------------


def in_play(side: Side) -> list[str]:
    """Face-up cards in the game zones: "in play, i.e. face up in one of the game zones (except the
    discard zone)"; the Hideout's lower cards are in play too ("hidden cards are in play")."""
    cards = [card for card in (side.alley, side.shelter) if card is not None]
    for slot in side.hideout:
        cards.extend(card for card in slot if card not in side.face_down)
    return cards


def lasting(side: Side, verb: str) -> list[tuple[str, Any]]:
    """The ◊ steps named `verb` active on this side: (card, step) for each card sitting in the zone
    its ◊ Effect indicates. A card moved between zones "activate[s] a ◊ EFFECT" in its new zone."""
    found = []
    if side.alley is not None:
        for where, step in CARDS[side.alley].lasting:
            if where == "alley" and step.op == verb:
                found.append((side.alley, step))
    if side.shelter is not None:
        for where, step in CARDS[side.shelter].lasting:
            if where == "shelter" and step.op == verb:
                found.append((side.shelter, step))
    return found


def alley_info(side: Side) -> Info | None:
    if side.in_alley:
        return CARDS[side.gunslinger]
    return CARDS[side.alley] if side.alley is not None else None


def firepower(side: Side, opponent: Side) -> int:
    """♠ of the Alley (or the ready GUNSLINGER there), with this turn's boost and ◊ bonuses, less the
    opponent's ◊ shields (minimum one). 0: no Alley card, no GUNFIGHT."""
    info = alley_info(side)
    if info is None:
        return 0
    power = info.firepower
    if side.boost is not None and side.boost[0] == (side.gunslinger if side.in_alley else side.alley):
        power += side.boost[1]
    if not side.in_alley:
        for _, step in lasting(side, "firepower"):
            per, word = step.per_keyword, step.if_hideout_keyword
            # Only what the opponent can see counts (the Alley, the Shelter, the top of each Hideout
            # slot, the GUNSLINGER): firepower is in both views, so a card below a Hideout slot must
            # not change it (our reading, docs/games/ragnguns.md E12).
            visible = [
                c for c in (side.shelter, *(slot[-1] for slot in side.hideout if slot)) if c is not None
            ]
            visible = [c for c in visible if c not in side.face_down]
            if per is not None:
                others = [c for c in visible if per in CARDS[c].keywords]
                if per in CARDS[side.gunslinger].keywords:
                    others.append(side.gunslinger)
                power += step.n * len(others)
            elif word is not None:
                if any(word in CARDS[c].keywords for c in visible if c != side.shelter):
                    power += step.n
            else:
                power += step.n
    shield = sum(step.n for _, step in lasting(opponent, "shield"))
    if shield:
        power = max(1, power - shield)
    return power


def is_ready(side: Side) -> bool:
    if side.ready:
        return True
    return any(side.turns >= step.turn for _, step in lasting(side, "ready_from_turn"))


def effect_cost(
    state: RagnGunsState, side: Side, card: str, play: Play, discounts: list[tuple[str, Any]] | None = None
) -> int:
    cost = play.cost_under(state.improvise_cost) if play.readings else play.cost
    if play.from_belt:
        return cost
    if discounts is None:
        discounts = lasting(side, "discount")
    if not discounts:
        return cost
    keywords = CARDS[card].keywords
    for source, step in discounts:
        if step.keyword in keywords and not (step.others and source == card):
            cost -= step.n
    return max(0, cost)


# -- the vocabulary: can it be played, with which choices ------------------------------------------------


def _heal_targets(side: Side, keyword: str | None, fresh_zone: str | None) -> list[str]:
    targets = []
    if side.wounds and (keyword is None or keyword in CARDS[side.gunslinger].keywords):
        targets.append("gunslinger")
    for zone, card, wounds in (
        ("alley", side.alley, side.alley_wounds),
        ("shelter", side.shelter, side.shelter_wounds),
    ):
        if (
            card is not None
            and wounds
            and zone != fresh_zone
            and (keyword is None or keyword in CARDS[card].keywords)
        ):
            targets.append(zone)
    return targets


def options(
    state: RagnGunsState,
    actor: int,
    play: Play,
    *,
    extra_discard: str | None = None,
    fresh_zone: str | None = None,
) -> list[dict[str, Any]] | None:
    """The choices this Effect can be played with now (a list of parameter dicts; [{}] when it needs
    none), or None when it cannot be played: a condition unmet, nothing to heal or pick."""
    if play.simple:
        return NO_CHOICE
    side = state.sides[actor]
    opponent = state.sides[1 - actor]
    choices: list[list[dict[str, Any]]] = []
    for step in play.steps:
        op = step.op
        if op == "require":
            zones = step.zones
            cards = []
            if "alley" in zones:
                info = alley_info(side)
                if info is not None:
                    cards.append(info)
            if "shelter" in zones and side.shelter is not None:
                cards.append(CARDS[side.shelter])
            keyword = step.keyword
            if not any(keyword is None or keyword in info.keywords for info in cards):
                return None
        elif op == "heal" and step.on == "any":
            targets = _heal_targets(side, step.keyword, fresh_zone)
            if not targets:
                return None
            choices.append([{"target": target} for target in targets])
        elif op == "pick":
            wanted = step.keywords
            pool = side.discard if extra_discard is None else [*side.discard, extra_discard]
            found = sorted({card for card in pool if CARDS[card].keywords.intersection(wanted)})
            if not found:
                return None
            choices.append([{"pick": card, "slot": slot} for card in found for slot in SLOTS])
        elif op == "hide_top":
            if not side.deck:
                return None
            choices.append([{"slot": slot} for slot in SLOTS])
        elif op == "swap":
            whose = side if step.whose == "own" else opponent
            if whose.in_alley or (whose.alley is None and whose.shelter is None):
                return None
        elif op == "boost":
            info = alley_info(side)
            if info is None or (step.type is not None and info.type != step.type):
                return None
        elif op == "move_wound" and (not side.shelter_wounds or alley_info(opponent) is None):
            return None
    if not choices:
        return NO_CHOICE
    if len(choices) == 1:
        return choices[0]
    return [{k: v for part in combo for k, v in part.items()} for combo in product(*choices)]


# -- the vocabulary: doing it ------------------------------------------------------------------------------


def execute(
    state: RagnGunsState,
    actor: int,
    source: str,
    play: Play,
    params: dict[str, Any],
    *,
    trap_bullets: int = 0,
    resume: str = "main",
) -> bool:
    """Apply the Effect's steps (checked beforehand by `options`). Returns False when a step sent the
    card itself somewhere (a TRAP back to the Hideout), so the caller must not discard it."""
    side = state.sides[actor]
    target_seat = 1 - actor
    opponent = state.sides[target_seat]
    keep_card = False
    for step in play.steps:
        if state.phase == "over":
            break
        op = step.op
        if op == "shoot":
            n = step.n
            if n == "trap_bullets":
                n = trap_bullets
            elif n == "per_keyword":
                word = step.keyword
                n = sum(1 for card in in_play(side) if word in CARDS[card].keywords)
            at = step.at
            if at == "volley":
                volley(state, target_seat, n, resume)
            elif at == "gunslinger":
                shoot_gunslinger(state, target_seat, n)
            else:
                shoot_card(state, target_seat, "alley" if at == "alley_card" else "shelter", n)
        elif op == "heal":
            on, n = step.on, step.n
            if on == "any":
                heal(state, side, params["target"], n)
            elif on == "each":
                for target in (
                    ("gunslinger", "shelter") if side.in_alley else ("gunslinger", "alley", "shelter")
                ):
                    heal(state, side, target, n)
            elif on == "opponent_gunslinger":
                heal(state, opponent, "gunslinger", n)
            else:
                heal(
                    state,
                    side,
                    {"gunslinger": "gunslinger", "alley_card": "alley", "shelter_card": "shelter"}[on],
                    n,
                )
        elif op == "pick":
            side.discard.remove(params["pick"])
            hide_on_top(side, params["pick"], params["slot"])
        elif op == "hide_top":
            card = side.deck.pop(0)
            hide_on_top(side, card, params["slot"])
        elif op == "discard":
            at = step.at
            if at == "hideout_tops":
                for slot in opponent.hideout:
                    if slot:
                        card = slot.pop()
                        opponent.face_down = opponent.face_down - {card}
                        opponent.discard.append(card)
            elif at == "alley_card":
                if opponent.alley is not None and (not step.if_wounded or opponent.alley_wounds):
                    discard_zone(state, opponent, "alley")
            elif opponent.shelter is not None:
                discard_zone(state, opponent, "shelter")
        elif op == "discard_from_hand":
            # the victim of a TRAP chooses, on their own turn (phase "discard_from_hand")
            if state.sides[target_seat].hand:
                state.phase = "discard_from_hand"
        elif op == "draw":
            draw(side, step.n)
        elif op == "swap":
            whose = side if step.whose == "own" else opponent
            whose.alley, whose.shelter = whose.shelter, whose.alley
            whose.alley_wounds, whose.shelter_wounds = whose.shelter_wounds, whose.alley_wounds
        elif op == "extra_gunfight":
            side.gunfights += 1
        elif op == "boost":
            card = side.gunslinger if side.in_alley else side.alley
            gained = step.n + (side.boost[1] if side.boost is not None and side.boost[0] == card else 0)
            side.boost = (card, gained)
        elif op == "move_wound":
            side.shelter_wounds -= 1
            state.bank += 1
            shoot_card(state, target_seat, "alley", 1)
        elif op == "return_to_hideout":
            slot = 0 if len(side.hideout[0]) <= len(side.hideout[1]) else 1
            side.hideout[slot].append(source)
            side.face_down = side.face_down | {source}
            keep_card = True
    return not keep_card
