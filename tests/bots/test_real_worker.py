"""Uploaded bots on a real Celery worker process: a good version passes its validation, a crashing
one fails with its log, and the worker lives on to judge the next."""

from __future__ import annotations

import os

import pytest
from django.contrib.auth import get_user_model

from bots.models import BotVersion
from bots.services import bot_version_upload
from bots.tasks import bot_version_validate
from snakepit.processes import celery_process, private_broker
from tests.bots.conftest import program
from tests.workers import wait_until

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(os.geteuid() != 0, reason="the fresh-user-id fence needs a root worker"),
]


def test_a_worker_validates_uploaded_versions_and_survives_a_crashing_one(tmp_path):
    owner = get_user_model().objects.create_user(username="author")
    bad = bot_version_upload(owner=owner, name="faller", game_key="rat-snake", source=program("crash"))
    good = bot_version_upload(owner=owner, name="rando", game_key="rat-snake", source=program("random_bot"))
    log = tmp_path / "worker.log"
    with private_broker(tmp_path) as env, celery_process("worker", env, log):
        bot_version_validate.delay(bad.pk)
        bot_version_validate.delay(good.pk)
        wait_until(
            lambda: not BotVersion.objects.filter(status=BotVersion.Status.VALIDATING).exists(),
            timeout=120,
            what="the worker to judge both versions",
            log=log,
        )
    bad.refresh_from_db()
    good.refresh_from_db()
    assert bad.status == BotVersion.Status.FAILED and "the bot fell over" in bad.log
    assert good.status == BotVersion.Status.PASSED and good.validation_match.is_finished
