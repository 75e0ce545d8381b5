"""Ladders in the admin. A ladder's schedule (active, round interval, deadlines) and name are an
operator's to change, and the beat entry follows at once; ratings are written only by the rating
service, exactly once per match, so entries, rounds and rating history are read-only."""

from __future__ import annotations

from django.contrib import admin

from core.admin import ReadOnlyAdmin, ReadOnlyInline
from matches.admin import match_list_filter_add
from ratings.models import (
    Ladder,
    LadderEntry,
    LadderMatch,
    LadderRound,
    LadderSeason,
    RatedMatch,
    RatingChange,
)
from ratings.services import ladder_schedule_sync

LADDER_OPERATOR_FIELDS = (
    "name",
    "is_active",
    "round_interval_seconds",
    "move_deadline_seconds",
    "match_deadline_seconds",
)


@admin.register(Ladder)
class LadderAdmin(admin.ModelAdmin):
    list_display = (
        "slug",
        "name",
        "game",
        "seats_per_match",
        "season",
        "is_active",
        "round_interval_seconds",
    )
    list_filter = ("game", "is_active", "rating_model", "entry_policy")
    search_fields = ("slug", "name")
    fields = (
        "slug",
        "game",
        "options",
        "seats_per_match",
        "rating_model",
        "entry_policy",
        "season",
        "season_started_at",
        "season_ends_at",
        "season_length_days",
        "carry_over",
        "provisional_sigma",
        "inactive_after_days",
        "no_show_limit",
        "archived_at",
        "created_by",
        "created_at",
        *LADDER_OPERATOR_FIELDS,
    )
    readonly_fields = tuple(field for field in fields if field not in LADDER_OPERATOR_FIELDS)

    def has_add_permission(self, request) -> bool:
        return False  # a ladder is set up through the API or `ladder_create`, which checks the game

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # its matches and rating history stay; pause it with "is active" instead

    def save_model(self, request, obj, form, change) -> None:
        super().save_model(request, obj, form, change)
        ladder_schedule_sync(obj)


@admin.register(LadderEntry)
class LadderEntryAdmin(ReadOnlyAdmin):
    list_display = (
        "ladder",
        "label",
        "ordinal",
        "mu",
        "sigma",
        "games",
        "season",
        "last_played_at",
        "paused_reason",
        "no_shows",
        "joined_at",
        "left_at",
    )
    list_filter = ("ladder", "ladder__game", "paused_reason")
    search_fields = ("user__username", "bot", "ladder__slug")
    list_select_related = ("ladder", "user")
    ordering = ("ladder", "-ordinal")


class LadderMatchInline(ReadOnlyInline):
    model = LadderMatch
    fields = ("match", "entries")


@admin.register(LadderRound)
class LadderRoundAdmin(ReadOnlyAdmin):
    list_display = ("ladder", "season", "number", "created_at")
    list_filter = ("ladder",)
    list_select_related = ("ladder",)
    inlines = [LadderMatchInline]


@admin.register(LadderMatch)
class LadderMatchAdmin(ReadOnlyAdmin):
    list_display = ("match", "round", "match_status", "rated")
    list_filter = ("round__ladder", "match__status", "rated")
    search_fields = ("=match__id",)
    list_select_related = ("match", "round__ladder")

    @admin.display(description="status", ordering="match__status")
    def match_status(self, ladder_match: LadderMatch) -> str:
        return ladder_match.match.status


class RatingChangeInline(ReadOnlyInline):
    model = RatingChange
    fields = (
        "entry",
        "rank",
        "ordinal_before",
        "ordinal_after",
        "mu_before",
        "mu_after",
        "sigma_before",
        "sigma_after",
    )


@admin.register(RatedMatch)
class RatedMatchAdmin(ReadOnlyAdmin):
    list_display = ("match", "ladder", "season", "rated_at")
    list_filter = ("ladder", "season")
    search_fields = ("=match__id",)
    list_select_related = ("match", "ladder")
    inlines = [RatingChangeInline]


@admin.register(RatingChange)
class RatingChangeAdmin(ReadOnlyAdmin):
    list_display = ("entry", "rated_match", "rank", "ordinal_before", "ordinal_after")
    list_filter = ("rated_match__ladder",)
    search_fields = ("entry__user__username", "entry__bot")
    list_select_related = ("entry__user", "entry__ladder", "rated_match__match")


@admin.register(LadderSeason)
class LadderSeasonAdmin(ReadOnlyAdmin):
    list_display = ("ladder", "number", "started_at", "ended_at")
    list_filter = ("ladder",)
    list_select_related = ("ladder",)


match_list_filter_add(("ladder_match__round__ladder", admin.RelatedOnlyFieldListFilter))
