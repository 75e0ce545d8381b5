"""The public pages in a real headless Chromium (Debian's, driven by Playwright): a click does what
it says -- the replay steps forwards and backwards, verify shows the seed check, a live match redraws
as events arrive, the deck checker shows its problems inline, a bracket box opens its match, the
embed shows inside another site's frame -- and the replay and the checker work without JavaScript.

Without a `chromium` on the PATH these tests skip on a laptop and fail under CI=true."""

from __future__ import annotations

import re

import pytest

from decks.selectors import prebuilt_list
from decks.services import deck_create
from matches.selectors import match_game, match_snapshot
from matches.services import SeatSpec, match_create, match_submit_action
from snakepit.demo import (
    DEMO_PASSWORD,
    DEMO_USERNAME,
    DOUBLE_SLUG,
    LADDER_SLUG,
    SWISS_SLUG,
    demo_accounts_ensure,
    demo_data_ensure,
)
from tests.pages.spectator import live_match_with_secrets

TIMEOUT_MS = 15_000


def finished_match():
    return match_create(
        game_key="rat-snake", seats=[SeatSpec(bot="heuristic"), SeatSpec(bot="random")], bots_play="now"
    )


def position(page) -> tuple[int, int]:
    found = page.locator("#replay-position")
    return int(found.get_attribute("data-step")), int(found.get_attribute("data-head"))


def test_the_replay_steps_forwards_and_backwards_in_place_and_verify_shows_the_seed_check(
    page, live_server, transactional_db
):
    match = finished_match()
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    step, head = position(page)
    assert step == head > 2
    page.evaluate("window.pageMarker = 'still the same document'")
    page.click("#replay-back")
    page.wait_for_selector(f'#replay-position[data-step="{head - 1}"]')
    assert page.url.endswith(f"?step={head - 1}")
    assert page.evaluate("window.pageMarker") == "still the same document"  # swapped in place, not reloaded
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector(f'#replay-position[data-step="{head - 2}"]')
    page.keyboard.press("ArrowRight")
    page.wait_for_selector(f'#replay-position[data-step="{head - 1}"]')
    page.click("#replay-first")
    page.wait_for_selector('#replay-position[data-step="0"]')
    assert page.locator("#event-log li[value]").count() == 0
    page.click("#replay-forward")
    page.wait_for_selector('#replay-position[data-step="1"]')
    assert page.locator("#event-log li[value]").count() == 1
    assert page.locator('#event-log li[aria-current="step"]').count() == 1
    page.click("#verify-button")
    page.wait_for_selector("#verify-verdict")
    assert "Verified" in page.inner_text("#verify-verdict")
    api = page.request.get(f"{live_server.url}/api/matches/{match.pk}/verify/").json()
    assert page.inner_text("#verify-seed") == api["seed"]
    assert str(api["events_replayed"]) in page.inner_text("#verify-verdict")


def test_a_live_match_redraws_as_events_arrive(page, live_server, transactional_db):
    organiser, _, _ = demo_accounts_ensure()
    match = match_create(
        game_key="rat-snake",
        seats=[SeatSpec(user=organiser), SeatSpec(bot="heuristic")],
        created_by=organiser,
    )
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    before, head = position(page)
    assert before == head
    page.evaluate("window.pageMarker = 'no reload'")
    game = match_game(match)
    snapshot = match_snapshot(match)
    action = game.legal_actions(snapshot.state, 0)[0]
    match_submit_action(match_id=match.pk, user=organiser, action=dict(action), expected_seq=snapshot.seq)
    after = match_snapshot(match).seq
    assert after > before
    page.wait_for_selector(f'#replay-position[data-step="{after}"]', timeout=TIMEOUT_MS)
    assert page.evaluate("window.pageMarker") == "no reload"
    assert "verify" not in page.url


def test_the_deck_checker_shows_every_problem_inline_and_saves_for_a_signed_in_person(
    page, live_server, transactional_db
):
    demo_accounts_ensure()
    page.goto(f"{live_server.url}/decks/")
    page.fill("textarea[name=text]", "")
    page.click("#check-button")
    page.wait_for_selector("#text-errors")
    assert page.locator("textarea[aria-invalid=true]").count() == 1
    draft = prebuilt_list()[0]
    page.fill("textarea[name=text]", f"Gunslinger: {draft['gunslinger']}\n3 Not A Real Card\nMachete\n")
    page.click("#check-button")
    page.wait_for_selector("#violations")
    problems = page.locator("#violations > li")
    assert problems.count() >= 2
    assert "Not A Real Card" in page.input_value("textarea[name=text]")  # the list stays to be fixed
    assert page.locator("#violations .hint").count() >= 1
    page.goto(f"{live_server.url}/accounts/sign-in/?next=/decks/")
    page.fill("input[name=username]", DEMO_USERNAME)
    page.fill("input[name=password]", DEMO_PASSWORD)
    page.click("[type=submit]")
    page.goto(f"{live_server.url}/decks/?prebuilt={draft['id']}")
    page.fill("input[name=name]", "Browser deck")
    page.click("#save-button")
    page.wait_for_selector("#legality")
    assert re.search(r"/decks/[A-Za-z0-9]+/$", page.url)
    assert page.input_value("#share-link") == page.url
    assert "Browser deck" in page.inner_text("h1")


