"""Rattlebones' log in sentences (`Game.describe_event`), in the rulebook's capitals: spaces and die
sides as printed (STORE/START, THIEF, ROLL AGAIN, 9-PIP), the '1' as the Rattlebones icon.

Seven of the board's spaces are tiles placed by the set-up shuffle, and a die's sides change as the
game goes, so the event alone names a fixed space but only a space's number for a tile, and a rolled
value rather than the side it landed on. Given the state before the event (the replay page has it),
the sentence names the landing space, the pawn and the side."""

from __future__ import annotations

from collections.abc import Sequence

from engines.describe import counted, listed, ordinal, own, plain_sentence, seat_name
from engines.protocol import Event
from engines.rattlebones.catalogue import ARROW_TO, CATALOGUE, RATTLEBONES, STORE, TILE
from engines.rattlebones.state import GAMBLE, RattlebonesState

SIDE_NAMES = {
    RATTLEBONES: "the Rattlebones icon",
    STORE: "STORE/START",
    TILE: "a blank space",
    "+1": "+1",
    "gold": "GOLD",
    "star": "STAR",
    "roll_again": "ROLL AGAIN",
    "train": "TRAIN",
    "9_pip": "9-PIP",
    "thief": "THIEF",
    "arrow": "ARROW",
    "1234": "1234",
    "stock": "STOCK",
    "x2": "x2",
    "gamble": "GAMBLE",
    **{f"points_{points}": f"{points} POINTS" for points in range(1, 6)},
}
STEAL_WORDS = {"gold": "a gold", "star": "a star", "stock": "a stock ticket"}


def side_name(side: object) -> str:
    """A space or a die side as the rulebook prints it; a pip side as its number."""
    if isinstance(side, str) and side.startswith(ARROW_TO):
        pointed = side[len(ARROW_TO) :]
        return f"an ARROW to side {int(pointed) + 1}" if pointed.isdigit() else "an ARROW"
    if isinstance(side, str) and side in SIDE_NAMES:
        return SIDE_NAMES[side]
    return str(side)


def space_name(space: object, state: RattlebonesState | None) -> str:
    """The name of board space `space`: a fixed space from the catalogue, a tile only from the state."""
    if not isinstance(space, int) or not 0 <= space < len(CATALOGUE.spaces):
        return f"space {space}"
    kind = state.board[space] if state is not None else CATALOGUE.spaces[space]
    return f"space {space}" if kind == TILE else side_name(kind)


def _die(die: object) -> str:
    return f"{ordinal(die + 1)} die" if isinstance(die, int) else f"die {die}"


def _dice(dice: object) -> str:
    if not isinstance(dice, list) or not dice:
        return "no dice"
    if len(dice) == 1:
        return f"the {_die(dice[0])}"
    return f"the {listed([ordinal(die + 1) for die in dice if isinstance(die, int)])} dice"


def _move(who: str, seat: int | None, payload: dict, state: RattlebonesState | None) -> str:
    start, steps = payload.get("from"), payload.get("steps")
    pawn = "a pawn"
    if state is not None and isinstance(seat, int) and start in state.pawns[3 * seat : 3 * seat + 3]:
        pawn = f"{own(who)} {ordinal(state.pawns[3 * seat : 3 * seat + 3].index(start) + 1)} pawn"
    landing = (
        (start + steps) % len(CATALOGUE.spaces) if isinstance(start, int) and isinstance(steps, int) else None
    )
    sentence = f"moved {pawn} {counted(steps, 'space') if isinstance(steps, int) else ''} from "
    sentence += f"{space_name(start, state)} to {space_name(landing, state)}"
    if payload.get("sell"):
        sentence += f" and sold {counted(payload['sell'], 'star')}"
    if payload.get("new_side") is not None:
        replaced = (
            f"side {payload['replace_side'] + 1}"
            if isinstance(payload.get("replace_side"), int)
            else "a side"
        )
        if state is not None and isinstance(seat, int) and isinstance(payload.get("die"), int):
            sides = state.dice[3 * seat + payload["die"]]
            if isinstance(payload.get("replace_side"), int) and 0 <= payload["replace_side"] < len(sides):
                replaced = f"its {side_name(sides[payload['replace_side']])} side"
        sentence += f", putting {side_name(payload['new_side'])} on the die in place of {replaced}"
    return sentence.replace("  ", " ")


