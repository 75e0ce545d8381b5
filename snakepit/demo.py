"""Demo data for a newcomer's first run: an organiser account, a rival, and a few Rat-Snake matches."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.db import transaction
from rest_framework.authtoken.models import Token

from matches.models import Match
from matches.services import SeatSpec, match_create

OPERATOR_APPS = ("matches", "decks", "tournaments", "ratings")
# What an operator may change in the admin: a ladder's name and schedule. Everything else there is
# a log or a projection of one, written only by the services.
OPERATOR_CHANGES = ("ratings.change_ladder",)

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "snakepit-demo"


def operators_group_ensure() -> Group:
    """The "operators" group: view every record of the service's apps in the admin, change ladders."""
    group, _ = Group.objects.get_or_create(name="operators")
    viewing = Permission.objects.filter(content_type__app_label__in=OPERATOR_APPS, codename__startswith="view_")
    changing = [
        Permission.objects.get(content_type__app_label=label, codename=codename)
        for label, codename in (name.split(".") for name in OPERATOR_CHANGES)
    ]
    group.permissions.add(*viewing, *changing)
    return group


@transaction.atomic
def demo_data_ensure(*, with_matches: bool = True) -> tuple[object, str]:
    """Create the demo organiser (staff, so the admin opens too) and demo matches once; return the
    organiser and their API token."""
    users = get_user_model()
    organiser, created = users.objects.get_or_create(
        username=DEMO_USERNAME, defaults={"is_staff": True, "email": "demo@snakepit.invalid"}
    )
    if created:
        organiser.set_password(DEMO_PASSWORD)
        organiser.save()
    rival, created = users.objects.get_or_create(username="rival")
    if created:
        rival.set_unusable_password()
        rival.save()
    organiser.groups.add(operators_group_ensure())
    token, _ = Token.objects.get_or_create(user=organiser)
    if with_matches and not Match.objects.exists():
        match_create(
            game_key="rat-snake",
            seats=[SeatSpec(bot="heuristic"), SeatSpec(bot="random"), SeatSpec(bot="heuristic")],
            options={"passes": 1},
            created_by=organiser,
            bots_play="now",
        )
        match_create(
            game_key="rat-snake",
            seats=[SeatSpec(user=organiser), SeatSpec(bot="heuristic")],
            created_by=organiser,
        )
    return organiser, token.key
