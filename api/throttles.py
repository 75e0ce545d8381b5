"""Rate limits, counted in the cache (Redis in production, so every web process shares them).

The rates are `SNAKEPIT_RATES` in the settings (each overridable from the environment), read on
every request, so an operator or a load test raises them without a code change. A refusal is a 429
with `Retry-After` and the body `{"code": "request/throttled", ...}`.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.views import LoginView
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from api.errors import error_response


class ScopeThrottle(SimpleRateThrottle):
    """Counts per user when signed in, else per client address; staff are never throttled."""

    scope: str

    def __init__(self) -> None:  # the rate is read now, not frozen at import
        self.rate = settings.SNAKEPIT_RATES.get(self.scope)
        self.num_requests, self.duration = self.parse_rate(self.rate)

    def get_cache_key(self, request, view):
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            if user.is_staff:
                return None
            ident = f"u{user.pk}"
        else:
            ident = self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}

    def wait(self):
        """Seconds until the oldest request that must age out has: DRF's own answer is None (no
        Retry-After at all) once a client's history is longer than the rate, as after an operator
        lowers the rate."""
        if self.num_requests and len(self.history) >= self.num_requests:
            return max(self.duration - (self.now - self.history[self.num_requests - 1]), 1)
        return super().wait()


class SignInThrottle(ScopeThrottle):
    scope = "sign_in"


class CreateThrottle(ScopeThrottle):
    """Creating matches, challenges, decks, ladders and tournaments."""

    scope = "create"


class ActionThrottle(ScopeThrottle):
    """Actions in matches, per user."""

    scope = "actions"


class ThrottledObtainAuthToken(ObtainAuthToken):
    throttle_classes = [SignInThrottle]
    # DRF's view names its own stock parsers: without this a 1,000-deep JSON body was a RecursionError
    # (a 500) here while every other endpoint answered it with 400 request/too_deep.
    parser_classes = api_settings.DEFAULT_PARSER_CLASSES


class ThrottledLoginView(LoginView):
    """The browsable API's sign-in form, limited like the token endpoint (a Django view: the DRF
    throttle is asked directly)."""

    template_name = "rest_framework/login.html"

    def post(self, request, *args, **kwargs):
        throttle = SignInThrottle()
        if not throttle.allow_request(request, self):
            wait = int(throttle.wait() or 1)
            response = error_response(
                request, 429, "request/throttled", f"Too many sign-ins; retry in {wait} s."
            )
            response["Retry-After"] = str(wait)
            return response
        return super().post(request, *args, **kwargs)


def throttled_on(**throttles: type[ScopeThrottle]):
    """A viewset's `get_throttles`: each named action (`create=CreateThrottle`) with its throttle,
    the others with none."""

    def get_throttles(view):
        throttle = throttles.get(getattr(view, "action", None) or "")
        return [throttle()] if throttle is not None else []

    return get_throttles
