"""Bots uploaded as zip archives: what is read, what is refused, and an archive bot in the sandbox."""

from __future__ import annotations

import io
import json
import os
import stat
import zipfile

import pytest

from bots.archives import ArchiveLimits, archive_files, is_archive
from bots.sandbox import SandboxedBot, SandboxLimits
from core.errors import Rejected
from tests.bots.conftest import message_line

LIMITS = ArchiveLimits()

MAIN = """\
import json
import sys

from strategy import choose

with open("weights.json") as weights_file:
    weights = json.load(weights_file)

for line in sys.stdin:
    message = json.loads(line)
    print(json.dumps({"action": choose(message["legal_actions"], weights)}), flush=True)
"""
STRATEGY = """\
def choose(actions, weights):
    return max(actions, key=lambda action: weights.get(action["type"], 0))
"""


def zipped(files: dict[str, bytes | str], *, link: str | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            archive.writestr(name, content)
        if link is not None:
            info = zipfile.ZipInfo(link)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, "/etc/passwd")
    return buffer.getvalue()


def refused(data: bytes, limits: ArchiveLimits = LIMITS) -> Rejected:
    with pytest.raises(Rejected) as caught:
        archive_files(data, limits=limits)
    return caught.value


def test_an_archive_is_read_into_its_files_with_main_py_among_them():
    data = zipped(
        {"main.py": MAIN, "strategy.py": STRATEGY, "weights.json": '{"pass": 1}', "lib/__init__.py": ""}
    )
    assert is_archive(data) and not is_archive(MAIN.encode())
    files = archive_files(data, limits=LIMITS)
    assert sorted(files) == ["lib/__init__.py", "main.py", "strategy.py", "weights.json"]
    assert files["strategy.py"] == STRATEGY.encode()


def test_an_archive_in_one_folder_is_read_from_inside_it():
    files = archive_files(
        zipped({"mybot-main/main.py": MAIN, "mybot-main/strategy.py": STRATEGY}), limits=LIMITS
    )
    assert sorted(files) == ["main.py", "strategy.py"]


@pytest.mark.parametrize(
    ("files", "needle"),
    [
        ({"strategy.py": STRATEGY}, "main.py at its top"),
        ({"main.py": MAIN, "../escape.py": "x = 1"}, "could leave"),
        ({"main.py": MAIN, "/etc/cron.d/x": "x"}, "could leave"),
        ({"main.py": MAIN, "a\\b.py": "x = 1"}, "could leave"),
        ({"main.py": "def broken(:\n"}, "main.py is not valid Python"),
        ({"main.py": MAIN, "pkg/mod.py": "return 1 +\n"}, "pkg/mod.py is not valid Python"),
    ],
)
def test_unsafe_or_broken_archives_are_refused_with_the_reason(files, needle):
    error = refused(zipped(files))
    assert needle in error.detail
    assert error.code in ("bot/bad_archive", "bot/not_python")


def test_links_and_garbage_are_refused():
    assert "is a link" in refused(zipped({"main.py": MAIN}, link="weights.json")).detail
    assert refused(b"PK\x03\x04 but no zip at all").code == "bot/bad_archive"


def test_a_zip_bomb_stops_at_the_unpacked_limit_whatever_its_headers_say():
    bomb = zipped({"main.py": MAIN, "padding.bin": b"\0" * (9 * 1024 * 1024)})
    assert len(bomb) < 64 * 1024  # small on the wire
    assert refused(bomb).code == "bot/too_large"
    assert (
        refused(zipped({f"m{index}.py": "" for index in range(201)} | {"main.py": MAIN})).code
        == "bot/too_large"
    )
    assert refused(bomb, ArchiveLimits(archive_bytes=1000)).detail.startswith(
        "a bot archive is at most 1000 bytes"
    )


