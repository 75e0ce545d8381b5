"""The pages people look at, in a real headless Chromium (Debian's, driven by Playwright).

Without a `chromium` on the PATH these tests skip on a laptop and fail under CI=true.
"""

from __future__ import annotations

import json

import pytest

from snakepit.demo import DEMO_PASSWORD, DEMO_USERNAME, demo_data_ensure


@pytest.fixture
def demo(transactional_db):
    organiser, _ = demo_data_ensure(with_matches=False)
    return organiser


def sign_in(page, live_server):
    page.goto(f"{live_server.url}/")
    page.click("text=sign in")
    page.fill("input[name=username]", DEMO_USERNAME)
    page.fill("input[name=password]", DEMO_PASSWORD)
    page.click("[type=submit]")


def test_home_page_lists_the_games_and_signs_the_demo_organiser_in(page, live_server, demo):
    from ratings.services import ladders_ensure_for_games

    ladders_ensure_for_games()
    page.goto(f"{live_server.url}/")
    assert "Rat-Snake" in page.inner_text("#games")
    assert "Rat-Snake open ladder" in page.inner_text("#ladders")
    assert "No tournaments yet" in page.inner_text("#tournaments")
    sign_in(page, live_server)
    page.goto(f"{live_server.url}/")
    assert "Signed in as demo" in page.inner_text("#who")


def test_a_newcomer_creates_a_match_against_a_bot_in_the_browsable_api(page, live_server, demo):
    sign_in(page, live_server)
    page.goto(f"{live_server.url}/api/matches/")
    page.click("a[name=raw-tab]")
    body = {"game": "rat-snake", "seats": [{"user": "demo"}, {"bot": "heuristic"}], "options": {"passes": 1}}
    form = page.locator("#post-generic-content-form")
    form.locator("textarea[name=_content]").fill(json.dumps(body))
    form.locator("button", has_text="POST").click()
    page.wait_for_selector("text=HTTP 201 Created")
    created = json.loads(page.inner_text(".response-info pre").split("\n\n", 1)[1])
    assert created["seats"][1]["bot"] == "heuristic"
    page.goto(f"{live_server.url}/api/matches/{created['id']}/view/")
    view = json.loads(page.inner_text(".response-info pre").split("\n\n", 1)[1])
    assert view["seat"] == 0 and view["view"]["you"] == 0


def test_swagger_ui_renders_the_api_from_local_assets(page, live_server, demo):
    page.goto(f"{live_server.url}/api/docs/")
    page.wait_for_selector(".opblock-summary-path", timeout=15000)
    paths = page.locator(".opblock-summary-path").all_inner_texts()
    assert any("/api/matches/{id}/actions/" in path for path in paths)
