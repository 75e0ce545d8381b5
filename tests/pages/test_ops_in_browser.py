"""The operations page in a real headless Chromium: staff see it, with numbers that match the store,
and its buttons do what they say; a signed-in person without the staff flag is refused.

Without a `chromium` on the PATH these tests skip on a laptop and fail under CI=true.
"""

from __future__ import annotations

import uuid

import pytest

from matches.models import Match, MatchEvent
from matches.services import SeatSpec, match_create
from ratings.models import Ladder
from ratings.services import ladder_create


@pytest.fixture(autouse=True)
def own_ops_cache(settings):
    settings.CACHES = {
        **settings.CACHES,
        "ops": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"ops-{uuid.uuid4()}",
        },
    }


def sign_in(page, live_server, username, password):
    page.goto(f"{live_server.url}/accounts/sign-in/")
    page.fill("#sign-in input[name=username]", username)
    page.fill("#sign-in input[name=password]", password)
    page.click("#sign-in [type=submit]")
    page.wait_for_selector(f"#who >> text={username}")


def test_staff_see_the_dashboard_and_its_buttons_do_what_they_say(
    page, live_server, transactional_db, users, eager_celery
):
    staff = users["carol"]
    staff.is_staff = True
    staff.save()
    running = match_create(
        game_key="rat-snake", seats=[SeatSpec(user=users["alice"]), SeatSpec(bot="random")]
    )
    match_create(game_key="rattlesnake", seats=[SeatSpec(user=users["bob"]), SeatSpec(bot="random")])
    ladder = ladder_create(game_key="rat-snake", name="Open ladder", created_by=users["alice"])
    sign_in(page, live_server, "carol", "carol-password")
    page.goto(f"{live_server.url}/admin/")
    page.click("#ops-link a")
    assert page.url.endswith("/ops/")
    assert page.inner_text("#running-count") == str(Match.objects.filter(status="running").count()) == "2"
    assert page.locator(f'#running-matches tr[data-match="{running.pk}"]').count() == 1
    events = MatchEvent.objects.count()
    assert int(page.get_attribute("#events-rate td >> nth=3", "data-count")) == events  # the last hour's

    page.locator(f'#ops-ladders tr[data-ladder="{ladder.slug}"] button').click()
    page.wait_for_selector("#ops-messages >> text=paused")
    assert Ladder.objects.get(pk=ladder.pk).is_active is False
    assert "paused" in page.inner_text(f'#ops-ladders tr[data-ladder="{ladder.slug}"]')

    page.fill("#void-match input[name=match]", str(running.pk))
    page.fill("#void-match input[name=reason]", "players reported a bug")
    page.click("#void-match [type=submit]")
    page.wait_for_selector("#ops-messages >> text=voided")
    running.refresh_from_db()
    assert running.status == "voided"
    assert running.events.order_by("-seq").first().kind == "void"
    assert page.inner_text("#running-count") == "1"

    page.click("#checks-run [type=submit]")
    page.wait_for_selector("#ops-messages >> text=Queued")
    for check in ("replay_matches", "rebuild_tournaments", "rebuild_ratings"):
        assert "agrees" in page.inner_text(f'#check-results tr[data-check="{check}"]')


def test_a_signed_in_person_without_the_staff_flag_is_refused(page, live_server, transactional_db, users):
    sign_in(page, live_server, "alice", "alice-password")
    response = page.goto(f"{live_server.url}/ops/")
    assert response.status == 403
    assert page.locator("#ops-refused").count() == 1 and page.locator("#running-count").count() == 0
