"""Saved decks in the admin: browsed by owner; a version is a record of a check and never changes."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Count

from core.admin import ReadOnlyAdmin, ReadOnlyInline
from decks.models import BanList, Deck, DeckVersion


class DeckVersionInline(ReadOnlyInline):
    model = DeckVersion
    fields = ("number", "format", "catalogue_version", "legal", "frozen_at", "frozen_for", "created_at")


@admin.register(Deck)
class DeckAdmin(ReadOnlyAdmin):
    list_display = ("share_id", "name", "owner", "game", "version_count", "updated_at")
    list_filter = ("game", "updated_at")
    search_fields = ("share_id", "name", "owner__username")
    list_select_related = ("owner",)
    fields = ("share_id", "name", "owner", "game", "created_at", "updated_at")
    readonly_fields = fields
    inlines = [DeckVersionInline]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(version_total=Count("versions"))

    @admin.display(description="versions", ordering="version_total")
    def version_count(self, deck: Deck) -> int:
        return deck.version_total


@admin.register(DeckVersion)
class DeckVersionAdmin(ReadOnlyAdmin):
    list_display = ("deck", "number", "format", "legal", "frozen_at", "created_at")
    list_filter = ("legal", "format", "catalogue_version")
    search_fields = ("deck__share_id", "deck__owner__username")
    list_select_related = ("deck",)
    readonly_fields = (
        "deck",
        "number",
        "format",
        "catalogue_version",
        "gunslinger",
        "cards",
        "source_text",
        "legal",
        "violations",
        "ban_list_version",
        "frozen_at",
        "frozen_for",
        "created_at",
    )


@admin.register(BanList)
class BanListAdmin(ReadOnlyAdmin):
    """Published through the API (`POST /api/ragnguns/formats/{key}/ban-lists/`), never edited."""

    list_display = ("format", "version", "effective_at", "published_by", "applied_at")
    list_filter = ("format",)
    search_fields = ("version", "notes")
    list_select_related = ("published_by",)
    readonly_fields = (
        "format",
        "version",
        "effective_at",
        "banned",
        "restricted",
        "max_restricted",
        "notes",
        "published_by",
        "published_at",
        "applied_at",
    )
