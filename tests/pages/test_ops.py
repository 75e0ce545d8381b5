"""The operations page, server side: staff only; its numbers (matches in progress and stalled, queue
depth, failed tasks, bot forfeits, events and ratings per minute, the last checks) read from what the
service holds; its actions (pause a ladder, void a match, queue the checks) go through the services."""

from __future__ import annotations

import io
import uuid
from datetime import timedelta

import pytest
from celery import shared_task
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from matches.models import Match, MatchEvent
from matches.services import SeatSpec, match_create, match_forfeit
from ratings.models import Ladder
from ratings.services import ladder_create
from snakepit.pages import ops_records
from snakepit.pages.ops import bot_forfeits_by_reason, ladder_matches_overdue, per_minute, queue_depth

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def own_ops_cache(settings):
    """Each test its own record store (the real one is shared by every process of a deployment)."""
    settings.CACHES = {
        **settings.CACHES,
        "ops": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"ops-{uuid.uuid4()}",
        },
    }


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user("operator", password="operator-password", is_staff=True)


def test_only_staff_see_the_page_or_act(client, users, staff):
    match = match_create(game_key="rat-snake", seats=[SeatSpec(user=users["alice"]), SeatSpec(bot="random")])
    assert client.get("/ops/")["Location"].startswith("/accounts/sign-in/?next=/ops/")
    client.force_login(users["alice"])
    refused = client.get("/ops/")
    assert refused.status_code == 403 and "Staff only" in refused.content.decode()
    assert "running-count" not in refused.content.decode()
    assert client.post("/ops/matches/void/", {"match": match.pk, "reason": "mine now"}).status_code == 403
    assert client.post("/ops/checks/").status_code == 403
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING
    client.force_login(staff)
    assert client.get("/ops/").status_code == 200
    assert client.get("/ops/matches/void/").status_code == 405  # actions are POSTs


def test_the_admin_index_links_to_the_page(client, staff):
    client.force_login(staff)
    assert 'href="/ops/"' in client.get("/admin/").content.decode()


def test_running_and_stalled_matches_are_counted(client, users, staff):
    waiting_on_alice = match_create(
        game_key="rat-snake", seats=[SeatSpec(user=users["alice"]), SeatSpec(bot="random")]
    )
    bots_only = match_create(
        game_key="rat-snake", seats=[SeatSpec(bot="random"), SeatSpec(bot="random")], bots_play="caller"
    )
    finished = match_create(game_key="rat-snake", seats=[SeatSpec(user=users["bob"]), SeatSpec(bot="random")])
    match_forfeit(match_id=finished.pk, seat=0, reason="resigned", user=users["bob"])
    # Nothing has been appended to the bots' match since it was made: a worker died on it.
    Match.objects.filter(pk=bots_only.pk).update(created_at=timezone.now() - timedelta(hours=1))
    client.force_login(staff)
    html = client.get("/ops/").content.decode()
    assert '<span id="running-count">2</span>' in html
    assert f'data-match="{waiting_on_alice.pk}"' in html and f'data-match="{finished.pk}"' not in html
    assert f"matches {bots_only.pk} " in html and "1 stalled" in html


def test_bot_forfeits_are_counted_by_reason_and_people_s_are_not(users):
    for reason in ("timeout", "timeout", "illegal action"):
        match = match_create(
            game_key="rat-snake", seats=[SeatSpec(user=users["alice"]), SeatSpec(bot="random")]
        )
        match_forfeit(match_id=match.pk, seat=1, reason=reason)
    person = match_create(game_key="rat-snake", seats=[SeatSpec(user=users["bob"]), SeatSpec(bot="random")])
    match_forfeit(match_id=person.pk, seat=0, reason="resigned", user=users["bob"])
    assert bot_forfeits_by_reason() == [
        {"reason": "timeout", "count": 2},
        {"reason": "illegal action", "count": 1},
    ]


def test_events_per_minute_count_each_window(users):
    match = match_create(game_key="rat-snake", seats=[SeatSpec(user=users["alice"]), SeatSpec(bot="random")])
    now = timezone.now()
    appended = MatchEvent.objects.filter(match=match).count()
    assert appended > 0
    rates = per_minute(MatchEvent.objects.all(), "created_at", now=now + timedelta(seconds=1))
    assert [window["count"] for window in rates["windows"]] == [appended] * 4
    assert rates["windows"][1]["rate"] == round(appended / 5, 1)
    assert sum(point["count"] for point in rates["series"]) == appended
    later = per_minute(MatchEvent.objects.all(), "created_at", now=now + timedelta(minutes=2))
    assert later["windows"][0]["count"] == 0 and later["windows"][1]["count"] == appended


def test_queue_depth_counts_the_filesystem_brokers_waiting_messages(settings, tmp_path):
    settings.CELERY_BROKER_URL = "filesystem://"
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {"data_folder_in": str(tmp_path)}
    for index in range(3):
        (tmp_path / f"{index}.msg").write_text("{}")
    assert queue_depth()["queues"] == {"celery": 3}


