"""The one error family of the service layer, below every app (engines keep their own, in
`engines.errors`, and services translate them).

Services raise an `ApplicationError` subclass with a stable, namespaced code; the API's exception
handler renders it as HTTP `status` with the body `{"code": ..., "detail": ...}` plus any `extra`
fields (a stale append carries the current sequence number). Commands print `detail`.
"""

from __future__ import annotations

from typing import Any


class ApplicationError(Exception):
    status = 400
    code = "request/invalid"

    def __init__(self, detail: str, *, code: str | None = None, status: int | None = None, **extra: Any):
        super().__init__(detail)
        self.detail = detail
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status
        self.extra = extra

    def as_body(self) -> dict[str, Any]:
        return {"code": self.code, "detail": self.detail, **self.extra}


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
