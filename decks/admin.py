"""Saved decks in the admin: browsed by owner; a version is a record of a check and never changes."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Count

from core.admin import ReadOnlyAdmin, ReadOnlyInline
from decks.models import Deck, DeckVersion


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
        "deck", "number", "format", "catalogue_version", "gunslinger", "cards", "source_text", "legal",
        "violations", "frozen_at", "frozen_for", "created_at",
    )
