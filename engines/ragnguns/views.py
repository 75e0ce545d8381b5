"""Rag'n'Guns: what each seat sees (rules 0.3: HIDEOUT, TRAPS, and the hidden information of issue 15).

A seat sees its own hand and every card of its own Hideout; of the opponent it sees counts (hand,
deck), the top card of each Hideout slot ("Only the cards on top of the slots are visible by your
opponent"; a face-down TRAP shows its back), TRAPS as backs with their Bullets, and everything face
up on the table. Nobody sees a deck's order. While decks are being brought, a seat sees only
whether each deck is in.
"""

from __future__ import annotations

from typing import Any

from engines.ragnguns import effects as fx
from engines.ragnguns.catalogue import load_formats
from engines.ragnguns.state import RagnGunsState, Side


def _zone(card: str | None, wounds: int) -> dict[str, Any] | None:
    return None if card is None else {"card": card, "bullets": wounds}


def _side(state: RagnGunsState, index: int, mine: bool) -> dict[str, Any]:
    side: Side = state.sides[index]
    opponent = state.sides[1 - index]
    shown: dict[str, Any] = {
        "gunslinger": side.gunslinger,
        "gunslinger_bullets": side.wounds,
        "gunslinger_in_alley": side.in_alley,
        "ready": fx.is_ready(side),
        "cylinder": side.cylinder,
        "bullets": side.bullets,
        "cartridge_belt": side.belt,
        "turns": side.turns,
        "deck_count": len(side.deck),
        "hand_count": len(side.hand),
        "alley": _zone(side.alley, side.alley_wounds),
        "shelter": _zone(side.shelter, side.shelter_wounds),
        "firepower": fx.firepower(side, opponent),
        "discard": list(side.discard),
        "gunfights_left": side.gunfights,
        "used_this_turn": sorted([card, index] for card, index in side.used),
    }
    if mine:
        shown["hand"] = list(side.hand)
        shown["hideout"] = [
            [{"card": card, "face_down": card in side.face_down} for card in slot] for slot in side.hideout
        ]
        shown["traps"] = [{"card": card, "bullets": bullets} for card, bullets in side.traps]
    else:
        shown["hideout"] = [
            {
                "count": len(slot),
                "top": None
                if not slot
                else {
                    "card": None if slot[-1] in side.face_down else slot[-1],
                    "face_down": slot[-1] in side.face_down,
                },
            }
            for slot in side.hideout
        ]
        shown["traps"] = [{"card": None, "bullets": bullets} for _, bullets in side.traps]
    return shown


def _format_shown(rules_key: str) -> dict[str, str]:
    """The format's key and its ban list version, from the rules key (rules.format_under_ban_list:
    "frontier@2026.2#digest" under a given list, plain "frontier" under the packaged one)."""
    base, _, given = rules_key.partition("@")
    version = given.rpartition("#")[0] if given else load_formats()[base].ban_list_version
    return {"format": base, "ban_list": version}


def view(state: RagnGunsState, seat: int | None) -> dict[str, Any]:
    shown: dict[str, Any] = {
        "phase": state.phase,
        **_format_shown(state.format),
        "you": seat,
    }
    if state.phase == "bring_deck":
        shown["decks_brought"] = [deck is not None for deck in state.decks]
        if seat is not None and state.decks[seat] is not None:
            shown["your_deck"] = {
                "gunslinger": state.sides[seat].gunslinger,
                "cards": list(state.decks[seat]),
            }
        return shown
    shown["first_player"] = state.first
    shown["current"] = state.current
    shown["turn"] = state.turn_total
    shown["turn_limit"] = state.turn_limit
    if state.phase == "distribute":
        shown["distribute"] = {"defender": state.pending[0], "bullets": state.pending[1]}
    if state.phase == "choose_trap":
        shown["trap_bullets"] = state.pending[0]
    shown["seats"] = [_side(state, index, index == seat) for index in (0, 1)]
    if state.phase == "over":
        shown["winner"] = state.winner
        shown["end_reason"] = state.end_reason
    return shown