def _showing(state: RattlebonesState | None, seat: int | None, die: object) -> str:
    """What the die shows, read off the state before its use (empty without one)."""
    if state is None or not isinstance(seat, int) or not isinstance(die, int):
        return ""
    for showing_die, side in state.showing:
        if showing_die == die:
            return side_name(state.dice[3 * seat + die][side])
    return ""


def _use_die(
    who: str,
    seat: int | None,
    payload: dict,
    state: RattlebonesState | None,
    *,
    viewer: int | None,
    seat_names: Sequence[str],
) -> str:
    die = payload.get("die")
    if "from" in payload:
        return f"{who} used the {_die(die)} and " + _move(who, seat, payload, state)
    if "with" in payload:
        if payload["with"] is None:
            return f"{who} disregarded ROLL AGAIN on the {_die(die)}"
        return f"{who} used ROLL AGAIN to roll the {_die(die)} again with the {_die(payload['with'])}"
    if "steal" in payload and isinstance(payload["steal"], list):
        # "one ... from each other player", in seat order
        others = [other for other in range(len(seat_names)) if other != seat]
        taken = [
            f"{STEAL_WORDS[what]} from {seat_name(other, viewer=viewer, seat_names=seat_names)}"
            for other, what in zip(others, payload["steal"])
            if what in STEAL_WORDS
        ]
        return f"{who} used THIEF and stole " + (listed(taken) or "nothing")
    shown = _showing(state, seat, die)
    return f"{who} used the {_die(die)}" + (f": {shown}" if shown else "")


def _rolled(values: list, state: RattlebonesState | None) -> str:
    if state is not None and state.phase == GAMBLE:
        faces = [CATALOGUE.gamble_die[value - 1] for value in values if 1 <= value <= 6]
        shown = [side_name(face) if face == RATTLEBONES else f"{face} points" for face in faces]
        return f"the Gamble die shows {listed(shown)}"
    if state is not None and len(state.to_roll) == len(values):
        shown = [
            f"the {_die(die)} shows {side_name(state.dice[3 * state.player + die][value - 1])}"
            for die, value in zip(state.to_roll, values)
            if 1 <= value <= 6
        ]
        return listed(shown)
    faces = [side_name(RATTLEBONES) if value == 1 else f"a {value}" for value in values]
    return f"the {'die' if len(values) == 1 else 'dice'} rolled {listed(faces)}"


def describe_event(
    event: Event, *, viewer: int | None, seat_names: Sequence[str], state_before: RattlebonesState | None
) -> str:
    payload = event.payload
    if event.kind == "chance" and payload is not None:
        if isinstance(payload.get("permutation"), list):
            tiles = [CATALOGUE.tiles[tile] for tile in payload["permutation"][: CATALOGUE.tiles_placed]]
            return "the board tiles were placed: " + listed([side_name(tile) for tile in tiles])
        if isinstance(payload.get("dice"), list):
            return _rolled(payload["dice"], state_before)
    if event.kind != "action" or payload is None:
        return plain_sentence(event, viewer=viewer, seat_names=seat_names)
    who = seat_name(event.seat, viewer=viewer, seat_names=seat_names)
    kind = payload.get("type")
    if kind == "roll":
        dice = payload.get("dice")
        paid = len(dice) - 1 if isinstance(dice, list) else 0
        return f"{who} rolled {_dice(dice)}" + (f", paying {paid} gold" if paid > 0 else "")
    if kind == "double":
        return f"{who} doubled the {_die(payload.get('die'))} with x2"
    if kind == "use_die":
        return _use_die(who, event.seat, payload, state_before, viewer=viewer, seat_names=seat_names)
    return plain_sentence(event, viewer=viewer, seat_names=seat_names)
