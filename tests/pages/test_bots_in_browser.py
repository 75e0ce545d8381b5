"""Bot authors' pages in a real headless Chromium: a person signs in, uploads a bot's file through the
"My bots" form, sees the version listed and opens its public page, where (the version marked passed)
they enter it on a ladder; with a root worker (run eagerly) the validation plays and the page,
reloaded, shows the version passed.

Without a `chromium` on the PATH these tests skip on a laptop and fail under CI=true.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bots.models import BotVersion
from ratings import services as ladders
from ratings.models import LadderEntry

RANDOM_BOT = Path(__file__).resolve().parents[1] / "bots" / "programs" / "random_bot.py"
needs_root = pytest.mark.usefixtures("root_worker")


def sign_in(page, live_server, username, password):
    page.goto(f"{live_server.url}/accounts/sign-in/")
    page.fill("#sign-in input[name=username]", username)
    page.fill("#sign-in input[name=password]", password)
    page.click("#sign-in [type=submit]")
    page.wait_for_selector(f"#who >> text={username}")


def upload_through_the_form(page, live_server, name: str) -> None:
    page.goto(f"{live_server.url}/")
    page.click("nav >> text=Bots")
    page.fill("#bot-upload input[name=name]", name)
    page.select_option("#id_game", "rat-snake")
    page.set_input_files("#id_file", str(RANDOM_BOT))
    page.click("#bot-upload [type=submit]")
    page.wait_for_selector(f'section[data-bot-name="{name}"]', timeout=30000)


def test_an_author_uploads_a_bot_through_the_form_and_sees_its_version_listed(
    browser, live_server, transactional_db, users, monkeypatch
):
    queued = []
    # No broker here: the validation's queueing is recorded, not sent.
    monkeypatch.setattr(
        "flows.bot_upload.bot_version_validate", type("Task", (), {"delay": staticmethod(queued.append)})
    )
    page = browser.new_page()
    sign_in(page, live_server, "alice", "alice-password")
    upload_through_the_form(page, live_server, "rando")
    version = BotVersion.objects.get(bot__owner=users["alice"], bot__name="rando")
    assert version.source == RANDOM_BOT.read_text() and queued == [version.pk]
    section = page.locator(f"#bot-{version.bot_id}")
    assert section.locator('tr[data-version="1"] .bot-status').inner_text() == "validating"
    assert "Version 1 of rando uploaded" in page.inner_text("#bot-messages")
    section.locator("h2 a").click()
    page.wait_for_selector("#bot-owner >> text=alice")
    assert page.url.endswith(f"/bots/{version.bot_id}/")
    assert page.locator(".bot-log").count() == 1  # the owner's download link
    # Its validation is another test's (it needs a root worker): the version is marked passed, and
    # its owner enters it on a ladder from this page.
    BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.PASSED)
    ladders.ladder_create(game_key="rat-snake", name="Rat-Snake open", slug="open", seats_per_match=2)
    page.reload()
    page.select_option("#bot-enter-1-ladder", "open")
    page.click("#bot-enter-1 [type=submit]")
    page.wait_for_selector("#bot-messages >> text=rando v1 (alice) entered Rat-Snake open")
    entry = LadderEntry.objects.get(ladder__slug="open")
    assert entry.bot_version_id == version.pk and entry.is_active
    assert page.locator(f'#bot-ladders a[href="/ladders/open/entries/{entry.pk}/"]').count() == 1


@needs_root
def test_the_validation_passes_on_an_eager_worker_and_the_page_shows_it_after_reload(
    browser, live_server, transactional_db, users, settings, eager_celery
):
    settings.SNAKEPIT_BOTS_MOVE_MS = settings.SNAKEPIT_BOTS_OVERAGE_MS = 300
    settings.SNAKEPIT_BOTS_LIMITS = {"start_ms": 1500}
    page = browser.new_page()
    sign_in(page, live_server, "alice", "alice-password")
    upload_through_the_form(page, live_server, "rando")
    version = BotVersion.objects.get(bot__owner=users["alice"], bot__name="rando")
    page.reload()
    status = page.locator(f'#bot-{version.bot_id} tr[data-version="1"] .bot-status')
    assert status.inner_text() == "passed"
    assert page.inner_text(f"#bot-{version.bot_id}-figures .bot-games") == "1"
    # The owner's log download, through the API's route and the page's session.
    with page.expect_download() as download:
        page.click(f'#bot-{version.bot_id} tr[data-version="1"] .bot-log')
    assert "passed" in Path(download.value.path()).read_text()
