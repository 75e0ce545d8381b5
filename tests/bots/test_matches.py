"""Uploaded bots play matches on the worker: a version's validation match against itself, and a
forfeit with its reason in the log for each way a bot can misbehave."""

from __future__ import annotations

import socket

import pytest
from django.contrib.auth import get_user_model

from bots.models import BotSeat, BotVersion
from bots.selectors import bot_stats
from bots.services import bot_match_create, bot_match_play, bot_version_upload, bot_version_validate
from core.errors import Rejected
from matches.models import MatchEvent
from tests.bots.conftest import program

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.usefixtures("root_worker"),
]
GAME = "rat-snake"


@pytest.fixture
def author():
    return get_user_model().objects.create_user(username="author", password="x")


def upload(author, name: str, source: str) -> BotVersion:
    return bot_version_upload(owner=author, name=name, game_key=GAME, source=source)


def test_a_random_bot_passes_validation_and_its_stats_count_the_match(author, bot_settings):
    version = bot_version_validate(version_id=upload(author, "rando", program("random_bot")).pk)
    assert version.status == BotVersion.Status.PASSED, version.log
    match = version.validation_match
    assert match.is_finished
    assert not match.events.filter(kind=MatchEvent.Kind.FORFEIT).exists()
    stats = bot_stats(bot=version.bot)
    assert stats["games"] == 1 and stats["forfeits"] == {}
    assert stats["moves"] == sum(BotSeat.objects.filter(match=match).values_list("moves", flat=True)) > 0
    assert stats["average_move_ms"] is not None and stats["average_move_ms"] < 1000


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("infinite_loop", "timeout"),
        ("memory_bomb", "crash"),
        ("fork_bomb", "timeout"),
        ("garbage", "garbage"),
        ("illegal", "illegal_action"),
        ("crash", "crash"),
        ("flood", "flood"),
    ],
)
def test_a_misbehaving_bot_fails_validation_by_forfeit_with_its_reason(author, bot_settings, name, reason):
    version = bot_version_validate(version_id=upload(author, name.replace("_", "-"), program(name)).pk)
    assert version.status == BotVersion.Status.FAILED
    assert f"forfeit: {reason}" in version.log
    forfeit = version.validation_match.events.filter(kind=MatchEvent.Kind.FORFEIT).order_by("seq").first()
    assert forfeit.payload["reason"].startswith(f"bot/{reason}: ")
    assert bot_stats(bot=version.bot)["forfeits"] == {reason: 1}


def test_a_bot_that_reaches_for_the_network_forfeits_and_reaches_nothing(author, bot_settings):
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.settimeout(0.2)
        source = program("network", PORT=str(listener.getsockname()[1]))
        version = bot_version_validate(version_id=upload(author, "caller", source).pk)
        with pytest.raises(TimeoutError):
            listener.accept()
    assert version.status == BotVersion.Status.FAILED
    assert "forfeit: network: snakepit: the bot reached for the network (socket.getaddrinfo" in version.log
    forfeit = version.validation_match.events.get(kind=MatchEvent.Kind.FORFEIT)
    assert forfeit.payload["reason"].startswith("bot/network: ")
    assert bot_stats(bot=version.bot)["forfeits"] == {"network": 1}


def test_a_good_bot_beats_a_crashing_one_by_forfeit_and_the_match_finishes(author, bot_settings):
    good = upload(author, "good", program("random_bot"))
    bad = upload(author, "bad", program("crash"))
    with pytest.raises(Rejected) as refused:
        bot_match_create(versions=[good, bad])
    assert refused.value.code == "bot/not_validated"
    BotVersion.objects.filter(pk__in=[good.pk, bad.pk]).update(status=BotVersion.Status.PASSED)
    good.refresh_from_db()
    bad.refresh_from_db()
    match = bot_match_play(match_id=bot_match_create(versions=[good, bad]).pk)
    assert match.is_finished
    assert match.outcome["ranks"][0] < match.outcome["ranks"][1]
    seats = {row.seat: row for row in BotSeat.objects.filter(match=match)}
    assert seats[0].forfeit_reason == "" and seats[1].forfeit_reason == "crash"
    assert "the bot fell over" in seats[1].log


def test_a_second_player_of_the_same_match_leaves_it_alone(author, bot_settings):
    from django.core.cache import cache

    version = upload(author, "rando", program("random_bot"))
    BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.PASSED)
    version.refresh_from_db()
    match = bot_match_create(versions=[version, version])
    head = match.events.count()
    cache.add(f"snakepit/bots/playing/{match.pk}", "another worker", timeout=60)
    try:
        assert not bot_match_play(match_id=match.pk).is_finished
        assert match.events.count() == head
    finally:
        cache.delete(f"snakepit/bots/playing/{match.pk}")
    assert bot_match_play(match_id=match.pk).is_finished


def test_the_sweep_resumes_lost_validations_and_stalled_bot_matches(author, bot_settings, eager_celery):
    from datetime import timedelta

    from django.utils import timezone

    from bots.tasks import bots_resume_stalled

    lost = upload(author, "lost", program("random_bot"))  # its validation task never ran
    played = upload(author, "played", program("random_bot"))
    BotVersion.objects.filter(pk=played.pk).update(status=BotVersion.Status.PASSED)
    played.refresh_from_db()
    stalled = bot_match_create(versions=[played, played])  # its play task was lost
    assert bots_resume_stalled(now=timezone.now()) == {"versions": [], "matches": []}  # not yet overdue
    resumed = bots_resume_stalled(now=timezone.now() + timedelta(hours=1))
    assert resumed["versions"] == [lost.pk] and stalled.pk in resumed["matches"]
    lost.refresh_from_db()
    stalled.refresh_from_db()
    assert lost.status == BotVersion.Status.PASSED and stalled.is_finished
