"""The admin's base for records that only services write: logs, projections, ratings.

Operators browse them; they never add, change or delete one from the admin, because a hand edit
would disagree with the log it was derived from (or, for a log, break it). Writes go through each
app's services, which append events and keep projections in step.
"""

from __future__ import annotations

from django.contrib import admin


class ReadOnlyFields:
    """Every field shown as text, those the database fills in (created_at) included."""

    def get_readonly_fields(self, request, obj=None):
        declared = tuple(super().get_readonly_fields(request, obj))
        fields = tuple(field.name for field in self.model._meta.concrete_fields if field.name not in declared)
        return declared + fields


class NoWrites:
    """No add, change or delete, not even in bulk; the view permission still shows the records."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class ReadOnlyAdmin(NoWrites, ReadOnlyFields, admin.ModelAdmin):
    """Viewable by staff with the view permission; no add, change or delete, not even in bulk."""


class ReadOnlyInline(NoWrites, ReadOnlyFields, admin.TabularInline):
    extra = 0
    show_change_link = True
