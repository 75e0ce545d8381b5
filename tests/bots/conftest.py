from __future__ import annotations

import json
from pathlib import Path

import pytest

PROGRAMS = Path(__file__).parent / "programs"


def program(name: str, **replace: str) -> str:
    """A test bot's source, with any `NAME = ...` line's value replaced (a port, a path)."""
    source = (PROGRAMS / f"{name}.py").read_text()
    for placeholder, value in replace.items():
        lines = [
            f"{placeholder} = {value}" if line.startswith(f"{placeholder} = ") else line
            for line in source.splitlines()
        ]
        source = "\n".join(lines) + "\n"
    return source


def message_line(**extra) -> bytes:
    payload = {"legal_actions": [{"type": "pass"}], "deadline_ms": 300, **extra}
    return json.dumps(payload).encode() + b"\n"


@pytest.fixture
def bot_settings(settings):
    """Short deadlines, so a hanging bot costs a test a fraction of a second."""
    settings.SNAKEPIT_BOTS_MOVE_MS = 300
    settings.SNAKEPIT_BOTS_OVERAGE_MS = 300
    settings.SNAKEPIT_BOTS_LIMITS = {"start_ms": 1500}
    return settings
