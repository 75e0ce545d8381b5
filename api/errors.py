"""One exception handler: every 4xx body is `{"code": ..., "detail": ...}` (docs/api.md lists the codes)."""

from __future__ import annotations

import logging

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.db import DataError, IntegrityError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.utils.html import escape
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from core.errors import ApplicationError

logger = logging.getLogger(__name__)

_DRF_CODES = {
    exceptions.NotAuthenticated: "auth/not_authenticated",
    exceptions.AuthenticationFailed: "auth/failed",
    exceptions.PermissionDenied: "auth/forbidden",
    exceptions.NotFound: "request/not_found",
    exceptions.MethodNotAllowed: "request/method_not_allowed",
    exceptions.NotAcceptable: "request/not_acceptable",
    exceptions.UnsupportedMediaType: "request/unsupported_media_type",
    exceptions.ParseError: "request/malformed",
    exceptions.Throttled: "request/throttled",
    exceptions.ValidationError: "request/invalid",
}


def _flatten(detail) -> str:
    if isinstance(detail, dict):
        return "; ".join(f"{key}: {_flatten(value)}" for key, value in detail.items())
    if isinstance(detail, list):
        return " ".join(_flatten(item) for item in detail)
    return str(detail)


def exception_handler(exc, context):
    if isinstance(exc, ApplicationError):
        return Response(exc.as_body(), status=exc.status)
    # The database's own refusals of a value, or of a write another request made first: the client's
    # input or timing, never the server's fault. Each is logged, for the validation that should have
    # caught it earlier.
    if isinstance(exc, (DataError, OverflowError)):
        logger.warning("a value the database cannot hold reached it: %s", exc)
        return Response({"code": "request/out_of_range", "detail": "a value is out of range"}, status=400)
    if isinstance(exc, IntegrityError):
        logger.warning("a write lost a race or broke a constraint: %s", exc)
        return Response(
            {
                "code": "request/conflict",
                "detail": "another request changed the same thing first; read and retry",
            },
            status=409,
        )
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    code = getattr(exc, "error_code", None) or next(
        (code for kind, code in _DRF_CODES.items() if isinstance(exc, kind)), "request/error"
    )
    body = {"code": code, "detail": _flatten(exc.detail)}
    if isinstance(exc, exceptions.ValidationError) and isinstance(exc.detail, dict):
        body["fields"] = exc.detail
    response.data = body
    return response


# Errors raised before any DRF view runs (snakepit/errors.py): the same body under /api/, a plain page
# elsewhere.
_TITLES = {
    400: "Bad request",
    403: "Forbidden",
    404: "Not found",
    413: "Request too large",
    500: "Server error",
}


def error_response(request: HttpRequest, status: int, code: str, detail: str) -> HttpResponse:
    if request.path.startswith("/api/"):
        return JsonResponse({"code": code, "detail": detail}, status=status)
    title = _TITLES.get(status, "Error")
    page = f"<!doctype html><title>{title}</title><h1>{title}</h1><p>{escape(detail)}</p>"
    return HttpResponse(page, status=status, content_type="text/html; charset=utf-8")
