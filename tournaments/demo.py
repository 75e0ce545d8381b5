"""Demo data for a newcomer's first run: an organiser account, a rival, and a few Rat-Snake matches."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction
from rest_framework.authtoken.models import Token

from tournaments.models import Match
from tournaments.services import SeatSpec, match_create

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "snakepit-demo"


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