def test_queue_depth_of_an_unreachable_redis_is_said_not_raised(settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"
    depth = queue_depth()
    assert depth["queues"] == {} and "ConnectionError" in depth["error"]


@shared_task
def _always_fails():
    raise RuntimeError("the disk is on fire")


def test_a_failed_task_is_recorded_by_the_celery_signal_and_shown(client, staff, eager_celery, settings):
    settings.CELERY_TASK_EAGER_PROPAGATES = False
    from snakepit.celery import app

    app.conf.task_eager_propagates = False
    try:
        _always_fails.delay()
        _always_fails.delay()
    finally:
        app.conf.task_eager_propagates = True
    count, failures = ops_records.task_failures()
    assert count == 2 and failures[0]["error"] == "RuntimeError: the disk is on fire"
    assert failures[0]["task"].endswith("_always_fails")
    client.force_login(staff)
    html = client.get("/ops/").content.decode()
    assert '<strong id="failure-count">2</strong>' in html and "the disk is on fire" in html


def test_the_checks_record_their_answer_when_they_run_anywhere(client, staff, users):
    match_create(game_key="rat-snake", seats=[SeatSpec(user=users["alice"]), SeatSpec(bot="random")])
    client.force_login(staff)
    assert (
        'data-check="replay_matches"><td><code>replay_matches</code></td>'
        '\n          <td><span class="muted">not run yet' in client.get("/ops/").content.decode()
    )
    call_command("replay_matches", stdout=io.StringIO(), stderr=io.StringIO())
    [replayed, tournaments, ratings] = ops_records.check_results()
    assert replayed["ok"] is True and replayed["summary"].startswith("1 match(es) replayed")
    assert tournaments["ok"] is None and ratings["ok"] is None
    # A disagreement is recorded too, with its lines, and the command still fails.
    Match.objects.update(outcome={"ranks": [1, 2], "scores": [0, 0], "reason": "made up"})
    with pytest.raises(CommandError):
        call_command("replay_matches", stdout=io.StringIO(), stderr=io.StringIO())
    replayed = ops_records.check_results()[0]
    assert replayed["ok"] is False and "stored outcome" in replayed["problems"][0]
    assert "differs" in client.get("/ops/").content.decode()


def test_queueing_the_checks_runs_them_on_a_worker(
    client, staff, eager_celery, django_capture_on_commit_callbacks
):
    client.force_login(staff)
    response = client.post("/ops/checks/", {"check": ""})
    assert response.status_code == 302
    assert [result["ok"] for result in ops_records.check_results()] == [True, True, True]
    assert ops_records.checks_queued()["by"] == "operator"
    assert client.post("/ops/checks/", {"check": "drop_tables"}).status_code == 302
    assert "no such check" in client.get("/ops/").content.decode()


def test_staff_void_a_match_as_an_event_and_pause_a_ladder(client, users, staff):
    match = match_create(game_key="rat-snake", seats=[SeatSpec(user=users["alice"]), SeatSpec(bot="random")])
    events = MatchEvent.objects.filter(match=match).count()
    ladder = ladder_create(game_key="rat-snake", name="Open", created_by=users["carol"])
    client.force_login(staff)
    assert client.post("/ops/matches/void/", {"match": match.pk, "reason": ""}).status_code == 302
    assert "reason" in client.get("/ops/").content.decode()
    client.post("/ops/matches/void/", {"match": match.pk, "reason": "a cheat found"})
    match.refresh_from_db()
    void = MatchEvent.objects.filter(match=match).order_by("-seq").first()
    assert (
        match.status == Match.Status.VOIDED
        and void.kind == "void"
        and void.payload == {"reason": "a cheat found"}
    )
    assert MatchEvent.objects.filter(match=match).count() == events + 1  # nothing deleted, one event more
    again = client.post("/ops/matches/void/", {"match": match.pk, "reason": "twice"}, follow=True)
    assert "match/voided" in again.content.decode()
    assert MatchEvent.objects.filter(match=match).count() == events + 1
    assert client.post("/ops/matches/void/", {"match": 10**12, "reason": "x"}).status_code == 302
    client.post(f"/ops/ladders/{ladder.pk}/pause/")
    assert Ladder.objects.get(pk=ladder.pk).is_active is False
    client.post(f"/ops/ladders/{ladder.pk}/pause/", {"resume": "1"})
    assert Ladder.objects.get(pk=ladder.pk).is_active is True
    assert client.post("/ops/ladders/999999/pause/", follow=True).status_code == 200


def test_ladder_matches_past_their_deadline_are_flagged(client, users, staff):
    import random

    from ratings.rounds import ladder_round_create
    from ratings.services import ladder_join

    ladder = ladder_create(game_key="rat-snake", name="Quick", created_by=users["carol"])
    ladder_join(ladder=ladder, user=users["alice"])
    ladder_join(ladder=ladder, user=users["bob"])
    ladder_round_create(ladder_id=ladder.pk, rng=random.Random(1))
    match = Match.objects.get(ladder_match__isnull=False)
    last = MatchEvent.objects.filter(match=match).order_by("-seq").first()
    since = last.created_at if last else match.created_at
    move, whole = ladder.move_deadline_seconds, ladder.match_deadline_seconds
    assert ladder_matches_overdue(now=since + timedelta(seconds=move - 1)) == {}
    assert ladder_matches_overdue(now=since + timedelta(seconds=move + 1)) == {
        match.pk: f"past Quick's move deadline ({move} s)"
    }
    assert ladder_matches_overdue(now=match.created_at + timedelta(seconds=whole + 1)) == {
        match.pk: f"past Quick's match deadline ({whole} s)"
    }
    client.force_login(staff)
    assert "past a ladder deadline" not in client.get("/ops/").content.decode()
    Ladder.objects.filter(pk=ladder.pk).update(move_deadline_seconds=0)
    html = client.get("/ops/").content.decode()
    assert "1 past a ladder deadline" in html and "past Quick&#x27;s move deadline (0 s)" in html
