"""An uploaded bot's flows: its upload queues the validation match only once the upload committed,
and only a version that passed enters a ladder, through its owner or staff."""

from __future__ import annotations

import pytest

from bots.services import bot_version_validate
from core.errors import ApplicationError
from flows.bot_ladder_entry import bot_version_enter_ladder
from flows.bot_upload import bot_version_submit
from ratings.models import LadderEntry
from ratings.services import ladder_create
from tests.bots.conftest import program

pytestmark = pytest.mark.django_db


@pytest.fixture
def queued(monkeypatch):
    sent = []

    class Task:
        @staticmethod
        def delay(version_id):
            sent.append(version_id)

    monkeypatch.setattr("flows.bot_upload.bot_version_validate", Task)
    return sent


def test_the_validation_is_queued_once_the_upload_commits_and_a_refused_upload_queues_none(
    users, queued, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        version = bot_version_submit(
            owner=users["alice"], name="rando", game_key="rat-snake", source=program("random_bot")
        )
        assert queued == []  # not before the commit: the worker would not find the version
    assert queued == [version.pk]
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(ApplicationError):
        bot_version_submit(owner=users["alice"], name="rando", game_key="no-such-game", source="x = 1")
    assert queued == [version.pk]


@pytest.mark.usefixtures("root_worker")
def test_only_a_passed_version_enters_a_ladder_and_only_for_its_owner_or_staff(users, queued):
    ladder = ladder_create(game_key="rat-snake", name="Duel", slug="duel", seats_per_match=2)
    version = bot_version_submit(
        owner=users["alice"], name="rando", game_key="rat-snake", source=program("random_bot")
    )
    enter = dict(bot=version.bot, number=version.number, ladder_slug=ladder.slug, replace=False)
    with pytest.raises(ApplicationError) as refused:
        bot_version_enter_ladder(user=users["alice"], **enter)
    assert refused.value.code == "bot/not_validated"
    assert bot_version_validate(version_id=version.pk).status == "passed"
    with pytest.raises(ApplicationError) as refused:
        bot_version_enter_ladder(user=users["bob"], **enter)
    assert refused.value.code == "bot/not_owner" and not LadderEntry.objects.exists()
    entry = bot_version_enter_ladder(user=users["alice"], **enter)
    assert (entry.ladder, entry.bot_version_id, entry.user) == (ladder, version.pk, version.bot.account)
