"""Bot authors' pages without a browser: "My bots" is the signed-in person's own bots only, its form
uploads through the same service as the API and queues the validation on commit, a refusal is shown
with nothing written, and a bot's public page shows its versions' status, figures, matches and
ladder entries but never its source, and its logs to its owner and staff alone."""

from __future__ import annotations

import io
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from bots.models import Bot, BotSeat, BotVersion
from bots.services import bot_match_create, bot_version_upload
from decks.services import deck_create
from engines.ragnguns import load_prebuilt
from ratings import services as ladders
from ratings.models import LadderEntry
from tests.bots.conftest import program

pytestmark = pytest.mark.django_db
needs_root = pytest.mark.usefixtures("root_worker")

SECRET_LINE = "# a line only the owner may read: 7f3c9e\n"


@pytest.fixture
def queued(monkeypatch):
    """The validations the pages queue, by version id, instead of a broker."""
    sent: list[int] = []

    class Task:
        @staticmethod
        def delay(version_id):
            sent.append(version_id)

    monkeypatch.setattr("flows.bot_upload.bot_version_validate", Task)
    return sent


def form_post(client, *, name="rando", game="rat-snake", content=None, filename="bot.py", deck=""):
    body = program("random_bot").encode() if content is None else content
    return client.post(
        "/bots/",
        {"name": name, "game": game, "deck": deck, "file": SimpleUploadedFile(filename, body)},
    )


def uploaded(owner, *, name="rando", source=None, game="rat-snake") -> BotVersion:
    return bot_version_upload(owner=owner, name=name, game_key=game, source=source or program("random_bot"))


def test_my_bots_sends_a_stranger_to_sign_in(client):
    response = client.get("/bots/")
    assert response.status_code == 302 and response["Location"] == "/accounts/sign-in/?next=/bots/"
    assert client.post("/bots/", {"name": "x"}).status_code == 302
    assert not Bot.objects.exists()


def test_my_bots_lists_only_my_own_bots_with_their_versions_and_figures(client, users):
    mine = uploaded(users["alice"], name="mine")
    uploaded(users["alice"], name="mine")
    theirs = uploaded(users["bob"], name="theirs")
    client.force_login(users["alice"])
    response = client.get("/bots/")
    html = response.content.decode()
    assert response.status_code == 200
    assert f'id="bot-{mine.bot_id}"' in html and f'id="bot-{theirs.bot_id}"' not in html
    assert "theirs" not in html
    assert html.count('data-version="') == 2 and "validating" in html
    assert f"/api/bots/{mine.bot_id}/versions/2/log/" in html
    assert f'href="/bots/{mine.bot_id}/"' in html
    assert 'href="/bots/" aria-current="page"' in html  # the nav's Bots link, signed in


def test_the_nav_offers_bots_to_signed_in_people_only(client, users):
    assert 'href="/bots/"' not in client.get("/matches/").content.decode()
    client.force_login(users["alice"])
    assert 'href="/bots/"' in client.get("/matches/").content.decode()


def test_an_upload_through_the_form_is_a_version_and_its_validation_is_queued_on_commit(
    client, users, queued, django_capture_on_commit_callbacks
):
    client.force_login(users["alice"])
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = form_post(client)
    assert response.status_code == 302 and response["Location"] == "/bots/"
    version = BotVersion.objects.get(bot__owner=users["alice"], bot__name="rando")
    assert version.number == 1 and version.source == program("random_bot")
    assert queued == [] and len(callbacks) == 1  # nothing sent before the upload is committed
    callbacks[0]()
    assert queued == [version.pk]
    page = client.get("/bots/").content.decode()
    assert "Version 1 of rando uploaded" in page and 'data-version="1"' in page


def test_a_ragnguns_bot_brings_a_saved_deck_chosen_in_the_form(
    client, users, queued, django_capture_on_commit_callbacks
):
    prebuilt = load_prebuilt()[0]
    deck = deck_create(
        owner=users["alice"], name="my guns", gunslinger=prebuilt.gunslinger, cards=list(prebuilt.cards)
    ).deck
    client.force_login(users["alice"])
    assert f'value="{deck.share_id}"' in client.get("/bots/").content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        response = form_post(client, name="gunner", game="ragnguns", deck=deck.share_id)
    assert response.status_code == 302
    version = BotVersion.objects.get(bot__name="gunner")
    assert version.deck_version.deck == deck and queued == [version.pk]
    assert "my guns" in client.get("/bots/").content.decode()


@pytest.mark.parametrize(
    ("post", "code"),
    [
        ({"content": b"def broken(:\n"}, "bot/not_python"),
        ({"content": b"\xff\xfe not text"}, "bot/not_python"),
        ({"content": b"# " + b"x" * 2000 + b"\n"}, "bot/too_large"),
        ({"game": "ragnguns"}, "bot/deck_required"),
    ],
)
def test_a_refused_upload_is_shown_on_the_page_and_writes_nothing(
    client, users, queued, settings, post, code
):
    settings.SNAKEPIT_BOTS_MAX_SOURCE_BYTES = 1000
    client.force_login(users["alice"])
    response = form_post(client, **post)
    assert response.status_code == 422
    html = response.content.decode()
    assert 'id="bot-upload-error"' in html and f"<code>{code}</code>" in html
    assert not Bot.objects.exists() and not BotVersion.objects.exists() and queued == []


