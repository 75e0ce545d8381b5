"""Uploaded bots on a real Celery worker process: a good version passes its validation, a crashing
one fails with its log, and the worker lives on to judge the next; passed versions entered on a
ladder through the API have their rounds played and rated by the worker."""

from __future__ import annotations

import os
import random

import pytest
from django.contrib.auth import get_user_model

from bots.models import BotVersion
from bots.services import bot_version_upload
from bots.tasks import bot_version_validate
from ratings import services as ladders
from ratings.models import LadderEntry, RatedMatch
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


def test_uploaded_bots_join_a_ladder_through_the_api_and_a_worker_plays_and_rates_their_rounds(
    tmp_path, client_for
):
    ladder = ladders.ladder_create(game_key="rat-snake", name="Duel", slug="duel", seats_per_match=2)
    authors = [get_user_model().objects.create_user(username=name) for name in ("ann", "ben")]
    log = tmp_path / "worker.log"
    with private_broker(tmp_path) as env, celery_process("worker", env, log):
        bots = []
        for author in authors:
            client = client_for(author)
            answer = client.post(
                "/api/bots/",
                {"name": "rando", "game": "rat-snake", "source": program("random_bot")},
                format="json",
            )
            assert answer.status_code == 201, answer.json()
            bots.append((client, answer.json()["bot"]))
        wait_until(
            lambda: BotVersion.objects.filter(status=BotVersion.Status.PASSED).count() == 2,
            timeout=120,
            what="the worker to pass both uploads",
            log=log,
        )
        for client, bot_id in bots:
            joined = client.post(
                f"/api/bots/{bot_id}/ladders/", {"ladder": "duel", "version": 1}, format="json"
            )
            assert joined.status_code == 201, joined.json()
        for number in range(1, 3):
            assert (
                len(ladders.ladder_round_create(ladder_id=ladder.pk, rng=random.Random(number)).matches) == 1
            )
            wait_until(
                lambda number=number: RatedMatch.objects.filter(ladder=ladder).count() == number,
                timeout=120,
                what=f"the worker to play and rate round {number}",
                log=log,
            )
    assert sorted(LadderEntry.objects.filter(ladder=ladder).values_list("games", flat=True)) == [2, 2]
    assert all(entry.bot_version_id for entry in LadderEntry.objects.filter(ladder=ladder))
