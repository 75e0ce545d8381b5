"""Uploaded bots on a real Celery worker process: a good version passes its validation, each kind of
misbehaving one (subprocess and HTTP) fails by forfeit with its reason in the log, and the worker
lives on to judge the next; passed versions entered on a ladder through the API have their rounds
played and rated by the worker."""

from __future__ import annotations

import random
import socket
import threading

import pytest
from django.contrib.auth import get_user_model

from bots.models import BotSeat, BotVersion
from bots.services import bot_version_upload
from bots.tasks import bot_version_validate
from matches.models import MatchEvent
from ratings import services as ladders
from ratings.models import LadderEntry, RatedMatch
from ratings.rounds import ladder_round_create
from snakepit.processes import celery_process, private_broker
from tests.bots.conftest import program
from tests.bots.servers import BotServer
from tests.workers import wait_until

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("root_worker"),
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


# Each misbehaving bot and the forfeit reason its validation match must record on the worker.
MISBEHAVING = {
    "infinite_loop": "timeout",
    "memory_bomb": "crash",
    "fork_bomb": "timeout",
    "network": "network",
    "garbage": "garbage",
    "illegal": "illegal_action",
    "crash": "crash",
    "flood": "flood",
}
HTTP_MISBEHAVING = {"slow": "timeout", "garbage": "garbage", "wrong-signature": "crash"}


def test_every_misbehaving_bot_forfeits_with_its_reason_on_a_real_worker_which_judges_the_next(tmp_path):
    owner = get_user_model().objects.create_user(username="author")
    servers, versions = [], {}
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.settimeout(0.2)
        port = str(listener.getsockname()[1])
        for name in MISBEHAVING:
            source = program(name, PORT=port) if name == "network" else program(name)
            versions[name] = bot_version_upload(
                owner=owner, name=name.replace("_", "-"), game_key="rat-snake", source=source
            )
        outside = tmp_path / "escaped.txt"
        versions["write_outside"] = bot_version_upload(
            owner=owner,
            name="writer",
            game_key="rat-snake",
            source=program("write_outside", OUTSIDE=repr(str(outside))),
        )
        for behaviour in HTTP_MISBEHAVING:
            server = BotServer("good" if behaviour == "wrong-signature" else behaviour)
            threading.Thread(target=server.serve_forever, daemon=True).start()
            servers.append(server)
            version = bot_version_upload(
                owner=owner, name=f"web-{behaviour}", game_key="rat-snake",
                url=f"http://127.0.0.1:{server.server_address[1]}/move",
            )  # fmt: skip
            server.secret = "not-the-bots-secret" if behaviour == "wrong-signature" else version.bot.secret
            versions[f"http-{behaviour}"] = version
        versions["last"] = bot_version_upload(
            owner=owner, name="last", game_key="rat-snake", source=program("random_bot")
        )
        log = tmp_path / "worker.log"
        quick = {
            "SNAKEPIT_BOTS_MOVE_MS": "300",
            "SNAKEPIT_BOTS_OVERAGE_MS": "300",
            "SNAKEPIT_BOTS_HTTP_ALLOW_PRIVATE": "1",
        }
        try:
            with private_broker(tmp_path) as env, celery_process("worker", {**env, **quick}, log):
                for version in versions.values():
                    bot_version_validate.delay(version.pk)
                wait_until(
                    lambda: not BotVersion.objects.filter(status=BotVersion.Status.VALIDATING).exists(),
                    timeout=240,
                    what="the worker to judge every version",
                    log=log,
                )
        finally:
            for server in servers:
                server.shutdown()
                server.server_close()
        with pytest.raises(TimeoutError):
            listener.accept()  # the network bot reached nothing
    expected = {
        **MISBEHAVING,
        **{f"http-{behaviour}": reason for behaviour, reason in HTTP_MISBEHAVING.items()},
    }
    for name, reason in expected.items():
        version = versions[name]
        version.refresh_from_db()
        assert version.status == BotVersion.Status.FAILED, (name, version.log)
        forfeit = version.validation_match.events.filter(kind=MatchEvent.Kind.FORFEIT).order_by("seq").first()
        assert forfeit.payload["reason"].startswith(f"bot/{reason}: "), (name, forfeit.payload)
        assert BotSeat.objects.get(match=version.validation_match, seat=forfeit.seat).forfeit_reason == reason
    for name in ("write_outside", "last"):  # the writer's attempts are refused and it plays on
        versions[name].refresh_from_db()
        assert versions[name].status == BotVersion.Status.PASSED, (name, versions[name].log)
        assert versions[name].validation_match.is_finished
    assert not outside.exists()
    assert servers[0].requests == 1 and servers[1].requests == 1  # a forfeit is never retried


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
            assert len(ladder_round_create(ladder_id=ladder.pk, rng=random.Random(number)).matches) == 1
            wait_until(
                lambda number=number: RatedMatch.objects.filter(ladder=ladder).count() == number,
                timeout=120,
                what=f"the worker to play and rate round {number}",
                log=log,
            )
    assert sorted(LadderEntry.objects.filter(ladder=ladder).values_list("games", flat=True)) == [2, 2]
    assert all(entry.bot_version_id for entry in LadderEntry.objects.filter(ladder=ladder))
