"""The one shape of every error the house raises on purpose: a stable, namespaced `code`
(`turn/not_your_turn`, `bracket/unknown_match`, `match/stale_seq`) and a `detail` for people.

Three families derive from `CodedError`: the engines' (`engines.errors.EngineError`), the tournament
formats library's (`tournaments.formats.common.FormatError`) and the services' (`core.errors.
ApplicationError`, which adds the HTTP status and extra body fields). It lives in a package of its own
below all of them because `engines` and `core` are siblings that never import each other and the pure
libraries import nothing of the apps; so it imports nothing at all. Codes are part of the public API:
never rename one.
"""

from __future__ import annotations

from typing import Any


class CodedError(Exception):
    """Base for every error raised on purpose; each family and subclass sets its default `code`."""

    code = "error"

    def __init__(self, detail: str, *, code: str | None = None):
        super().__init__(detail)
        self.detail = detail
        if code is not None:
            self.code = code

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.detail!r})"

    def as_body(self) -> dict[str, Any]:
        """The `{"code", "detail"}` body every refusal is rendered as."""
        return {"code": self.code, "detail": self.detail}
