"""The secret key must be this deployment's own: `manage.py check --deploy` fails on a weak one, and
the web server (snakepit/wsgi.py, snakepit/asgi.py) refuses to start on one unless DEBUG is on.

Django's own security.W009 only warns; a key copied from the deploy examples signs anyone's session
cookie (so anyone signs in as anyone), hence an error. Commands that sign nothing (collectstatic in
deploy/Dockerfile with DJANGO_SECRET_KEY=build-only, migrate) are left alone."""

from __future__ import annotations

from django.conf import settings
from django.core import checks
from django.core.exceptions import ImproperlyConfigured

SECRET_KEY_LENGTH_AT_LEAST = 50  # as Django's security.W009
# The value the deploy examples (deploy/*.env.example, deploy/kubernetes/secret.example.yaml) ship
# with: published, so no secret (tests/test_settings.py keeps this list and the examples in step).
PUBLISHED_SECRET_KEYS = frozenset({"change-me-to-a-long-random-string"})


def secret_key_weakness(key: str) -> str | None:
    """Why `key` is no secret, or None."""
    if key in PUBLISHED_SECRET_KEYS:
        return "DJANGO_SECRET_KEY is the deploy example's, which is published"
    if len(key) < SECRET_KEY_LENGTH_AT_LEAST:
        return (
            f"DJANGO_SECRET_KEY has {len(key)} characters; at least {SECRET_KEY_LENGTH_AT_LEAST} are needed"
        )
    return None


@checks.register(checks.Tags.security, deploy=True)
def secret_key_check(app_configs, **kwargs) -> list[checks.CheckMessage]:
    weakness = secret_key_weakness(settings.SECRET_KEY)
    if weakness is None:
        return []
    return [
        checks.Error(
            weakness,
            hint="Set a long random one, e.g. python -c 'import secrets; print(secrets.token_urlsafe(50))'"
            " (deploy/README.md), or leave it unset for a key kept in var/secret_key.",
            id="snakepit.E001",
        )
    ]


def refuse_a_weak_secret_key() -> None:
    """Called as the web application is built: no serving with a key anyone can read, unless DEBUG."""
    weakness = secret_key_weakness(settings.SECRET_KEY)
    if weakness is not None and not settings.DEBUG:
        raise ImproperlyConfigured(f"{weakness}: the server refuses to start (manage.py check --deploy)")
