"""The page frame: every public list page renders inside base.html with its landmarks, the nav marks
the current section, static files are served, and live.js's fragment convention answers with the
fragment alone."""

from __future__ import annotations

import pytest

from matches.services import SeatSpec, match_create

pytestmark = pytest.mark.django_db

LIST_PAGES = {
    "/": "Home",
    "/tournaments/": "Tournaments",
    "/ladders/": "Ladders",
    "/matches/": "Matches",
    "/decks/": "Decks",
}


@pytest.mark.parametrize("url, section", LIST_PAGES.items())
def test_each_list_page_renders_in_the_frame_with_its_section_current(client, url, section):
    response = client.get(url)
    assert response.status_code == 200
    html = response.content.decode()
    assert '<a class="skip-link" href="#main">' in html
    assert '<main id="main"' in html and '<nav aria-label="Main">' in html
    assert f'aria-current="page">{section}</a>' in html
    assert html.count('aria-current="page"') == 1


def test_the_stylesheet_and_script_are_served_from_the_package(client):
    for path in ("/static/snakepit/site.css", "/static/snakepit/live.js"):
        response = client.get(path)
        assert response.status_code == 200, path
        body = b"".join(response.streaming_content) if response.streaming else response.content
        assert len(body) > 1000


def test_a_live_request_gets_the_fragment_without_the_frame(client, django_user_model):
    match = match_create(
        game_key="rat-snake", seats=[SeatSpec(bot="random"), SeatSpec(bot="random")], bots_play="now"
    )
    whole = client.get(f"/matches/{match.pk}/").content.decode()
    fragment = client.get(f"/matches/{match.pk}/", HTTP_X_LIVE="1")
    assert "<main" in whole and 'id="replay-position"' in whole
    assert fragment.status_code == 200 and "X-Live" in fragment["Vary"]
    assert "<main" not in fragment.content.decode() and 'id="replay-position"' in fragment.content.decode()


def test_an_unknown_page_is_a_404_not_a_crash(client):
    assert client.get("/matches/999999/").status_code == 404
    assert client.get("/tournaments/no-such-thing/").status_code == 404
    assert client.get("/ladders/no-such-thing/").status_code == 404
    assert client.get("/matches/?page=abc").status_code == 200
    assert client.get("/matches/99999999999999999999/").status_code == 404  # past any integer column
    assert client.get("/matches/99999999999999999999/verify/").status_code == 404
    assert client.get("/decks/" + "x" * 300 + "/").status_code == 404


def test_the_match_list_shows_live_or_finished_matches_and_pages_keep_the_choice(client, django_user_model):
    person = django_user_model.objects.create_user("watcher")
    live = match_create(game_key="rat-snake", seats=[SeatSpec(user=person), SeatSpec(bot="heuristic")])
    done = match_create(
        game_key="rat-snake", seats=[SeatSpec(bot="random"), SeatSpec(bot="random")], bots_play="now"
    )
    running = client.get("/matches/?status=running").content.decode()
    finished = client.get("/matches/?status=finished").content.decode()
    assert f'href="/matches/{live.pk}/"' in running and f'href="/matches/{done.pk}/"' not in running
    assert f'href="/matches/{done.pk}/"' in finished and f'href="/matches/{live.pk}/"' not in finished
    everything = client.get("/matches/?status=nonsense").content.decode()
    assert f'href="/matches/{live.pk}/"' in everything and f'href="/matches/{done.pk}/"' in everything
    for _ in range(30):
        match_create(
            game_key="rat-snake", seats=[SeatSpec(bot="random"), SeatSpec(bot="random")], bots_play="now"
        )
    assert 'href="?status=finished&amp;page=2"' in client.get("/matches/?status=finished").content.decode()
