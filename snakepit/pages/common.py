"""What every page view shares: the fragment convention of live.js and bounded paging."""

from __future__ import annotations

from django.core.paginator import Page, Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.cache import patch_vary_headers

from api.throttles import ScopeThrottle
from core.errors import ApplicationError
from engines.registry import all_games

PAGE_SIZE = 25
MAX_ROW_ID = 2**31 - 1  # PostgreSQL's integer: a bigger id in a URL is no row (not a database error)
MAX_PAGE_NUMBER = 10_000


def wants_fragment(request: HttpRequest) -> bool:
    """live.js marks its requests with `X-Live: 1`; `?fragment=1` does the same for a link or a test."""
    return request.headers.get("X-Live") == "1" or request.GET.get("fragment") == "1"


def render_page(
    request: HttpRequest,
    *,
    page: str,
    fragment: str | None = None,
    context: dict,
    status: int = 200,
) -> HttpResponse:
    """The whole page, or only its live fragment when live.js asks for it."""
    template = fragment if fragment is not None and wants_fragment(request) else page
    response = render(request, template, context, status=status)
    if fragment is not None:
        patch_vary_headers(response, ["X-Live"])
    return response


def paginate(request: HttpRequest, items, *, per_page: int = PAGE_SIZE) -> Page:
    """One page of `items`; a missing, malformed or out-of-range `?page=` gives the nearest real page."""
    try:
        number = min(max(int(request.GET.get("page", "1")), 1), MAX_PAGE_NUMBER)
    except ValueError:
        number = 1
    return Paginator(items, per_page).get_page(number)


def row_id(value: int) -> int:
    """An id from the URL, or 404 when no row can have it."""
    if not 0 < value <= MAX_ROW_ID:
        raise Http404("no such id")
    return value


def throttled(request: HttpRequest, throttle: ScopeThrottle) -> ApplicationError | None:
    """A page's form shares its API twin's rate (`SNAKEPIT_RATES`): None while under it, else the
    refusal to show (429)."""
    if throttle.allow_request(request, None):
        return None
    wait = int(throttle.wait() or 1)
    return ApplicationError(
        f"Too many requests; try again in {wait} s.", code="request/throttled", status=429
    )


def deck_field_label() -> str:
    """The label of a form's deck field: which games a saved deck is for, as the registry says."""
    return f"Your deck ({', '.join(game.spec.name for game in all_games() if game.spec.needs_deck)})"
