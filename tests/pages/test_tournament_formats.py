"""A tournament page for every format, played by bots from registration to the end: the page and its
embed render at each stage (registration, running, finished), an elimination stage is drawn as a
bracket of every match the API's tree has, and every other format shows its rounds as tables."""

from __future__ import annotations

import re

import pytest

from snakepit.demo import demo_accounts_ensure, tournament_bots_play
from tournaments import services
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

FORMATS = [
    ("swiss", {"config": {"rounds": 2}}, 6),
    ("round_robin", {}, 4),
    ("single_elimination", {}, 5),
    ("double_elimination", {}, 4),
    ("pods", {"seats_per_match": 3, "config": {"rounds": 2}}, 7),
    ("groups_playoffs", {"config": {"groups": 2, "advance_per_group": 2}}, 8),
]


def pages_render(client, slug: str) -> str:
    page = client.get(f"/tournaments/{slug}/")
    embed = client.get(f"/tournaments/{slug}/embed/")
    fragment = client.get(f"/tournaments/{slug}/", HTTP_X_LIVE="1")
    assert page.status_code == embed.status_code == fragment.status_code == 200
    assert "<main" not in fragment.content.decode()
    return page.content.decode()


@pytest.mark.parametrize("format_key, setup, players", FORMATS, ids=[f[0] for f in FORMATS])
def test_every_format_has_its_page_from_registration_to_the_end(client, format_key, setup, players):
    organiser, _, _ = demo_accounts_ensure()
    slug = f"formats-{format_key.replace('_', '-')}"
    services.tournament_create(
        organiser=organiser, name=slug, slug=slug, game_key="rat-snake", format=format_key,
        options={"passes": 1}, **setup,
    )  # fmt: skip
    assert client.get(f"/tournaments/{slug}/").status_code == 404  # a draft is not public
    services.tournament_open(slug=slug, user=organiser)
    html = pages_render(client, slug)
    assert "No standings yet" in html and "No rounds yet" in html
    for k in range(players):
        services.tournament_register(slug=slug, user=organiser, bot=("heuristic", "random")[k % 2])
    services.tournament_start(slug=slug, user=organiser)
    assert "<caption>Round 1" in pages_render(client, slug)
    tournament_bots_play(Tournament.objects.get(slug=slug), organiser)
    assert Tournament.objects.get(slug=slug).status == "finished"
    html = pages_render(client, slug)
    standings = client.get(f"/api/tournaments/{slug}/standings/").json()
    assert len(re.findall(r"<tr data-player=", html)) == len(standings) == players
    tables = client.get(f"/api/tournaments/{slug}/tables/").json()
    assert html.count('<table class="round"') == len({(t["round"], t["stage"]) for t in tables})
    for table in tables:
        for match_id in table["matches"]:
            assert f'href="/matches/{match_id}/"' in html
    bracket = client.get(f"/api/tournaments/{slug}/bracket/")
    if bracket.status_code == 200:
        keys = re.findall(r'class="bracket-match" data-match-key="([^"]+)"', html)
        assert sorted(keys) == sorted(m["match_key"] for m in bracket.json()["matches"])
        assert 'id="champion"' in html
    else:
        assert format_key in ("swiss", "round_robin", "pods") and 'class="bracket"' not in html


def test_a_cancelled_tournament_keeps_its_page_and_stops_refreshing(client):
    organiser, _, _ = demo_accounts_ensure()
    services.tournament_create(
        organiser=organiser, name="Called off", slug="called-off", game_key="rat-snake", format="swiss",
        options={"passes": 1}, config={"rounds": 2},
    )  # fmt: skip
    services.tournament_open(slug="called-off", user=organiser)
    for bot in ("heuristic", "random", "heuristic", "random"):
        services.tournament_register(slug="called-off", user=organiser, bot=bot)
    services.tournament_start(slug="called-off", user=organiser)
    assert "data-live-src" in client.get("/tournaments/called-off/").content.decode()
    services.tournament_cancel(slug="called-off", user=organiser, reason="rain")
    html = pages_render(client, "called-off")
    assert "cancelled" in html and "data-live-src" not in html and "data-live-done" in html
