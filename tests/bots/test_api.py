"""The bots API: upload (bounded, a day's quota), validation on the worker, figures for anyone, source
and logs for the owner and staff only, and the protocol's schemas."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from bots.models import BotVersion
from bots.protocol import MESSAGE_SCHEMA
from tests.bots.conftest import program

pytestmark = pytest.mark.django_db
needs_root = pytest.mark.usefixtures("root_worker")


def upload(client, name="rando", source=None, game="rat-snake"):
    return client.post(
        "/api/bots/", {"name": name, "game": game, "source": source or program("random_bot")}, format="json"
    )


def test_the_protocol_schemas_are_served_to_anyone(client_for):
    response = client_for().get("/api/bots/protocol/")
    assert response.status_code == 200
    assert response.json()["message"] == MESSAGE_SCHEMA


@needs_root
def test_an_upload_is_validated_on_the_worker_and_its_owner_reads_its_log(
    users, client_for, bot_settings, eager_celery, django_capture_on_commit_callbacks
):
    alice = client_for(users["alice"])
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(alice)
    assert response.status_code == 201, response.json()
    bot_id = response.json()["bot"]
    assert response.json()["number"] == 1
    assert BotVersion.objects.get(bot_id=bot_id, number=1).status == BotVersion.Status.PASSED
    detail = client_for().get(f"/api/bots/{bot_id}/").json()
    assert detail["versions"][0]["status"] == "passed"
    assert detail["stats"]["games"] == 1
    assert all("source" not in version and "log" not in version for version in detail["versions"])
    own = alice.get(f"/api/bots/{bot_id}/versions/1/")
    assert own.status_code == 200 and own.json()["source"] == program("random_bot")


@needs_root
def test_a_failed_version_shows_why_in_its_log_and_the_forfeited_match(
    users, client_for, bot_settings, eager_celery, django_capture_on_commit_callbacks
):
    alice = client_for(users["alice"])
    with django_capture_on_commit_callbacks(execute=True):
        bot_id = upload(alice, name="faller", source=program("crash")).json()["bot"]
    version = alice.get(f"/api/bots/{bot_id}/versions/1/").json()
    assert version["status"] == "failed"
    assert "the bot fell over" in version["log"]
    seats = alice.get(f"/api/bots/{bot_id}/matches/", {"match": version["validation_match"]}).json()
    forfeited = [seat for seat in seats if seat["forfeit_reason"]]
    assert (
        len(forfeited) == 1
        and forfeited[0]["forfeit_reason"] == "crash"
        and "RuntimeError" in forfeited[0]["log"]
    )
    strangers = client_for(users["bob"]).get(f"/api/bots/{bot_id}/matches/").json()
    assert strangers and all("log" not in seat for seat in strangers)


def test_source_is_the_owners_and_staffs_only(users, client_for, django_user_model):
    bot_id = upload(client_for(users["alice"])).json()["bot"]
    assert client_for(users["bob"]).get(f"/api/bots/{bot_id}/versions/1/").json()["code"] == "bot/not_owner"
    assert client_for().get(f"/api/bots/{bot_id}/versions/1/").status_code == 403
    staff = django_user_model.objects.create_user("staff", password="x", is_staff=True)
    assert client_for(staff).get(f"/api/bots/{bot_id}/versions/1/").status_code == 200


def test_a_multipart_file_is_a_version_too(users, client_for):
    response = client_for(users["alice"]).post(
        "/api/bots/",
        {
            "name": "filed",
            "game": "rat-snake",
            "file": SimpleUploadedFile("bot.py", program("random_bot").encode()),
        },
        format="multipart",
    )
    assert response.status_code == 201, response.json()
    assert BotVersion.objects.get(bot__name="filed").source == program("random_bot")


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"name": "x", "game": "rat-snake", "source": "def broken(:\n"}, 422, "bot/not_python"),
        ({"name": "x", "game": "chess", "source": "pass\n"}, 422, "bot/unknown_game"),
        ({"name": "x", "game": "ragnguns", "source": "pass\n"}, 422, "bot/deck_required"),
        ({"name": "../x", "game": "rat-snake", "source": "pass\n"}, 400, None),
        ({"name": "x", "game": "rat-snake"}, 400, None),
        ({"name": "x", "game": "rat-snake", "source": "pass\n", "extra": 1}, 400, None),
    ],
)
def test_bad_uploads_are_refused_and_write_nothing(users, client_for, body, status, code):
    response = client_for(users["alice"]).post("/api/bots/", body, format="json")
    assert response.status_code == status
    assert "code" in response.json() and "detail" in response.json()
    if code:
        assert response.json()["code"] == code
    assert not BotVersion.objects.exists()


def test_uploads_are_bounded_in_size_and_per_day(users, client_for, settings):
    settings.SNAKEPIT_BOTS_MAX_SOURCE_BYTES = 1000
    settings.SNAKEPIT_BOTS_VERSIONS_PER_DAY = 2
    alice = client_for(users["alice"])
    too_large = upload(alice, source="# " + "x" * 1000 + "\n")
    assert too_large.status_code == 422 and too_large.json()["code"] == "bot/too_large"
    assert upload(alice).status_code == 201
    assert upload(alice).status_code == 201
    third = upload(alice, name="other")
    assert third.status_code == 429 and third.json()["code"] == "bot/too_many_versions"
    assert BotVersion.objects.count() == 2


def test_anonymous_uploads_are_refused(client_for):
    assert upload(client_for()).status_code in (401, 403)
    assert not BotVersion.objects.exists()


def test_without_namespaces_uploads_are_refused_unless_allowed(users, client_for, settings, monkeypatch):
    monkeypatch.setattr("bots.sandbox.namespaces_available", lambda: False)
    response = upload(client_for(users["alice"]))
    assert response.status_code == 503 and response.json()["code"] == "bot/sandbox_unavailable"
    settings.SNAKEPIT_BOTS_ALLOW_UNSANDBOXED = True
    assert upload(client_for(users["alice"])).status_code == 201


def test_an_http_bot_is_registered_by_url_and_its_owner_gets_the_signing_secret(users, client_for):
    alice = client_for(users["alice"])
    response = alice.post(
        "/api/bots/", {"name": "web", "game": "rat-snake", "url": "https://bots.example/move"}, format="json"
    )
    assert response.status_code == 201, response.json()
    secret = response.json()["secret"]
    assert len(secret) == 64
    bot_id = response.json()["bot"]
    assert alice.get(f"/api/bots/{bot_id}/versions/1/").json()["secret"] == secret
    assert "secret" not in client_for(users["bob"]).get(f"/api/bots/{bot_id}/").json()
    both = alice.post(
        "/api/bots/",
        {"name": "web", "game": "rat-snake", "url": "https://bots.example/", "source": "pass\n"},
        format="json",
    )
    assert both.status_code == 400