def test_a_bracket_box_opens_its_match_and_the_embed_shows_in_another_sites_frame(
    page, live_server, transactional_db
):
    demo_data_ensure()
    page.goto(f"{live_server.url}/tournaments/{DOUBLE_SLUG}/")
    boxes = page.locator("svg.bracket a.bracket-match")
    drawn = boxes.count()
    assert drawn >= 3
    boxes.first.click()
    page.wait_for_url(re.compile(r"/matches/\d+/$"))
    assert page.locator("#replay-position").count() == 1
    embed_url = f"{live_server.url}/tournaments/{DOUBLE_SLUG}/embed/"
    another_site = live_server.url.replace("localhost", "127.0.0.1") + "/another-site/"  # another origin
    framing = f'<iframe id="frame" src="{embed_url}" width="900" height="600"></iframe>'
    page.route(another_site, lambda route: route.fulfill(content_type="text/html", body=framing))
    page.goto(another_site)
    frame = page.frame_locator("#frame")
    frame.locator("svg.bracket").wait_for()
    assert frame.locator("a.bracket-match").count() == drawn
    refused = f'<iframe id="frame" src="{live_server.url}/tournaments/{DOUBLE_SLUG}/"></iframe>'
    page.route(another_site + "full/", lambda route: route.fulfill(content_type="text/html", body=refused))
    page.goto(another_site + "full/")
    page.wait_for_timeout(1000)
    assert page.frame_locator("#frame").locator("svg.bracket").count() == 0  # the full page refuses a frame


def test_the_replay_and_the_checker_work_without_javascript(page_without_js, live_server, transactional_db):
    page = page_without_js
    match = finished_match()
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    _, head = position(page)
    page.click("#replay-back")
    page.wait_for_url(re.compile(rf"step={head - 1}$"))
    assert position(page) == (head - 1, head)
    page.click("#verify-button")
    page.wait_for_selector("#verify-verdict")
    assert "Verified" in page.inner_text("#verify-verdict")
    page.goto(f"{live_server.url}/decks/")
    page.fill("textarea[name=text]", "Machete\n")
    page.click("#check-button")
    page.wait_for_selector("#deck-result")
    assert "not legal" in page.inner_text("#deck-result")


def test_a_spectator_clicking_through_a_live_match_sees_no_secret(page, live_server, transactional_db):
    organiser, _, _ = demo_accounts_ensure()
    deck_create(owner=organiser, text=prebuilt_list()[0]["text"])
    page.goto(f"{live_server.url}/")
    baseline = page.content()
    page.goto(f"{live_server.url}/matches/")
    baseline += page.content()
    live = live_match_with_secrets(organiser, baseline=baseline)
    seen = []

    def look() -> None:
        html = page.content()
        seen.append(page.url)
        leaked = {token for token in live.hidden if token in html}
        assert not leaked, f"{page.url} shows {leaked}"
        assert live.seed_hex not in html, page.url

    page.goto(f"{live_server.url}/")
    look()
    page.click(f'#matches a[href="/matches/{live.match.pk}/"]')
    page.wait_for_selector("#replay-position")
    look()
    _, head = position(page)
    page.wait_for_timeout(2500)  # a live poll or two swap the fragment in
    look()
    for expected in range(head - 1, -1, -1):
        page.keyboard.press("ArrowLeft")
        page.wait_for_selector(f'#replay-position[data-step="{expected}"]')
        look()
    page.click("#replay-last")
    page.wait_for_selector(f'#replay-position[data-step="{head}"]')
    page.click("#verify-button")
    page.wait_for_selector("#verify-verdict")
    assert "Not yet" in page.inner_text("#verify-verdict")
    look()
    assert len(seen) == head + 4  # the home page, the match, after a poll, each step back, verify


def test_every_public_page_of_the_demo_renders_with_the_apis_numbers_and_no_script_error(
    page, live_server, transactional_db
):
    demo_data_ensure()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    # The test's live server is WSGI: the pages' event streams answer 501 stream/needs_asgi and the
    # pages poll instead (live.js), which Chromium reports as a resource that failed to load.
    page.on(
        "console",
        lambda message: (
            errors.append(message.text)
            if message.type == "error" and "/stream/" not in message.location.get("url", "")
            else None
        ),
    )
    api = page.request
    for path in ("/", "/tournaments/", "/ladders/", "/matches/", "/decks/"):
        page.goto(f"{live_server.url}{path}")
        assert page.locator("main h1").count() == 1, path
    standings = api.get(f"{live_server.url}/api/tournaments/{SWISS_SLUG}/standings/").json()
    page.goto(f"{live_server.url}/tournaments/{SWISS_SLUG}/")
    rows = page.locator("#standings tbody tr")
    assert rows.count() == len(standings)
    for k, expected in enumerate(standings):
        cells = rows.nth(k).locator("td").all_inner_texts()
        assert (cells[0], cells[1]) == (str(expected["rank"]), expected["name"])
        assert float(cells[2]) == expected["points"]
    page.locator("#standings details.explain").first.click()
    assert "round 1 vs" in page.locator("#standings details.explain").first.inner_text()
    board = api.get(f"{live_server.url}/api/ladders/{LADDER_SLUG}/leaderboard/").json()["results"]
    page.goto(f"{live_server.url}/ladders/{LADDER_SLUG}/")
    rows = page.locator("#leaderboard tbody tr")
    assert rows.count() == len(board)
    for k, expected in enumerate(board):
        cells = rows.nth(k).locator("td").all_inner_texts()
        assert float(cells[2]) == pytest.approx(expected["ordinal"], abs=0.005)
        assert int(cells[5]) == expected["games"]
    rows.first.locator("a", has_text="chart").click()
    page.wait_for_selector("svg.chart")
    assert page.locator("svg.chart circle.dot").count() == board[0]["games"] + 1
    page.wait_for_timeout(500)  # a poll of the ladder page may have been under way
    assert errors == []
