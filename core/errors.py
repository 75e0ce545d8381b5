"""The one error family of the service layer, below every app. It shares the `{code, detail}` shape
of `coded_errors.CodedError` with the engines' and the formats library's errors, which services
translate into these (choosing the status a pure library cannot know).

Services raise an `ApplicationError` subclass with a stable, namespaced code; the API's exception
handler renders it as HTTP `status` with the body `{"code": ..., "detail": ...}` plus any `extra`
fields (a stale append carries the current sequence number). Commands print `detail`.
"""

from __future__ import annotations

from typing import Any

from coded_errors import CodedError


class ApplicationError(CodedError):
    status = 400
    code = "request/invalid"

    def __init__(self, detail: str, *, code: str | None = None, status: int | None = None, **extra: Any):
        super().__init__(detail, code=code)
        if status is not None:
            self.status = status
        self.extra = extra

    def as_body(self) -> dict[str, Any]:
        return {**super().as_body(), **self.extra}


class NotFound(ApplicationError):
    status = 404
    code = "request/not_found"


class Forbidden(ApplicationError):
    status = 403
    code = "auth/forbidden"


class Conflict(ApplicationError):
    status = 409
    code = "request/conflict"


class Rejected(ApplicationError):
    """Well-formed, but the rules or the current state refuse it."""

    status = 422
    code = "request/rejected"
