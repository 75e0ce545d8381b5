"""Bounds on what a client may send, one place for all of them: every number fits the database's
32-bit columns, and no count is larger than any game or event needs."""

from __future__ import annotations

from datetime import timedelta

from django.core.exceptions import ValidationError
from django.utils.dateparse import parse_datetime
from django_filters.fields import IsoDateTimeField
from django_filters.filters import IsoDateTimeFilter
from rest_framework import serializers

from core.errors import ApplicationError

INT_MAX = 2**31 - 1  # PostgreSQL `integer`
MAX_SEATS = 64  # more than any game's table (Rat-Snake's ring is the largest, at 8)
MAX_ENTRIES = 100_000  # players in one tournament
MAX_IDEMPOTENCY_KEY = 80  # the column holds 100, with the user's id in front (matches.services)


def query_int(request, name: str, *, minimum: int = 0, maximum: int = INT_MAX) -> int | None:
    """A whole-number query parameter within bounds; None when absent; a 400 otherwise."""
    raw = request.query_params.get(name)
    if raw in (None, ""):
        return None
    if not raw.lstrip("-").isdigit() or len(raw) > 12 or not minimum <= int(raw) <= maximum:
        raise ApplicationError(
            f"{name} is a whole number from {minimum} to {maximum}", code="request/invalid_query"
        )
    return int(raw)


class BoundedIsoDateTimeField(IsoDateTimeField):
    """An ISO 8601 moment whose offset PostgreSQL can store (within ±15:59; Python allows ±23:59)."""

    def to_python(self, value):
        parsed = super().to_python(value)
        given = parse_datetime(value.strip()) if isinstance(value, str) else None
        offset = given.utcoffset() if given is not None else None
        if offset is not None and abs(offset) > timedelta(hours=15, minutes=59):
            raise ValidationError("a time-zone offset is within ±15:59", code="invalid")
        return parsed


class BoundedIsoDateTimeFilter(IsoDateTimeFilter):
    field_class = BoundedIsoDateTimeField


class BoundedDateTimeField(serializers.DateTimeField):
    """A serializer's moment whose time-zone offset PostgreSQL can store (as BoundedIsoDateTimeField)."""

    def to_internal_value(self, value):
        if isinstance(value, str):
            try:
                BoundedIsoDateTimeField().to_python(value)
            except ValidationError as error:
                raise serializers.ValidationError(error.messages) from None
        return super().to_internal_value(value)
