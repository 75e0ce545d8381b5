"""The bot protocol: one JSON message per decision, one JSON answer back (docs/bots.md).

Every message is generated from the engine protocol alone (the seat's `view`, its `legal_actions`,
the `Decision`), so a new game needs no bot-protocol code. The same message goes to a subprocess
bot as one line on its stdin and to an HTTP bot as a POST body. The shapes are JSON Schemas
(`MESSAGE_SCHEMA`, `ANSWER_SCHEMA`), published in the docs and served by the API.

Nothing here touches Django: building a message is a pure function of an engine state.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from engines.protocol import Action, Game

PROTOCOL_VERSION = 1

MESSAGE_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://snakepit.example/schemas/bot-message.json",
    "title": "Snakepit bot decision message",
    "description": "Sent to a bot each time its seat must decide; the bot answers with one action.",
    "type": "object",
    "additionalProperties": False,
    "required": [
        "protocol",
        "game",
        "match",
        "seq",
        "seat",
        "decision",
        "view",
        "legal_actions",
        "deadline_ms",
        "remaining_overage_ms",
    ],
    "properties": {
        "protocol": {"const": PROTOCOL_VERSION, "description": "Bumped only on an incompatible change."},
        "game": {"type": "string", "minLength": 1, "description": "The game's key, as /api/games/ lists it."},
        "match": {"type": "integer", "minimum": 1, "description": "The match's id."},
        "seq": {
            "type": "integer",
            "minimum": 0,
            "description": "The last event of the log this decision follows.",
        },
        "seat": {"type": "integer", "minimum": 0, "description": "The bot's seat (0-based)."},
        "decision": {
            "type": "object",
            "additionalProperties": False,
            "required": ["kind", "seats", "prompt"],
            "properties": {
                "kind": {"enum": ["turn", "simultaneous", "response"]},
                "seats": {"type": "array", "items": {"type": "integer", "minimum": 0}},
                "prompt": {"type": "string"},
            },
        },
        "view": {"type": "object", "description": "What this seat may see; never more."},
        "legal_actions": {
            "type": "array",
            "minItems": 1,
            "items": {"$ref": "#/$defs/action"},
            "description": "Every action the seat may take now; answer with one of them.",
        },
        "deadline_ms": {"type": "integer", "minimum": 1, "description": "The time for this move."},
        "remaining_overage_ms": {
            "type": "integer",
            "minimum": 0,
            "description": "The match's bank: time beyond deadline_ms taken from it; empty means forfeit.",
        },
    },
    "$defs": {
        "action": {
            "type": "object",
            "required": ["type"],
            "properties": {"type": {"type": "string", "minLength": 1}},
        },
    },
}

ANSWER_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://snakepit.example/schemas/bot-answer.json",
    "title": "Snakepit bot answer",
    "description": "A bot's answer to one decision message: one of its legal actions.",
    "type": "object",
    "required": ["action"],
    "properties": {
        "action": {
            "type": "object",
            "required": ["type"],
            "properties": {"type": {"type": "string", "minLength": 1}},
        },
    },
}


class BotFault(Exception):
    """A bot broke the protocol or its limits; `reason` is one of `FORFEIT_REASONS`, the forfeit's
    machine-readable cause."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


# Why a bot loses by forfeit, as its stats count them.
FORFEIT_REASONS = ("crash", "timeout", "garbage", "illegal_action", "flood", "network", "sandbox")


@dataclass(frozen=True)
class DecisionMessage:
    payload: dict[str, Any]

    def line(self) -> bytes:
        return json.dumps(self.payload, separators=(",", ":")).encode() + b"\n"


def decision_message(
    *, game: Game, state, seat: int, match_id: int, seq: int, deadline_ms: int, remaining_overage_ms: int
) -> DecisionMessage:
    """The message for `seat`, which the engine says must decide now, built from the engine's own
    view for that seat (so it carries exactly what the seat may see) and its legal actions."""
    decision = game.decision(state)
    return DecisionMessage(
        {
            "protocol": PROTOCOL_VERSION,
            "game": game.spec.key,
            "match": match_id,
            "seq": seq,
            "seat": seat,
            "decision": {"kind": decision.kind, "seats": sorted(decision.seats), "prompt": decision.prompt},
            "view": game.view(state, seat),
            "legal_actions": game.legal_actions(state, seat),
            "deadline_ms": deadline_ms,
            "remaining_overage_ms": remaining_overage_ms,
        }
    )


def answer_parse(raw: bytes) -> Action:
    """The action in a bot's answer line, or a `garbage` fault saying what was wrong with it."""
    try:
        answer = json.loads(raw)
    except (UnicodeDecodeError, ValueError):
        raise BotFault("garbage", "the answer is not a JSON line") from None
    if not isinstance(answer, dict) or not isinstance(answer.get("action"), dict):
        raise BotFault("garbage", 'the answer is not a JSON object with an "action" object')
    action = answer["action"]
    if not isinstance(action.get("type"), str) or not action["type"]:
        raise BotFault("garbage", 'the action has no "type"')
    return action