def zipped(**files: str) -> bytes:
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as folder:
        for path, text in files.items():
            folder.writestr(path, text)
    return archive.getvalue()


def test_a_zip_through_the_form_is_an_archive_version_with_its_download_for_the_owner(
    client, users, queued, django_capture_on_commit_callbacks
):
    archive = zipped(**{"main.py": "import helper\n" + program("random_bot"), "helper.py": "ANSWER = 42\n"})
    client.force_login(users["alice"])
    with django_capture_on_commit_callbacks(execute=True):
        response = form_post(client, name="zipped", content=archive, filename="bot.zip")
    assert response.status_code == 302
    version = BotVersion.objects.get(bot__name="zipped")
    assert bytes(version.archive) == archive and queued == [version.pk]
    assert f"/api/bots/{version.bot_id}/versions/1/archive/" in client.get("/bots/").content.decode()
    client.logout()
    assert "/archive/" not in client.get(f"/bots/{version.bot_id}/").content.decode()


@pytest.mark.parametrize(
    ("content", "code"),
    [
        (b"PK\x03\x04 not really a zip", "bot/bad_archive"),
        (zipped(**{"bot.py": "pass\n"}), "bot/bad_archive"),  # no main.py
        (zipped(**{"main.py": "# " + "x" * 3000 + "\n"}), "bot/too_large"),
    ],
)
def test_a_refused_zip_is_shown_on_the_page_and_writes_nothing(
    client, users, queued, settings, content, code
):
    settings.SNAKEPIT_BOTS_ARCHIVE_LIMITS = {"archive_bytes": 1000}
    client.force_login(users["alice"])
    response = form_post(client, content=content, filename="bot.zip")
    assert response.status_code == 422 and f"<code>{code}</code>" in response.content.decode()
    assert not Bot.objects.exists() and not BotVersion.objects.exists() and queued == []


def test_a_form_error_is_shown_inline_and_writes_nothing(client, users, queued):
    client.force_login(users["alice"])
    response = form_post(client, name="../escape")
    assert response.status_code == 400 and 'id="name-errors"' in response.content.decode()
    response = client.post("/bots/", {"name": "nofile", "game": "rat-snake"})
    assert response.status_code == 400 and 'id="file-errors"' in response.content.decode()
    assert not BotVersion.objects.exists() and queued == []


def test_the_public_page_shows_status_and_matches_but_never_the_source_and_logs_only_to_the_owner(
    client, users, django_user_model
):
    version = uploaded(users["alice"], source=SECRET_LINE + program("random_bot"))
    match = bot_match_create(versions=[version, version], validation=True)
    url = f"/bots/{version.bot_id}/"
    for viewer in (None, users["bob"]):
        client.logout()
        if viewer is not None:
            client.force_login(viewer)
        html = client.get(url).content.decode()
        assert "rando" in html and "alice" in html and "validating" in html
        assert f'data-match="{match.pk}"' in html and "itself" in html
        assert "7f3c9e" not in html and "/log/" not in html
    client.force_login(users["alice"])
    html = client.get(url).content.decode()
    assert "7f3c9e" not in html  # not even to its owner: the source is the API's to hand out
    assert f"/api/bots/{version.bot_id}/versions/1/log/" in html
    assert f"/api/bots/{version.bot_id}/matches/{match.pk}/log/" in html
    staff = django_user_model.objects.create_user("staff", password="x", is_staff=True)
    client.force_login(staff)
    assert f"/api/bots/{version.bot_id}/matches/{match.pk}/log/" in client.get(url).content.decode()
    assert client.get("/bots/999999/").status_code == 404
    assert client.get(f"/bots/{2**40}/").status_code == 404


def test_the_public_page_shows_the_ladder_entries_of_its_versions_with_their_place(client, users):
    duel = ladders.ladder_create(game_key="rat-snake", name="Duel", slug="duel", seats_per_match=2)
    version = uploaded(users["alice"])
    # Entering needs a passed version; its validation is another test's (it needs a root worker).
    BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.PASSED)
    entry = ladders.ladder_join_uploaded_bot(
        ladder=duel,
        account=version.bot.account,
        bot_version_id=version.pk,
        game_key="rat-snake",
        replace=False,
    )
    html = client.get(f"/bots/{version.bot_id}/").content.decode()
    assert f'href="/ladders/duel/entries/{entry.pk}/"' in html
    assert '<td class="num">1</td>' in html  # first place of one


