"""Rag'n'Guns: the duel (rules 0.3: SETUP, GAMEPLAY, GUNFIGHT, HIDEOUT, TRAPS, NO MORE CARDS?).

Moments (the decision's prompt): `bring_deck` (both seats at once, face down), chance for who starts
and for each deck's shuffle, then per turn `defuse` (one prompt per opposing TRAP), `main` (place,
discard, play, TRAP, GUNFIGHT, move the ready GUNSLINGER, end the turn), `choose_trap` (which TRAP
goes face down), `distribute` (the defender's share of a GUNFIGHT), `discard_from_hand` (a TRAP's
victim chooses) and `hide` (what is left in hand goes to the Hideout). Effects are interpreted by
engines/ragnguns/effects.py; every reading of an unclear rule is in docs/games/ragnguns.md.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from itertools import permutations
from typing import Any

from engines.bots import RandomBot
from engines.chance import ChanceRequest
from engines.errors import IllegalAction, InvalidOptions
from engines.protocol import Action, Bot, Decision, Event, Game, Outcome, View
from engines.ragnguns import effects as fx
from engines.ragnguns.cards import CARDS, Play
from engines.ragnguns.catalogue import (
    MAX_BAN_LIST_TEXT,
    CatalogueError,
    ban_list_from_data,
    load_catalogue,
    load_formats,
    load_prebuilt,
)
from engines.ragnguns.decks import check_deck
from engines.ragnguns.sentences import describe_event
from engines.ragnguns.spec import (
    CYLINDER_MAX,
    DRAW,
    FIRST_RANDOM,
    FIRST_SEAT_1,
    SPEC,
)
from engines.ragnguns.state import RagnGunsState, Side

_CATALOGUE = load_catalogue()
_FORMATS = load_formats(_CATALOGUE)
_PREBUILT = load_prebuilt(_CATALOGUE)
ZONES = ("alley", "shelter")

_FIRST_REQUEST = ChanceRequest.choice("first_player", size=2)
_PROMPTS = ("defuse", "discard_from_hand", "main", "choose_trap", "distribute", "hide")
_TURNS = {(seat, prompt): Decision.turn(seat, prompt) for seat in (0, 1) for prompt in _PROMPTS}
_CHANCE = {prompt: Decision.chance(prompt) for prompt in ("first_player", "shuffle")}
_OVER = Decision.over()
_ONE_CHOICE: list[dict[str, Any]] = fx.NO_CHOICE  # an Effect played with no choice to make
_SHUFFLE_REQUESTS: dict[int, ChanceRequest] = {}


def _prebuilt_actions(fmt: str) -> list[Action]:
    """One bring_deck per pre-built deck legal in the format, in prebuilt.json order."""
    actions = []
    for deck in _PREBUILT:
        check = check_deck(_CATALOGUE, _FORMATS[fmt], deck.gunslinger, list(deck.cards))
        if check.legal:
            actions.append({"type": "bring_deck", "gunslinger": check.gunslinger, "cards": list(check.cards)})
    return actions


_BRING: dict[str, list[Action]] = {key: _prebuilt_actions(key) for key in _FORMATS}


def format_under_ban_list(base: str, ban_list_json: str) -> str:
    """The rules key of format `base` under the ban list given as JSON (the `ban_list` option).

    The derived format is remembered under a key made of the base, the version and a digest of the
    list, so equal lists share one entry and a replay finds the same one."""
    if len(ban_list_json) > MAX_BAN_LIST_TEXT:
        raise InvalidOptions(
            f"a ban list is at most {MAX_BAN_LIST_TEXT} characters", code="options/out_of_range"
        )
    try:
        ban_list = ban_list_from_data(json.loads(ban_list_json), _CATALOGUE)
    except (ValueError, CatalogueError) as error:
        raise InvalidOptions(f"option 'ban_list': {error}", code="options/bad_ban_list") from None
    canonical = json.dumps(ban_list.to_dict(), sort_keys=True, separators=(",", ":"))
    key = f"{base}@{ban_list.version}#{hashlib.sha256(canonical.encode()).hexdigest()[:12]}"
    if key not in _FORMATS:
        _FORMATS[key] = _FORMATS[base].with_ban_list(ban_list)
        _BRING[key] = _prebuilt_actions(key)
    return key


@lru_cache(maxsize=256)
def _checked(
    fmt: str, gunslinger: str, cards: tuple[str, ...]
) -> tuple[tuple[str, ...], str, tuple[str, ...]]:
    """The deck checker's verdict (violation codes, canonical gunslinger and cards), remembered: the
    same few decks are brought again and again (ladders, bots)."""
    check = check_deck(_CATALOGUE, _FORMATS[fmt], gunslinger, list(cards))
    codes = tuple(sorted({violation.code for violation in check.violations}))
    return codes, check.gunslinger, tuple(check.cards)


def sample_draws(cards: Iterable[str], permutation: list[int], *, turns: int) -> list[list[str]]:
    """The cards a deck's owner draws on each of their first `turns` turns, for a deck shuffled by
    `permutation` exactly as `apply_chance` shuffles it (the canonical sorted ids, permuted): GAMEPLAY
    "DRAW 3" each turn, fewer once the deck runs low, none once it is empty. Card effects that draw
    more are left out: this is what a deck builder tries before a match, not a match."""
    canonical = sorted(cards)
    deck = [canonical[index] for index in permutation]
    return [
        deck[turn * DRAW : (turn + 1) * DRAW]
        for turn in range(turns)
        if deck[turn * DRAW : (turn + 1) * DRAW]
    ]


def _locate(side: Side, card: Any) -> str | None:
    """Where a card the player may use is: hand, the top of a Hideout slot, alley or shelter."""
    if type(card) is not str:
        return None
    if card in side.hand:
        return "hand"
    for index, slot in enumerate(side.hideout):
        if slot and slot[-1] == card:
            return f"hideout{index}"
    if card == side.alley:
        return "alley"
    if card == side.shelter:
        return "shelter"
    return None


def _remove(state: RagnGunsState, side: Side, card: str, where: str) -> None:
    """Take a card out of its place (not the discard): hand, a Hideout slot top, or a zone."""
    if where == "hand":
        side.hand.remove(card)
    elif where.startswith("hideout"):
        side.hideout[int(where[-1])].pop()
        if card in side.face_down:
            side.face_down = side.face_down - {card}
    elif where == "alley":
        side.alley = None
        state.bank += side.alley_wounds
        side.alley_wounds = 0
    else:
        side.shelter = None
        state.bank += side.shelter_wounds
        side.shelter_wounds = 0


def _take_out(state: RagnGunsState, side: Side, card: str) -> None:
    """Take a played card out of wherever its Effect left it (it may be under a card just hidden)."""
    if card in side.hand:
        side.hand.remove(card)
    elif card == side.alley:
        _remove(state, side, card, "alley")
    elif card == side.shelter:
        _remove(state, side, card, "shelter")
    else:
        for slot in side.hideout:
            if card in slot:
                slot.remove(card)
                side.face_down = side.face_down - {card}


def _hide_arrangements(hand: list[str]) -> list[list[list[str]]]:
    """Every way to hide a hand: "you choose the order and the slot of the cards you hide". Each slot
    lists its new cards bottom to top."""
    found = []
    for order in permutations(sorted(hand)):
        for cut in range(len(order) + 1):
            found.append([list(order[:cut]), list(order[cut:])])
    return found


class RagnGuns(Game[RagnGunsState]):
    spec = SPEC

    # --- setting up -------------------------------------------------------------------------------------
    def initial_state(self, *, seats: int, options: dict[str, Any]) -> RagnGunsState:
        rules_key = options["format"]
        if options.get("ban_list"):
            rules_key = format_under_ban_list(rules_key, options["ban_list"])
        return RagnGunsState(
            format=rules_key,
            first_option=options["first_player"],
            improvise_cost=options["improvise_cost"],
            turn_limit=options["turn_limit"],
        )

    def seat_count(self, state: RagnGunsState) -> int:
        return 2

    # --- asking -----------------------------------------------------------------------------------------
    def decide(self, state: RagnGunsState) -> Decision:
        phase = state.phase
        if phase == "over":
            return _OVER
        if phase == "bring_deck":
            return Decision.simultaneous({seat for seat in (0, 1) if state.decks[seat] is None}, "bring_deck")
        if phase in ("first_player", "shuffle"):
            return _CHANCE[phase]
        seat = state.pending[0] if phase == "distribute" else state.current
        return _TURNS[seat, phase]

    def chance_request(self, state: RagnGunsState) -> ChanceRequest:
        if state.phase == "first_player":
            return _FIRST_REQUEST
        if state.phase == "shuffle":
            size = len(state.decks[state.shuffled] or ())
            request = _SHUFFLE_REQUESTS.get(size)
            if request is None:
                request = _SHUFFLE_REQUESTS[size] = ChanceRequest.shuffle("deck", size=size)
            return request
        raise IllegalAction("no chance outcome is expected now", code="chance/not_expected")

    def legal_actions(self, state: RagnGunsState, seat: int) -> list[Action]:
        decision = state.decision_cache or self.decision(state)
        if seat not in decision.seats:
            return []
        phase = state.phase
        if phase == "main":
            return self._main_actions(state, seat)
        if phase == "bring_deck":
            return [dict(action, cards=list(action["cards"])) for action in _BRING[state.format]]
        side = state.sides[seat]
        if phase == "defuse":
            bullets = state.sides[1 - seat].traps[0][1]
            actions: list[Action] = []
            if side.bullets >= bullets:
                actions.append({"type": "follow"})
            if side.bullets >= bullets + 1:
                actions.append({"type": "raise"})
            actions.append({"type": "do_nothing"})
            return actions
        if phase == "distribute":
            return [{"type": "distribute", "alley": n} for n in fx.distribute_choices(state)]
        if phase == "choose_trap":
            return [{"type": "set_trap", "card": card} for card in self._traps_at_hand(side)]
        if phase == "discard_from_hand":
            return [{"type": "discard_from_hand", "card": card} for card in sorted(set(side.hand))]
        if phase == "hide":
            return [{"type": "hide", "slots": slots} for slots in _hide_arrangements(side.hand)]
        return []

    def _traps_at_hand(self, side: Side) -> list[str]:
        cards = [card for card in side.hand if CARDS[card].type == "TRAP"]
        cards += [card for card in side.hideout_tops() if CARDS[card].type == "TRAP"]
        return cards

    def _playable(
        self, state: RagnGunsState, seat: int, only: Any = None
    ) -> list[tuple[str, str, Play, list[dict[str, Any]]]]:
        """Every Effect the player may play now: (card, where, Effect, choices); `only`: of that card.

        Sources: ACTIONS in hand ("They can be played directly from your hand"), and cards in play --
        the top of each Hideout slot, the Alley, the Shelter, the GUNSLINGER. A TRAP's Effect applies
        only when its victim does nothing, so it is never played (`Info.plays` of a TRAP is skipped)."""
        side = state.sides[seat]
        found: list[tuple[str, str, Play, list[dict[str, Any]]]] = []
        hideout, face_down = side.hideout, side.face_down
        alley, shelter = side.alley, side.shelter
        # ◊ discounts exist only when a placed card has a lasting Effect (rarely): look only then
        discounts = (
            fx.lasting(side, "discount")
            if (alley is not None and CARDS[alley].lasting)
            or (shelter is not None and CARDS[shelter].lasting)
            else ()
        )
        used, bullets, belt = side.used, side.bullets, side.belt
        add = found.append

        def consider(card: str, where: str) -> None:
            if only is not None and card != only:
                return
            info = CARDS[card]
            if not info.plays or info.type == "TRAP":
                return
            if not discounts and info.cheapest > (belt if where == "gunslinger" else bullets):
                return  # nothing on this card is affordable
            for play in info.plays:
                if play.once_per_turn and (card, play.index) in used:
                    continue
                zone = play.zone
                if zone is not None:
                    if zone == "HAND" and where != "hand":
                        continue
                    if zone == "HIDEOUT" and not where.startswith("hideout"):
                        continue
                if discounts or play.readings:
                    cost = fx.effect_cost(state, side, card, play, discounts)
                else:
                    cost = play.cost
                if cost > (belt if play.from_belt else bullets):
                    continue
                choices = _ONE_CHOICE if play.simple else fx.options(state, seat, play)
                if choices is not None:
                    add((card, where, play, choices))

        for card in side.hand:
            if CARDS[card].type == "ACTION":
                consider(card, "hand")
        if hideout[0] and hideout[0][-1] not in face_down:
            consider(hideout[0][-1], "hideout0")
        if hideout[1] and hideout[1][-1] not in face_down:
            consider(hideout[1][-1], "hideout1")
        if alley is not None:
            consider(alley, "alley")
        if shelter is not None:
            consider(shelter, "shelter")
        consider(side.gunslinger, "gunslinger")
        return found

    def _place_choices(self, state: RagnGunsState, seat: int, card: str, zone: str) -> list[dict[str, Any]]:
        side = state.sides[seat]
        play = CARDS[card].on_place_in(zone)
        if play is None:
            return [{}]
        replaced = side.alley if zone == "alley" else side.shelter
        choices = fx.options(state, seat, play, extra_discard=replaced, fresh_zone=zone)
        return choices if choices is not None else [{}]  # a ↓ with nothing to do does nothing

    def _main_actions(self, state: RagnGunsState, seat: int) -> list[Action]:
        side = state.sides[seat]
        opponent = state.sides[1 - seat]
        actions: list[Action] = []
        append = actions.append
        bullets = side.bullets
        hand = side.hand
        hideout, face_down = side.hideout, side.face_down
        tops = [slot[-1] for slot in hideout if slot]
        # PLACE, from the hand or the top of a Hideout slot
        zones = ("shelter",) if side.in_alley else ZONES
        has_trap = False
        for card in (*hand, *tops):
            info = CARDS[card]
            if not info.placeable:
                if info.type == "TRAP":
                    has_trap = True
                continue
            if info.cost > bullets or card in face_down:
                continue
            if not info.on_place:
                for zone in zones:
                    append({"type": "place", "card": card, "zone": zone})
                continue
            for zone in zones:
                for choice in self._place_choices(state, seat, card, zone):
                    append({"type": "place", "card": card, "zone": zone, **choice})
        # TRAPS: the cost X is chosen, at least one Bullet
        if bullets and has_trap and not fx.lasting(opponent, "no_opponent_traps"):
            actions.extend({"type": "trap", "bullets": x} for x in range(1, bullets + 1))
        for card, _, play, choices in self._playable(state, seat):
            if choices is _ONE_CHOICE:
                append({"type": "play", "card": card, "effect": play.index})
                continue
            for choice in choices:
                append({"type": "play", "card": card, "effect": play.index, **choice})
        if side.gunfights and bullets and (side.alley is not None or side.in_alley):
            power = fx.firepower(side, opponent)
            actions.extend({"type": "gunfight", "bullets": n} for n in range(1, min(power, bullets) + 1))
        if not side.in_alley and (side.ready or fx.is_ready(side)):
            append({"type": "ready"})
        for card in (*hand, *tops, side.alley, side.shelter):
            if card is not None:
                append({"type": "discard", "card": card})
        append({"type": "end_turn"})
        return actions

    # --- changing -----------------------------------------------------------------------------------------
    def apply_action(self, state: RagnGunsState, seat: int, action: Action) -> None:
        kind = action["type"]
        phase = state.phase
        handler = _HANDLERS.get((phase, kind))
        if handler is None:
            raise IllegalAction(f"{kind!r} is not an action now ({phase})", code="action/unknown")
        handler(self, state, seat, action)

    def _only(self, action: Action, *names: str) -> None:
        extra = set(action) - {"type", *names}
        if extra:
            raise IllegalAction(f"unexpected field(s) {sorted(extra)}", code="action/malformed")

    def _bring_deck(self, state: RagnGunsState, seat: int, action: Action) -> None:
        self._only(action, "gunslinger", "cards")
        gunslinger, cards = action.get("gunslinger"), action.get("cards")
        if type(gunslinger) is not str or type(cards) is not list or any(type(c) is not str for c in cards):
            raise IllegalAction("a deck is a gunslinger id and a list of card ids", code="deck/malformed")
        codes, normal_gunslinger, normal_cards = _checked(state.format, gunslinger, tuple(sorted(cards)))
        if codes:
            raise IllegalAction(f"illegal deck: {', '.join(codes)}", code="deck/illegal")
        state.decks[seat] = normal_cards  # canonical: sorted ids
        state.sides[seat].gunslinger = normal_gunslinger
        if state.decks[1 - seat] is not None:
            if state.first_option == FIRST_RANDOM:
                state.phase = "first_player"
            else:
                state.first = 1 if state.first_option == FIRST_SEAT_1 else 0
                state.phase = "shuffle"

    def apply_chance(self, state: RagnGunsState, outcome: dict[str, Any]) -> None:
        if state.phase == "first_player":
            state.first = outcome["index"]
            state.phase = "shuffle"
            return
        seat = state.shuffled
        canonical = state.decks[seat]
        state.sides[seat].deck = [canonical[i] for i in outcome["permutation"]]
        state.shuffled += 1
        if state.shuffled == 2:
            state.current = state.first
            self._start_turn(state, state.first)

    def _start_turn(self, state: RagnGunsState, seat: int) -> None:
        """GAMEPLAY 1-3: RELOAD, DRAW 3, then DEFUSE the opponent's TRAPS."""
        state.turn_total += 1
        if state.turn_total > 2 * state.turn_limit:
            self._call_the_duel(state)
            return
        side = state.sides[seat]
        side.turns += 1
        # "The first player does not increase his CYLINDER during the first RELOAD"
        if state.turn_total > 1:
            side.cylinder = min(CYLINDER_MAX, side.cylinder + 1)
        side.bullets = side.cylinder
        state.bank -= side.cylinder
        side.used = frozenset()
        side.gunfights = 1
        side.boost = None
        for _, step in fx.lasting(side, "upkeep_heal"):
            fx.heal(state, side, "gunslinger" if step.on == "gunslinger" else "alley", step.n)
        if side.deck:
            fx.draw(side, DRAW)
        else:
            # NO MORE CARDS?: "when you can no longer draw ... your GUNSLINGER is now ready"
            side.ready = True
        self._next_trap_or_main(state)

    def _next_trap_or_main(self, state: RagnGunsState) -> None:
        if state.phase == "over":
            return
        state.phase = "defuse" if state.sides[1 - state.current].traps else "main"

    def _call_the_duel(self, state: RagnGunsState) -> None:
        a, b = state.sides[0].wounds, state.sides[1].wounds
        state.phase = "over"
        state.winner = None if a == b else (0 if a < b else 1)
        state.end_reason = "turn_limit"

    def _defuse(self, state: RagnGunsState, seat: int, action: Action) -> None:
        """TRAPS: follow (pay what is on it: back face down to its owner's Hideout), raise (one more:
        discarded face up), or do nothing (revealed, its Effect applies)."""
        self._only(action)
        kind = action["type"]
        side, owner = state.sides[seat], state.sides[1 - seat]
        card, on_it = owner.traps[0]
        price = on_it if kind == "follow" else on_it + 1 if kind == "raise" else 0
        if price > side.bullets:
            raise IllegalAction(f"{kind} costs {price} Bullets", code="defuse/not_enough_bullets")
        side.bullets -= price
        state.bank += price + on_it  # the paid Bullets and the chips on the TRAP go back to the stack
        owner.traps.pop(0)
        if kind == "follow":
            slot = 0 if len(owner.hideout[0]) <= len(owner.hideout[1]) else 1
            owner.hideout[slot].append(card)
            owner.face_down = owner.face_down | {card}
        elif kind == "raise":
            owner.discard.append(card)
        else:
            play = CARDS[card].plays[0] if CARDS[card].plays else None
            discard = True
            if play is not None:
                discard = fx.execute(
                    state, 1 - seat, card, play, {}, trap_bullets=on_it, resume="defuse_next"
                )
            if discard:
                owner.discard.append(card)
            if state.phase in ("distribute", "discard_from_hand", "over"):
                return
        self._next_trap_or_main(state)

    def _discard_from_hand(self, state: RagnGunsState, seat: int, action: Action) -> None:
        self._only(action, "card")
        side = state.sides[seat]
        card = action.get("card")
        if type(card) is not str or card not in side.hand:
            raise IllegalAction("discard a card from your hand", code="trap/not_in_hand")
        side.hand.remove(card)
        side.discard.append(card)
        self._next_trap_or_main(state)

    def _distribute(self, state: RagnGunsState, seat: int, action: Action) -> None:
        self._only(action, "alley")
        n = action.get("alley")
        if type(n) is not int or n not in fx.distribute_choices(state):
            raise IllegalAction(
                "the Alley card takes at most what it can hold", code="gunfight/bad_distribution"
            )
        resume = state.pending[2]
        fx.apply_distribution(state, n)
        if state.phase != "over" and resume == "defuse_next":
            self._next_trap_or_main(state)

    def _place(self, state: RagnGunsState, seat: int, action: Action) -> None:
        """PLACE: pay the cost; "unless special EFFECT ... only one card can be placed per zone":
        the card already there is discarded. A ↓ Effect of that zone triggers."""
        side = state.sides[seat]
        card, zone = action.get("card"), action.get("zone")
        where = _locate(side, card)
        if where not in ("hand", "hideout0", "hideout1") or card in side.face_down:
            raise IllegalAction(
                "place a card from your hand or the top of a Hideout slot", code="place/not_available"
            )
        info = CARDS[card]
        if not info.placeable:
            raise IllegalAction("only cards with ♠ and ♥ can be placed", code="place/no_statistics")
        if zone not in ZONES or (zone == "alley" and side.in_alley):
            raise IllegalAction("place in the alley or the shelter", code="place/bad_zone")
        if info.cost > side.bullets:
            raise IllegalAction(f"placing costs {info.cost}", code="place/not_enough_bullets")
        params = {key: value for key, value in action.items() if key not in ("type", "card", "zone")}
        if params not in self._place_choices(state, seat, card, zone):
            raise IllegalAction("not a choice this ↓ Effect offers", code="effect/bad_choice")
        play = info.on_place_in(zone)
        runs = (
            play is not None
            and fx.options(
                state,
                seat,
                play,
                extra_discard=side.alley if zone == "alley" else side.shelter,
                fresh_zone=zone,
            )
            is not None
        )
        # all checked: change
        side.bullets -= info.cost
        state.bank += info.cost
        _remove(state, side, card, where)
        if (side.alley if zone == "alley" else side.shelter) is not None:
            fx.discard_zone(state, side, zone)
        if zone == "alley":
            side.alley = card
        else:
            side.shelter = card
        if runs:
            fx.execute(state, seat, card, play, params)

    def _trap(self, state: RagnGunsState, seat: int, action: Action) -> None:
        self._only(action, "bullets")
        side = state.sides[seat]
        x = action.get("bullets")
        if type(x) is not int or not 1 <= x <= side.bullets:
            raise IllegalAction("a TRAP costs X: at least one Bullet you have", code="trap/bad_cost")
        if not self._traps_at_hand(side):
            raise IllegalAction("no TRAP in your hand or on top of your Hideout", code="trap/none")
        if fx.lasting(state.sides[1 - seat], "no_opponent_traps"):
            raise IllegalAction("your opponent's card forbids TRAPS", code="trap/forbidden")
        state.pending = (x,)
        state.phase = "choose_trap"

    def _set_trap(self, state: RagnGunsState, seat: int, action: Action) -> None:
        """ "you place it horizontally and face-down between you and your opponent, then put the
        BULLETS on it" (the card is named only to its owner: see `event_audience`)."""
        self._only(action, "card")
        side = state.sides[seat]
        card = action.get("card")
        if card not in self._traps_at_hand(side):
            raise IllegalAction(
                "choose a TRAP from your hand or the top of a Hideout slot", code="trap/not_available"
            )
        (x,) = state.pending
        _remove(state, side, card, _locate(side, card))
        side.bullets -= x
        side.traps.append((card, x))
        state.pending = ()
        state.phase = "main"

    def _play(self, state: RagnGunsState, seat: int, action: Action) -> None:
        """EFFECTS: "pay cost, do what it says and discard the card" -- or keep it, for ∞, once per turn."""
        side = state.sides[seat]
        card, index = action.get("card"), action.get("effect")
        params = {key: value for key, value in action.items() if key not in ("type", "card", "effect")}
        if type(card) is not str:
            raise IllegalAction("name the card whose Effect you play", code="effect/not_playable")
        # The loop's last values are the play found (break): where and choices are read after it.
        for found, where, play, choices in self._playable(state, seat, card):  # noqa: B007
            if found == card and play.index == index and type(index) is int:
                break
        else:
            raise IllegalAction("that Effect cannot be played now", code="effect/not_playable")
        if params not in choices:
            raise IllegalAction("not a choice this Effect offers", code="effect/bad_choice")
        cost = fx.effect_cost(state, side, card, play)
        if play.from_belt:
            side.belt -= cost
        else:
            side.bullets -= cost
        state.bank += cost
        if play.once_per_turn:
            side.used = side.used | {(card, index)}
        fx.execute(state, seat, card, play, params)
        if not play.once_per_turn and where != "gunslinger":
            _take_out(state, side, card)
            side.discard.append(card)

    def _gunfight(self, state: RagnGunsState, seat: int, action: Action) -> None:
        self._only(action, "bullets")
        side, opponent = state.sides[seat], state.sides[1 - seat]
        n = action.get("bullets")
        if not side.gunfights:
            raise IllegalAction("once per turn", code="gunfight/already")
        power = fx.firepower(side, opponent)
        if type(n) is not int or not 1 <= n <= min(power, side.bullets):
            raise IllegalAction(f"shoot 1 to {min(power, side.bullets)} Bullets", code="gunfight/bad_count")
        side.gunfights -= 1
        side.bullets -= n
        state.bank += n  # the chips leave the player's Bullets ...
        fx.volley(state, 1 - seat, n, "main")  # ... and land on cards

    def _ready(self, state: RagnGunsState, seat: int, action: Action) -> None:
        self._only(action)
        side = state.sides[seat]
        if side.in_alley or not fx.is_ready(side):
            raise IllegalAction("the GUNSLINGER is not ready", code="ready/not_ready")
        if side.alley is not None:
            fx.discard_zone(state, side, "alley")
        side.in_alley = True

    def _discard(self, state: RagnGunsState, seat: int, action: Action) -> None:
        self._only(action, "card")
        side = state.sides[seat]
        card = action.get("card")
        where = _locate(side, card)
        if where is None:
            raise IllegalAction("discard a card you hold, hid or placed", code="discard/not_available")
        _remove(state, side, card, where)
        side.discard.append(card)

    def _end_turn(self, state: RagnGunsState, seat: int, action: Action) -> None:
        self._only(action)
        if state.sides[seat].hand:
            state.phase = "hide"
        else:
            self._finish_turn(state, seat)

    def _hide(self, state: RagnGunsState, seat: int, action: Action) -> None:
        """HIDEOUT: "if you have any cards left in your hand, you must place it in your HIDEOUT ...
        you choose the order and the slot of the cards you hide"."""
        self._only(action, "slots")
        side = state.sides[seat]
        slots = action.get("slots")
        if (
            type(slots) is not list
            or len(slots) != 2
            or any(type(slot) is not list for slot in slots)
            or not all(type(card) is str for card in slots[0] + slots[1])
            or sorted(slots[0] + slots[1]) != sorted(side.hand)
        ):
            raise IllegalAction("hide every card of your hand, in two slots", code="hide/bad_arrangement")
        for index, slot in enumerate(slots):
            for card in slot:
                fx.hide_on_top(side, card, index)
        side.hand.clear()
        self._finish_turn(state, seat)

    def _finish_turn(self, state: RagnGunsState, seat: int) -> None:
        """GAMEPLAY 7-8: unspent Bullets go to the CARTRIDGE BELT; the opponent's turn."""
        side = state.sides[seat]
        side.belt += side.bullets
        side.bullets = 0
        for _, step in fx.lasting(side, "belt_bonus"):
            side.belt += step.n
            state.bank -= step.n
        side.boost = None
        state.current = 1 - seat
        self._start_turn(state, 1 - seat)

    def apply_forfeit(self, state: RagnGunsState, seat: int, reason: str) -> None:
        state.phase = "over"
        state.winner = 1 - seat
        state.end_reason = "forfeit"
        state.loser_forfeited = True
        state.pending = ()

    # --- telling ------------------------------------------------------------------------------------------
    def outcome(self, state: RagnGunsState) -> Outcome | None:
        if state.phase != "over":
            return None
        if state.winner is None:
            return Outcome((1, 1), (0.5, 0.5), state.end_reason)
        scores = [0.0, 0.0]
        scores[state.winner] = 1.0
        return Outcome.from_scores(tuple(scores), state.end_reason)

    def event_audience(self, state_before: RagnGunsState, event: Event) -> frozenset[int] | None:
        if event.kind == "chance":
            return frozenset() if state_before.phase == "shuffle" else None
        if event.kind == "action" and event.seat is not None:
            kind = event.payload.get("type") if isinstance(event.payload, Mapping) else None
            # a deck list, which TRAP lies face down, and the order of hidden cards are the author's
            if kind in ("bring_deck", "set_trap", "hide"):
                return frozenset({event.seat})
        return None

    def describe_event(
        self,
        event: Event,
        *,
        viewer: int | None,
        seat_names: Sequence[str],
        state_before: RagnGunsState | None = None,
    ) -> str:
        return describe_event(event, viewer=viewer, seat_names=seat_names)

    def view(self, state: RagnGunsState, seat: int | None) -> View:
        from engines.ragnguns.views import view

        return view(state, seat)

    def bots(self) -> Mapping[str, Bot]:
        from engines.ragnguns.bots import HeuristicBot

        return {"random": RandomBot(), "heuristic": HeuristicBot()}


_HANDLERS = {
    ("bring_deck", "bring_deck"): RagnGuns._bring_deck,
    ("defuse", "follow"): RagnGuns._defuse,
    ("defuse", "raise"): RagnGuns._defuse,
    ("defuse", "do_nothing"): RagnGuns._defuse,
    ("discard_from_hand", "discard_from_hand"): RagnGuns._discard_from_hand,
    ("distribute", "distribute"): RagnGuns._distribute,
    ("choose_trap", "set_trap"): RagnGuns._set_trap,
    ("hide", "hide"): RagnGuns._hide,
    ("main", "place"): RagnGuns._place,
    ("main", "trap"): RagnGuns._trap,
    ("main", "play"): RagnGuns._play,
    ("main", "gunfight"): RagnGuns._gunfight,
    ("main", "ready"): RagnGuns._ready,
    ("main", "discard"): RagnGuns._discard,
    ("main", "end_turn"): RagnGuns._end_turn,
}
