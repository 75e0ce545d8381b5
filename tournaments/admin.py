"""Tournaments in the admin: browsed by status. Every change of a tournament is an event its
services append, so the log, its projections (entries, tables, standings, matches) and the state
snapshots are read-only."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Count

from core.admin import ReadOnlyAdmin, ReadOnlyInline
from matches.admin import match_list_filter_add
from tournaments.models import (
    Tournament,
    TournamentEntry,
    TournamentEvent,
    TournamentMatch,
    TournamentSnapshot,
    TournamentStanding,
    TournamentTable,
    TournamentWebhook,
    TournamentWebhookDelivery,
)


class TournamentEntryInline(ReadOnlyInline):
    model = TournamentEntry
    fields = ("player", "user", "bot", "seed", "status", "deck_version")


@admin.register(Tournament)
class TournamentAdmin(ReadOnlyAdmin):
    list_display = (
        "slug",
        "name",
        "game",
        "format",
        "status",
        "result_mode",
        "entry_count",
        "organiser",
        "created_at",
    )
    list_filter = ("status", "game", "format", "result_mode")
    search_fields = ("slug", "name", "organiser__username")
    list_select_related = ("organiser",)
    date_hierarchy = "created_at"
    readonly_fields = (
        "slug",
        "name",
        "game",
        "format",
        "status",
        "options",
        "config",
        "seats_per_match",
        "result_mode",
        "seeding",
        "seed_commitment",
        "registration_cap",
        "check_in_required",
        "check_in_opens_at",
        "check_in_closes_at",
        "organiser",
        "created_at",
        "started_at",
        "finished_at",
    )
    inlines = [TournamentEntryInline]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(entry_total=Count("entries"))

    @admin.display(description="entries", ordering="entry_total")
    def entry_count(self, tournament: Tournament) -> int:
        return tournament.entry_total


@admin.register(TournamentEvent)
class TournamentEventAdmin(ReadOnlyAdmin):
    """The append-only log; the database refuses UPDATE and DELETE too."""

    list_display = ("tournament", "seq", "kind", "actor", "created_at")
    list_filter = ("kind",)
    search_fields = ("tournament__slug",)
    list_select_related = ("tournament", "actor")
    readonly_fields = ("tournament", "seq", "kind", "payload", "actor", "created_at")


@admin.register(TournamentEntry)
class TournamentEntryAdmin(ReadOnlyAdmin):
    list_display = ("tournament", "player", "user", "bot", "seed", "status")
    list_filter = ("status", "tournament__status")
    search_fields = ("tournament__slug", "user__username", "bot", "player")
    list_select_related = ("tournament", "user")


@admin.register(TournamentTable)
class TournamentTableAdmin(ReadOnlyAdmin):
    list_display = ("tournament", "round", "match_key", "stage", "players", "status", "result")
    list_filter = ("status", "stage")
    search_fields = ("tournament__slug", "match_key")
    list_select_related = ("tournament",)


@admin.register(TournamentStanding)
class TournamentStandingAdmin(ReadOnlyAdmin):
    list_display = ("tournament", "rank", "player")
    search_fields = ("tournament__slug", "player")
    list_select_related = ("tournament",)


@admin.register(TournamentMatch)
class TournamentMatchAdmin(ReadOnlyAdmin):
    list_display = ("tournament", "match_key", "game_number", "match")
    search_fields = ("tournament__slug", "match_key", "=match__id")
    list_select_related = ("tournament", "match")


@admin.register(TournamentSnapshot)
class TournamentSnapshotAdmin(ReadOnlyAdmin):
    """Saved reducer states: their place in the log, not their (large) JSON."""

    list_display = ("tournament", "seq", "version", "created_at")
    search_fields = ("tournament__slug",)
    list_select_related = ("tournament",)
    fields = ("tournament", "seq", "version", "created_at", "size")
    readonly_fields = ("size",)

    def get_queryset(self, request):
        return super().get_queryset(request).defer("state")

    @admin.display(description="state")
    def size(self, snapshot: TournamentSnapshot) -> str:
        state = snapshot.state
        return (
            f"{len(state.get('players', []))} players, {len(state.get('tables', []))} tables (JSON not shown)"
        )


@admin.register(TournamentWebhook)
class TournamentWebhookAdmin(ReadOnlyAdmin):
    """Organisers' webhooks; the signing secret stays out of the admin."""

    list_display = ("tournament", "url", "events", "created_at")
    search_fields = ("tournament__slug", "url")
    list_select_related = ("tournament",)
    fields = ("tournament", "url", "events", "created_at")


@admin.register(TournamentWebhookDelivery)
class TournamentWebhookDeliveryAdmin(ReadOnlyAdmin):
    """What was sent to organisers' webhooks and how it went (the webhooks' secrets are not shown)."""

    list_display = ("webhook", "event", "status", "attempts", "response_status", "last_error", "created_at")
    list_filter = ("status", "event")
    search_fields = ("webhook__tournament__slug", "webhook__url")
    list_select_related = ("webhook",)
    fields = (
        "webhook",
        "event",
        "payload",
        "status",
        "attempts",
        "response_status",
        "last_error",
        "created_at",
        "delivered_at",
    )


match_list_filter_add(("tournament_match__tournament", admin.RelatedOnlyFieldListFilter))
