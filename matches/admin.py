"""Matches in the admin: browsed, never edited. A match is its log; its seed is secret until it ends.

Apps above the store add their own filters to the match list (`match_list_filter_add`): the ladder
or tournament a match belongs to is their knowledge, not the store's.
"""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Count
from django.urls import reverse
from django.utils.html import format_html

from core.admin import ReadOnlyAdmin, ReadOnlyInline
from matches.models import Challenge, ChallengeSeat, Match, MatchEvent, MatchSeat

HIDDEN = "(hidden until the match ends)"


class MatchSeatInline(ReadOnlyInline):
    model = MatchSeat
    fields = ("index", "user", "bot")
    show_change_link = False


@admin.register(Match)
class MatchAdmin(ReadOnlyAdmin):
    list_display = ("id", "game", "status", "players", "event_count", "created_at", "finished_at")
    list_filter = ("game", "status", "created_at")
    search_fields = ("=id", "seats__user__username", "seats__bot")
    date_hierarchy = "created_at"
    fields = (
        "game",
        "engine_version",
        "status",
        "options",
        "outcome",
        "seed_commitment",
        "revealed_seed",
        "entropy",
        "created_by",
        "created_at",
        "finished_at",
        "event_log",
    )
    readonly_fields = fields
    inlines = [MatchSeatInline]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .prefetch_related("seats__user")
            .annotate(event_total=Count("events"))
        )

    @admin.display(description="seats")
    def players(self, match: Match) -> str:
        return ", ".join(seat.label for seat in match.seats.all())

    @admin.display(description="events", ordering="event_total")
    def event_count(self, match: Match) -> int:
        return match.event_total

    @admin.display(description="seed")
    def revealed_seed(self, match: Match) -> str:
        # As in the API: the seed decides every future roll, so nobody reads it while the match runs.
        return bytes(match.seed).hex() if match.is_over else HIDDEN

    @admin.display(description="event log")
    def event_log(self, match: Match) -> str:
        url = reverse("admin:matches_matchevent_changelist") + f"?match__id__exact={match.pk}"
        return format_html('<a href="{}">{} events</a>', url, match.event_total)


def match_list_filter_add(*filters) -> None:
    """Let an app that knows more about matches (a ladder, a tournament) filter the match list by it."""
    MatchAdmin.list_filter = (*MatchAdmin.list_filter, *filters)


@admin.register(MatchSeat)
class MatchSeatAdmin(ReadOnlyAdmin):
    """Who played where: find every match of a user or a bot."""

    list_display = ("match", "index", "user", "bot")
    list_filter = ("bot", "match__game", "match__status")
    search_fields = ("user__username", "bot", "=match__id")
    list_select_related = ("match", "user")


@admin.register(MatchEvent)
class MatchEventAdmin(ReadOnlyAdmin):
    """The append-only log. The database refuses UPDATE and DELETE as well; the admin never offers them."""

    list_display = ("match", "seq", "kind", "seat", "actor", "created_at")
    list_filter = ("kind", "match__game")
    search_fields = ("=match__id",)
    list_select_related = ("match", "actor")
    fields = (
        "match",
        "seq",
        "kind",
        "seat",
        "visible_payload",
        "schema_version",
        "actor",
        "idempotency_key",
        "created_at",
    )
    readonly_fields = fields

    @admin.display(description="payload")
    def visible_payload(self, event: MatchEvent):
        # A running match's payloads may hold hidden information (a hand, a face-down commit); the
        # admin shows the log as the public sees it, whole once the match is over.
        return event.payload if event.match.is_finished else HIDDEN


class ChallengeSeatInline(ReadOnlyInline):
    model = ChallengeSeat
    fields = ("index", "invited_name", "user", "bot", "accepted_at")
    show_change_link = False


@admin.register(Challenge)
class ChallengeAdmin(ReadOnlyAdmin):
    """Invitations to matches: who asked whom, and whether they said yes."""

    list_display = ("id", "game", "created_by", "status", "match", "created_at", "expires_at")
    list_filter = ("game", "status")
    search_fields = ("=id", "created_by__username", "seats__invited_name")
    list_select_related = ("created_by",)
    inlines = [ChallengeSeatInline]


@admin.register(ChallengeSeat)
class ChallengeSeatAdmin(ReadOnlyAdmin):
    list_display = ("challenge", "index", "invited_name", "user", "bot", "accepted_at")
    search_fields = ("invited_name", "user__username", "=challenge__id")
    list_select_related = ("challenge", "user")
