from django.contrib import admin

from bots.models import Bot, BotSeat, BotVersion
from core.admin import ReadOnlyAdmin


@admin.register(Bot)
class BotAdmin(ReadOnlyAdmin):
    list_display = ("id", "name", "game", "owner", "created_at")
    search_fields = ("name", "owner__username")


@admin.register(BotVersion)
class BotVersionAdmin(ReadOnlyAdmin):
    list_display = ("id", "bot", "number", "status", "created_at")
    list_filter = ("status",)


@admin.register(BotSeat)
class BotSeatAdmin(ReadOnlyAdmin):
    list_display = ("id", "match", "seat", "version", "moves", "forfeit_reason")
    list_filter = ("forfeit_reason",)
