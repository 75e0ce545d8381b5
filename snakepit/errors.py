"""Error pages for what never reaches a DRF view: an unknown URL, a body over the size cap, a NUL
character in the path or query, a crash. Under `/api/` they are the API's `{"code", "detail"}` JSON;
elsewhere a short plain page. Never a debug page (DEBUG is off unless asked for)."""

from __future__ import annotations

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings
from django.http import HttpRequest, HttpResponse

from api.errors import error_response


def bad_request(request, exception=None):
    return error_response(request, 400, "request/malformed", "The request could not be understood.")


def permission_denied(request, exception=None):
    return error_response(request, 403, "auth/forbidden", "You may not do this.")


def csrf_failure(request, reason=""):
    return error_response(
        request, 403, "auth/csrf_failed", "The form's CSRF token is missing or wrong; reload the page."
    )


def page_not_found(request, exception=None):
    return error_response(request, 404, "request/not_found", f"Nothing at {request.path}.")


def server_error(request):
    return error_response(
        request, 500, "server/error", "Something went wrong on our side; it has been logged."
    )


class RequestLimitsMiddleware:
    """Refuses, before anything reads it, a request whose body is over the cap (413) or whose path or
    query carries a NUL character, which no database text column accepts (400).

    Sync and async alike: under ASGI a sync-only middleware makes Django run the request in a thread
    of its own for as long as the response lasts, which for an event stream is hours."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response):
        self.get_response = get_response
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest):
        if iscoroutinefunction(self):
            return self._acall(request)
        return self._refusal(request) or self.get_response(request)

    async def _acall(self, request: HttpRequest) -> HttpResponse:
        return self._refusal(request) or await self.get_response(request)

    def _refusal(self, request: HttpRequest) -> HttpResponse | None:
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return error_response(request, 400, "request/malformed", "Content-Length is not a number.")
        cap = settings.SNAKEPIT_MAX_BODY_BYTES
        if request.path in settings.SNAKEPIT_UPLOAD_PATHS:
            cap = settings.SNAKEPIT_UPLOAD_BODY_BYTES
        if length > cap:
            return error_response(request, 413, "request/too_large", f"The body is over {cap} bytes.")
        if (
            "\x00" in request.path
            or "%00" in request.META.get("QUERY_STRING", "")
            or "\x00" in request.META.get("QUERY_STRING", "")
        ):
            return error_response(request, 400, "request/nul_character", "The URL carries a NUL character.")
        return None
