"""The bot protocol is generated from the engine protocol: every registered game's messages, taken
from random playouts, validate against the published JSON Schema, and carry only the seat's view."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import jsonschema
import pytest

from bots.protocol import ANSWER_SCHEMA, MESSAGE_SCHEMA, BotFault, answer_parse, decision_message
from engines.chance import draw
from engines.protocol import Event
from engines.registry import game_keys, get_game

MESSAGES = jsonschema.Draft202012Validator(MESSAGE_SCHEMA)
ANSWERS = jsonschema.Draft202012Validator(ANSWER_SCHEMA)


def test_the_schemas_are_valid_json_schemas():
    jsonschema.Draft202012Validator.check_schema(MESSAGE_SCHEMA)
    jsonschema.Draft202012Validator.check_schema(ANSWER_SCHEMA)


@pytest.mark.parametrize("game_key", game_keys())
def test_every_message_of_a_random_game_validates(game_key):
    game = get_game(game_key)
    checked = 0
    for match_seed in range(2):
        rng = random.Random(match_seed)
        seed = bytes([match_seed]) * 32
        seats = game.spec.min_players + match_seed % (game.spec.max_players - game.spec.min_players + 1)
        state = game.new_state(seats=seats)
        for seq in range(1, 1500):
            decision = game.decision(state)
            if decision.kind == "over":
                break
            if decision.kind == "chance":
                game.apply(state, Event.chance_outcome(draw(seed, seq, game.chance_request(state))))
                continue
            seat = min(decision.seats)
            message = decision_message(
                game=game,
                state=state,
                seat=seat,
                match_id=7,
                seq=seq - 1,
                deadline_ms=1000,
                remaining_overage_ms=500,
            )
            payload = json.loads(message.line())  # what goes down the pipe, read back
            MESSAGES.validate(payload)
            assert payload["view"] == game.view(state, seat)  # the seat's own view, never more
            action = rng.choice(payload["legal_actions"])
            answer = json.dumps({"action": action}).encode()
            ANSWERS.validate(json.loads(answer))
            game.apply(state, Event.action(seat, answer_parse(answer)))
            checked += 1
    assert checked > 0


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"not json",
        b"[1, 2]",
        b'{"move": {"type": "x"}}',
        b'{"action": "x"}',
        b'{"action": {"type": ""}}',
        b"\xff\xfe",
    ],
)
def test_garbage_answers_are_named_garbage(raw):
    with pytest.raises(BotFault) as caught:
        answer_parse(raw)
    assert caught.value.reason == "garbage"


def test_the_docs_publish_the_schemas_the_code_uses():
    text = (Path(__file__).resolve().parents[2] / "docs" / "bots.md").read_text()
    for heading, schema in (("Message schema", MESSAGE_SCHEMA), ("Answer schema", ANSWER_SCHEMA)):
        block = re.search(rf"### {heading}\n\n```json\n(.*?)\n```", text, re.DOTALL)
        assert block is not None, heading
        assert json.loads(block.group(1)) == schema


def test_the_docs_example_bot_is_the_tested_one():
    root = Path(__file__).resolve().parents[2]
    example = (root / "tests" / "bots" / "programs" / "random_bot.py").read_text()
    assert f"```python\n{example}```" in (root / "docs" / "bots.md").read_text()
