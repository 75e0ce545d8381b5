"""What one user may have going at once (`SNAKEPIT_QUOTAS`): staff and the service itself (no
user) are exempt. Each app counts its own things and asks here."""

from __future__ import annotations

from django.conf import settings

from core.errors import ApplicationError


class OverQuota(ApplicationError):
    status = 403
    code = "quota/exceeded"


def quota_exempt(user) -> bool:
    return user is None or getattr(user, "is_staff", False)


def quota_check(user, *, name: str, current: int, what: str) -> None:
    """Refuse one more of `what` when `user` already has their quota `name` of them."""
    if quota_exempt(user):
        return
    allowed = settings.SNAKEPIT_QUOTAS[name]
    if current >= allowed:
        raise OverQuota(
            f"you have {current} {what}; the most one user may have is {allowed}", code=f"quota/{name}"
        )
