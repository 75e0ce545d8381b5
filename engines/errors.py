"""Typed engine errors with stable, namespaced codes.

An engine never crashes on a bad action: it raises `IllegalAction` carrying a machine-readable code
(`turn/not_your_turn`, `action/unknown`, `bet/stake_too_high`, ...) that the service turns into an
HTTP 4xx body `{"code", "detail"}`. The code/detail shape is `coded_errors.CodedError`'s, shared with
the formats library and the services. Codes are part of the public API: never rename one.
"""

from __future__ import annotations

from coded_errors import CodedError


class EngineError(CodedError):
    """Base for every error an engine raises on purpose."""

    code = "engine/error"


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