@needs_root
def test_a_form_upload_is_validated_on_the_worker_and_both_pages_show_it(
    client, users, settings, eager_celery, django_capture_on_commit_callbacks
):
    settings.SNAKEPIT_BOTS_MOVE_MS = settings.SNAKEPIT_BOTS_OVERAGE_MS = 300
    settings.SNAKEPIT_BOTS_LIMITS = {"start_ms": 1500}
    client.force_login(users["alice"])
    with django_capture_on_commit_callbacks(execute=True):
        assert form_post(client).status_code == 302
    version = BotVersion.objects.get(bot__name="rando")
    assert version.status == BotVersion.Status.PASSED
    assert "passed" in client.get("/bots/").content.decode()
    html = client.get(f"/bots/{version.bot_id}/").content.decode()
    assert f'data-match="{version.validation_match_id}"' in html and "itself" in html
    assert BotSeat.objects.filter(version=version, forfeit_reason="").count() == 2
    log = client.get(f"/api/bots/{version.bot_id}/versions/1/log/")
    assert log.status_code == 200 and b"passed" in log.content  # the session opens the API's download


# --- entering a passed version on a ladder from the bot's page ---------------------------------------


def passed(version: BotVersion) -> BotVersion:
    """Mark a version passed without playing its validation (as tests/bots/test_ladders.py does)."""
    BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.PASSED)
    version.refresh_from_db()
    return version


@pytest.fixture
def rat_ladders(db):
    """A ladder the bots may enter, one for people only, and one of another game."""
    return {
        "open": ladders.ladder_create(
            game_key="rat-snake", name="Rat-Snake open", slug="open", seats_per_match=2
        ),
        "people": ladders.ladder_create(
            game_key="rat-snake", name="People only", slug="people", seats_per_match=2, entry_policy="users"
        ),
        "other": ladders.ladder_create(
            game_key="rattlesnake", name="Rattlesnake", slug="rattle", seats_per_match=2
        ),
    }


def enter(client, version: BotVersion, *, ladder="open", replace=False):
    data = {"version": version.number, "ladder": ladder}
    if replace:
        data["replace"] = "on"
    return client.post(f"/bots/{version.bot_id}/", data)


def test_the_owner_enters_a_passed_version_on_a_ladder_from_the_bots_page(client, users, rat_ladders):
    uploaded(users["alice"])
    version = passed(uploaded(users["alice"]))
    client.force_login(users["alice"])
    html = client.get(f"/bots/{version.bot_id}/").content.decode()
    # A form for the passed version alone, offering the ladders of its game that take bots.
    assert 'id="bot-enter-2"' in html and 'id="bot-enter-1"' not in html
    assert 'value="open"' in html and 'value="people"' not in html and 'value="rattle"' not in html
    response = enter(client, version)
    assert response.status_code == 302 and response["Location"] == f"/bots/{version.bot_id}/"
    entry = LadderEntry.objects.get(ladder=rat_ladders["open"])
    assert entry.bot_version_id == version.pk and entry.user == version.bot.account and entry.is_active
    html = client.get(f"/bots/{version.bot_id}/").content.decode()
    assert "rando v2 (alice) entered Rat-Snake open" in html
    assert f'href="/ladders/open/entries/{entry.pk}/"' in html
    again = enter(client, version)  # the service's refusal, shown with its code
    assert again.status_code == 409 and "<code>entry/already_joined</code>" in again.content.decode()
    assert LadderEntry.objects.count() == 1


def test_another_person_gets_no_form_and_their_post_is_refused(client, users, rat_ladders):
    version = passed(uploaded(users["alice"]))
    client.force_login(users["bob"])
    html = client.get(f"/bots/{version.bot_id}/").content.decode()
    assert "bot-enter" not in html
    response = enter(client, version)
    assert response.status_code == 403 and "<code>bot/not_owner</code>" in response.content.decode()
    client.logout()
    assert enter(client, version).status_code == 403
    assert not LadderEntry.objects.exists()


def test_a_version_that_has_not_passed_cannot_enter(client, users, rat_ladders):
    version = uploaded(users["alice"])
    BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.FAILED)
    client.force_login(users["alice"])
    html = client.get(f"/bots/{version.bot_id}/").content.decode()
    assert 'id="bot-enter-1"' not in html and 'id="bot-enter-none"' in html
    response = enter(client, version)
    assert response.status_code == 409 and "<code>bot/not_validated</code>" in response.content.decode()
    people = enter(client, passed(version), ladder="people")
    assert people.status_code == 403 and "<code>ladder/users_only</code>" in people.content.decode()
    malformed = client.post(f"/bots/{version.bot_id}/", {"version": "x", "ladder": "open"})
    assert malformed.status_code == 400 and "<code>request/invalid</code>" in malformed.content.decode()
    assert not LadderEntry.objects.exists()


def test_a_version_enters_beside_the_others_or_replaces_them(client, users, rat_ladders):
    first, second, third = (passed(uploaded(users["alice"])) for _ in range(3))
    client.force_login(users["alice"])
    assert enter(client, first).status_code == 302
    assert enter(client, second).status_code == 302
    assert LadderEntry.objects.filter(left_at__isnull=True).count() == 2  # beside each other
    assert enter(client, third, replace=True).status_code == 302
    on_ladder = LadderEntry.objects.filter(ladder=rat_ladders["open"])
    assert list(on_ladder.filter(left_at__isnull=True).values_list("bot_version_id", flat=True)) == [third.pk]
    assert on_ladder.count() == 3  # the others left; their entries and history stay
