"""Waiting helpers for tests that run real Celery processes (started with snakepit.processes)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path


def wait_until(condition: Callable[[], bool], *, timeout: float, what: str, log: Path | None = None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.2)
    tail = log.read_text(errors="replace")[-3000:] if log and log.exists() else ""
    raise AssertionError(f"timed out after {timeout} s waiting for {what}\n{tail}")
