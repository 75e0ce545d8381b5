"""Slugs for things people name: in any script, never empty, unique."""

from __future__ import annotations

import secrets
from collections.abc import Callable

from django.utils.text import slugify

MAX_SLUG_LENGTH = 50


def slug_for(name: str, *, taken: Callable[[str], bool], prefix: str) -> str:
    """A unique slug from `name`, keeping its letters whatever the script ("Кубок змей" gives
    "кубок-змей"); a name with no letter or digit gets `prefix` and a random tail. A slug already
    taken gets "-2", "-3", ... and, past a few, a random tail."""
    base = (
        slugify(name, allow_unicode=True)[: MAX_SLUG_LENGTH - 9].strip("-_")
        or f"{prefix}-{secrets.token_hex(3)}"
    )
    candidates = [base, *(f"{base}-{number}" for number in range(2, 10))]
    for candidate in candidates:
        if not taken(candidate):
            return candidate
    return f"{base}-{secrets.token_hex(3)}"
