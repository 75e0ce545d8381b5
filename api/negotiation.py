"""Content negotiation for list endpoints whose filters include a format of the domain (a deck
format, a tournament format): there `?format=` is the deprecated spelling of that filter, not DRF's
renderer override; the Accept header still chooses the renderer. docs/api.md notes the deprecation."""

from __future__ import annotations

from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.settings import api_settings


class _WithoutFormatOverride:
    URL_FORMAT_OVERRIDE = None

    def __getattr__(self, name):
        return getattr(api_settings, name)


class FormatFilterNegotiation(DefaultContentNegotiation):
    settings = _WithoutFormatOverride()
