"""Typed engine errors with stable, namespaced codes.

An engine never crashes on a bad action: it raises `IllegalAction` carrying a machine-readable code
(`turn/not_your_turn`, `action/unknown`, `bet/stake_too_high`, ...) that the service turns into an
HTTP 4xx body `{"code", "detail"}`. Codes are part of the public API: never rename one.
"""

from __future__ import annotations


class EngineError(Exception):
    """Base for every error an engine raises on purpose."""

    code = "engine/error"

    def __init__(self, detail: str, *, code: str | None = None):
        super().__init__(detail)
        self.detail = detail
        if code is not None:
            self.code = code

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.detail!r})"


class IllegalAction(EngineError):
    """The event cannot be applied to this state; the state is unchanged."""

    code = "action/illegal"


class InvalidOptions(EngineError):
    """Match options do not fit the game's declared options."""

    code = "options/invalid"


class InvalidSeats(EngineError):
    """The number of seats is outside the game's player range."""

    code = "seats/invalid_count"


class UnknownGame(EngineError):
    code = "game/unknown"