@pytest.mark.usefixtures("root_worker")
def test_an_archive_bot_imports_its_own_module_and_reads_its_data_in_the_sandbox():
    files = archive_files(
        zipped(
            {"main.py": MAIN, "strategy.py": STRATEGY, "weights.json": json.dumps({"second": 5, "first": 1})}
        ),
        limits=LIMITS,
    )
    with SandboxedBot(files=files, limits=SandboxLimits(start_ms=3000)) as bot:
        line = message_line(legal_actions=[{"type": "first"}, {"type": "second"}])
        answer, _ = bot.ask(line, deadline_ms=3000)
        assert json.loads(answer) == {"action": {"type": "second"}}
        assert bot.sandboxed


def _post_archive(client, data: bytes, name="zipped"):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return client.post(
        "/api/bots/",
        {"name": name, "game": "rat-snake", "file": SimpleUploadedFile("bot.zip", data, "application/zip")},
        format="multipart",
    )


@pytest.mark.usefixtures("root_worker")
@pytest.mark.django_db
def test_an_archive_uploaded_through_the_api_passes_validation_and_only_its_owner_reads_it(
    users, client_for, eager_celery, django_capture_on_commit_callbacks, settings
):
    from bots.models import BotVersion

    settings.SNAKEPIT_BOTS_LIMITS = {"start_ms": 3000}
    data = zipped({"bot/main.py": MAIN, "bot/strategy.py": STRATEGY, "bot/weights.json": "{}"})
    alice = client_for(users["alice"])
    with django_capture_on_commit_callbacks(execute=True):
        response = _post_archive(alice, data)
    assert response.status_code == 201, response.json()
    bot_id = response.json()["bot"]
    version = BotVersion.objects.get(bot_id=bot_id, number=1)
    assert version.status == BotVersion.Status.PASSED, version.log
    own = alice.get(f"/api/bots/{bot_id}/versions/1/").json()
    assert own["source"] == MAIN
    assert [row["path"] for row in own["files"]] == ["main.py", "strategy.py", "weights.json"]
    download = alice.get(f"/api/bots/{bot_id}/versions/1/archive/")
    assert download.status_code == 200 and download["Content-Type"] == "application/zip"
    assert b"".join(download) == data
    other = client_for(users["bob"]).get(f"/api/bots/{bot_id}/versions/1/archive/")
    assert other.status_code == 403 and other.json()["code"] == "bot/not_owner"


@pytest.mark.django_db
def test_a_broken_archive_is_refused_by_the_api_with_its_reason_and_nothing_is_stored(users, client_for):
    from bots.models import Bot

    alice = client_for(users["alice"])
    response = _post_archive(alice, zipped({"main.py": MAIN, "../up.py": "x = 1"}))
    assert response.status_code == 422 and response.json()["code"] == "bot/bad_archive"
    assert "could leave" in response.json()["detail"]
    assert not Bot.objects.exists()
    one_file = client_for(users["alice"]).post(
        "/api/bots/", {"name": "plain", "game": "rat-snake", "source": MAIN}, format="json"
    )
    assert one_file.status_code == 201
    missing = alice.get(f"/api/bots/{one_file.json()['bot']}/versions/1/archive/")
    assert missing.status_code == 404 and missing.json()["code"] == "bot/no_archive"
    assert alice.get(f"/api/bots/{one_file.json()['bot']}/versions/1/").json()["files"] is None


@pytest.mark.django_db
def test_an_archive_up_to_its_limit_gets_through_the_body_cap_and_one_past_it_is_refused(users, client_for):
    """The API caps bodies at SNAKEPIT_MAX_BODY_BYTES (256 KiB); the bot upload paths take a zip up to
    its own limit (1 MiB) and the form around it."""
    from django.conf import settings

    incompressible = os.urandom(700 * 1024)  # a weights table, say: stored as it is
    data = zipped({"main.py": MAIN, "strategy.py": STRATEGY, "weights.bin": incompressible})
    assert settings.SNAKEPIT_MAX_BODY_BYTES < len(data) < ArchiveLimits().archive_bytes
    alice = client_for(users["alice"])
    assert _post_archive(alice, data).status_code == 201
    too_big = _post_archive(
        alice, zipped({"main.py": MAIN, "weights.bin": os.urandom(1200 * 1024)}), name="big"
    )
    assert too_big.status_code == 413 and too_big.json()["code"] == "request/too_large"
