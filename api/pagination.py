"""List pagination with bounds: `limit` is capped and `offset` must fit the database's integers."""

from __future__ import annotations

from rest_framework.pagination import LimitOffsetPagination


class BoundedLimitOffsetPagination(LimitOffsetPagination):
    max_limit = 500
    max_offset = 2**31 - 1

    def get_offset(self, request):
        return min(super().get_offset(request), self.max_offset)
