"""The public pages without a browser: every page of the demo world renders, its numbers are the
API's, the embed alone may be framed, the deck checker reports every problem inline and saves only
for a signed-in person, the demo data is made once, and no page of a live match shows a spectator
what only a seat may know."""

from __future__ import annotations

import re
from html import unescape

import pytest

from decks.models import Deck
from decks.selectors import deck_check, prebuilt_list
from matches.models import Match
from matches.services import SeatSpec, match_create
from ratings.models import Ladder
from snakepit.demo import DOUBLE_SLUG, LADDER_SLUG, SWISS_SLUG, demo_data_ensure
from tests.pages.spectator import live_match_with_secrets
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


def cells(html: str, table_id: str) -> list[list[str]]:
    """The text of each body row's cells of the table with this id."""
    table = re.search(rf'<table id="{table_id}".*?</table>', html, flags=re.DOTALL).group(0)
    body = re.search(r"<tbody>(.*?)</tbody>", table, flags=re.DOTALL).group(1)
    return [
        [
            " ".join(unescape(re.sub(r"<[^>]+>", " ", cell)).split())
            for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, flags=re.DOTALL)
        ]
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, flags=re.DOTALL)
    ]


@pytest.fixture
def world():
    organiser, _ = demo_data_ensure()
    return organiser


def test_the_demo_world_is_made_once_and_every_public_page_of_it_renders(client, world):
    counts = (Match.objects.count(), Tournament.objects.count(), Deck.objects.count(), Ladder.objects.count())
    demo_data_ensure()
    assert (
        Match.objects.count(),
        Tournament.objects.count(),
        Deck.objects.count(),
        Ladder.objects.count(),
    ) == counts
    assert Tournament.objects.get(slug=SWISS_SLUG).status == "finished"
    assert Tournament.objects.get(slug=DOUBLE_SLUG).status == "running"
    finished_games = set(Match.objects.filter(status="finished").values_list("game", flat=True))
    assert {"rat-snake", "rattlesnake", "the-greatest-snake", "rattlebones", "ragnguns"} <= finished_games
    ladder = Ladder.objects.get(slug=LADDER_SLUG)
    assert ladder.is_active and ladder.entries.filter(games__gt=0).count() >= 2
    urls = ["/", "/tournaments/", "/ladders/", "/matches/", "/decks/", f"/ladders/{LADDER_SLUG}/"]
    urls += [f"/tournaments/{slug}/" for slug in (SWISS_SLUG, DOUBLE_SLUG)]
    urls += [f"/tournaments/{slug}/embed/" for slug in (SWISS_SLUG, DOUBLE_SLUG)]
    urls += [f"/ladders/{LADDER_SLUG}/entries/{entry.pk}/" for entry in ladder.entries.all()]
    urls += [f"/matches/{pk}/" for pk in Match.objects.values_list("pk", flat=True)]
    urls += [f"/decks/{share_id}/" for share_id in Deck.objects.values_list("share_id", flat=True)]
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url


def test_swiss_standings_and_pairings_are_the_apis(client, world):
    api = client.get(f"/api/tournaments/{SWISS_SLUG}/standings/").json()
    html = client.get(f"/tournaments/{SWISS_SLUG}/").content.decode()
    rows = cells(html, "standings")
    assert len(rows) == len(api) == 8
    columns = list(api[0]["tiebreaks"])
    for row, expected in zip(rows, api):
        assert row[0] == str(expected["rank"])
        assert row[1] == expected["name"]
        assert float(row[2]) == pytest.approx(expected["points"])
        for cell, name in zip(row[3 : 3 + len(columns)], columns):
            value = expected["tiebreaks"][name]
            assert cell == "" if value is None else float(cell) == pytest.approx(value, abs=0.005)
        assert "round 1 vs" in row[-1]  # the explanation, in words
    assert html.count("was paired</summary>") == 3  # each Swiss round's pairing explained
    tables = client.get(f"/api/tournaments/{SWISS_SLUG}/tables/").json()
    for table in tables:
        for match_id in table["matches"]:
            assert f'href="/matches/{match_id}/"' in html
    for name in columns:
        assert f">{name}</abbr>" in html


def test_the_bracket_draws_every_match_of_the_apis_tree_and_links_the_played_ones(client, world):
    tree = client.get(f"/api/tournaments/{DOUBLE_SLUG}/bracket/").json()
    html = client.get(f"/tournaments/{DOUBLE_SLUG}/").content.decode()
    svg = re.search(r'<svg class="bracket".*?</svg>', html, flags=re.DOTALL).group(0)
    drawn = re.findall(r'class="bracket-match" data-match-key="([^"]+)"', svg)
    assert sorted(drawn) == sorted(m["match_key"] for m in tree["matches"])
    assert {m["bracket"] for m in tree["matches"]} >= {"winners", "losers", "final"}
    assert "Losers bracket" in svg and "Grand final" in svg
    tables = {
        t["match_key"]: t["matches"] for t in client.get(f"/api/tournaments/{DOUBLE_SLUG}/tables/").json()
    }
    for key, match_ids in tables.items():
        assert re.search(
            rf'<a href="/matches/{match_ids[-1]}/" class="bracket-match" data-match-key="{key}">', svg
        )
    for m in tree["matches"]:
        if m["winner"]:
            assert re.search(rf'data-match-key="{m["match_key"]}"><title>[^<]*won by', svg)


def test_only_the_embed_may_be_framed(client, world):
    embed = client.get(f"/tournaments/{DOUBLE_SLUG}/embed/")
    assert "X-Frame-Options" not in embed.headers
    assert 'class="bracket"' in embed.content.decode() and "<nav" not in embed.content.decode()
    assert client.get(f"/tournaments/{DOUBLE_SLUG}/")["X-Frame-Options"] == "DENY"
    assert client.get(f"/tournaments/{SWISS_SLUG}/embed/").status_code == 200


def test_the_leaderboard_and_a_rating_chart_are_the_apis(client, world):
    api = client.get(f"/api/ladders/{LADDER_SLUG}/leaderboard/").json()
    api = api["results"] if isinstance(api, dict) else api
    rows = cells(client.get(f"/ladders/{LADDER_SLUG}/").content.decode(), "leaderboard")
    assert len(rows) == len(api)
    for row, expected in zip(rows, api):
        assert row[1].startswith(expected["competitor"])
        assert ("provisional" in row[1]) == expected["provisional"]
        assert [float(value) for value in row[2:5]] == pytest.approx(
            [expected["ordinal"], expected["mu"], expected["sigma"]], abs=0.005
        )
        assert int(row[5]) == expected["games"]
    entry = expected["entry"]
    history = client.get(f"/api/ladders/{LADDER_SLUG}/entries/{entry}/history/").json()
    history = history["results"] if isinstance(history, dict) else history
    html = client.get(f"/ladders/{LADDER_SLUG}/entries/{entry}/").content.decode()
    assert html.count('<circle class="dot"') == len(history) + 1  # the starting rating, then one a game
    assert len(cells(html, "history")) == len(history)


def test_the_deck_checker_lists_every_problem_with_its_hint_and_saves_only_when_signed_in(client, world):
    page = client.get("/decks/")
    assert page.status_code == 200 and 'name="text"' in page.content.decode()
    unknown = client.post(
        "/decks/", {"text": "Machete", "format": "no-such-format", "name": "x" * 101, "check": "1"}
    )
    assert unknown.status_code == 400
    assert 'id="format-errors"' in unknown.content.decode() and 'id="name-errors"' in unknown.content.decode()
    too_long = client.post("/decks/", {"text": "Machete\n" * 2000, "check": "1"})
    assert too_long.status_code == 400 and 'id="text-errors"' in too_long.content.decode()
    empty = client.post("/decks/", {"text": "", "check": "1"})
    assert empty.status_code == 400 and 'id="text-errors"' in empty.content.decode()
    draft = prebuilt_list()[0]
    bad_list = f"Gunslinger: {draft['gunslinger']}\n3 Not A Real Card\nMachete\n"
    checked = client.post("/decks/", {"text": bad_list, "check": "1"})
    html = checked.content.decode()
    assert checked.status_code == 200 and "not legal" in html
    violations = deck_check(text=bad_list).violations  # what the API's check answers
    assert len(violations) >= 2
    assert len(re.findall(r'<li data-code="', html)) == len(violations)
    for violation in violations:
        assert f'data-code="{violation["code"]}"' in html
        if violation["hint"]:
            assert unescape(violation["hint"]) in unescape(html)
    assert bad_list.splitlines()[1] in unescape(html)  # the pasted list stays in the form
    refused = client.post("/decks/", {"text": draft["text"], "save": "1"})
    assert refused.status_code == 403 and "Sign in to save" in refused.content.decode()
    client.force_login(world)
    before = Deck.objects.count()
    saved = client.post("/decks/", {"text": draft["text"], "name": "Mine", "save": "1"})
    assert Deck.objects.count() == before + 1
    deck = Deck.objects.order_by("-pk").first()
    assert saved.status_code == 302 and saved["Location"] == f"/decks/{deck.share_id}/"
    permalink = client.get(saved["Location"]).content.decode()
    formats = client.get("/api/ragnguns/formats/").json()
    assert len(cells(permalink, "legality")) == len(formats)
    assert deck.share_id in permalink and "Mine" in permalink
    assert client.get(f"/decks/{deck.share_id}/?version=1").status_code == 200
    assert client.get(f"/decks/{deck.share_id}/?version=2").status_code == 404
    assert client.get(f"/decks/{deck.share_id}/?version=99999999999999999999").status_code == 404


def test_the_replay_steps_through_the_log_and_verify_shows_the_seed_check(client):
    match = match_create(
        game_key="rat-snake", seats=[SeatSpec(bot="heuristic"), SeatSpec(bot="random")], bots_play="now"
    )
    head = match.events.count()
    assert head > 2
    last = client.get(f"/matches/{match.pk}/").content.decode()
    assert f"Step {head} of {head}" in last
    middle = client.get(f"/matches/{match.pk}/?step=2").content.decode()
    assert (
        "Step 2 of" in middle
        and f'href="/matches/{match.pk}/?step=1"' in middle
        and f'href="/matches/{match.pk}/?step=3"' in middle
    )
    assert len(re.findall(r'<li value="\d+"', middle)) == 2
    assert "Step 0 of" in client.get(f"/matches/{match.pk}/?step=-5").content.decode()
    assert f"Step {head} of" in client.get(f"/matches/{match.pk}/?step=99999").content.decode()
    assert f"Step {head} of" in client.get(f"/matches/{match.pk}/?step=abc").content.decode()
    verified = client.get(f"/matches/{match.pk}/verify/")
    api = client.get(f"/api/matches/{match.pk}/verify/").json()
    assert verified.status_code == 200 and "✔ Verified" in verified.content.decode()
    assert api["seed"] in verified.content.decode() and api["verified"] is True


def test_no_public_page_of_a_live_match_shows_a_spectator_hidden_information(client, world):
    baseline = client.get("/").content.decode() + client.get("/matches/").content.decode()
    live = live_match_with_secrets(world, baseline=baseline)
    match = live.match
    head = match.events.count()
    urls = [
        "/",
        "/matches/",
        f"/matches/{match.pk}/",
        f"/matches/{match.pk}/?fragment=1",
        f"/matches/{match.pk}/verify/",
    ]
    urls += [f"/matches/{match.pk}/?step={step}" for step in range(head + 1)]
    urls += [f"/matches/{match.pk}/?step={step}&fragment=1" for step in range(head + 1)]
    for url in urls:
        response = client.get(url)
        assert response.status_code in (200, 409), url
        html = response.content.decode()
        leaked = {token for token in live.hidden if token in html}
        assert not leaked, f"{url} shows {leaked}"
        assert live.seed_hex not in html, url
    assert client.get(f"/matches/{match.pk}/verify/").status_code == 409


def test_a_ladder_says_when_it_is_paused_or_archived(client):
    from ratings.services import ladder_archive, ladder_create, ladder_pause

    ladder = ladder_create(game_key="rat-snake", name="Quiet", slug="quiet", options={"passes": 1})
    assert "A round every" in client.get("/ladders/quiet/").content.decode()
    ladder_pause(ladder_id=ladder.pk)
    assert '<span class="badge warn">paused</span>' in client.get("/ladders/quiet/").content.decode()
    ladder_archive(ladder_id=ladder.pk)
    assert '<span class="badge bad">archived</span>' in client.get("/ladders/quiet/").content.decode()
    assert cells(client.get("/ladders/").content.decode(), "ladders")[0][-1] == "archived"


def test_a_seated_person_is_offered_to_play_a_live_match_a_spectator_is_not(client, django_user_model):
    person = django_user_model.objects.create_user("seated")
    match = match_create(game_key="rat-snake", seats=[SeatSpec(user=person), SeatSpec(bot="heuristic")])
    assert 'id="play-link"' not in client.get(f"/matches/{match.pk}/").content.decode()
    client.force_login(person)
    assert f'id="play-link" href="/play/{match.pk}/"' in client.get(f"/matches/{match.pk}/").content.decode()


def test_the_replay_passes_over_the_stores_own_events(client, settings, django_user_model):
    settings.SNAKEPIT_CONTRIBUTED_ENTROPY = True  # the default outside the tests: seats add entropy events
    person = django_user_model.objects.create_user("entropist")
    match = match_create(game_key="rat-snake", seats=[SeatSpec(user=person), SeatSpec(bot="heuristic")])
    kinds = list(match.events.order_by("seq").values_list("kind", flat=True))
    assert "entropy" in kinds
    for step in range(len(kinds) + 1):
        response = client.get(f"/matches/{match.pk}/?step={step}")
        assert response.status_code == 200, step
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert ">bot:heuristic committed to their part of the dice</a>" in page  # told, linked to its step
    assert "</summary>" in page and " entropy</summary>" in page  # its kind and payload one click away


def test_the_home_page_reads_no_row_per_ladder_or_match(client):
    """Four ladders and four matches cost the queries one of each does: every ladder's leader and
    count come from one query (ratings.selectors.leaderboard_summaries), not a leaderboard each."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from ratings import services as ratings_services

    def home() -> tuple[int, list[list[str]]]:
        with CaptureQueriesContext(connection) as queries:
            response = client.get("/")
        assert response.status_code == 200
        return len(queries.captured_queries), cells(response.content.decode(), "ladders")

    def ladder_and_match(number: int) -> None:
        ladder = ratings_services.ladder_create(game_key="rat-snake", name=f"Home {number}")
        for _ in range(number + 1):
            ratings_services.ladder_join(ladder=ladder, bot="random")
        match_create(game_key="rat-snake", seats=[SeatSpec(bot="random"), SeatSpec(bot="heuristic")])

    ladder_and_match(0)
    one, _ = home()
    for number in range(1, 4):
        ladder_and_match(number)
    four, rows = home()
    assert one > 0 and four == one
    assert [(row[0], row[2], row[3]) for row in rows] == [
        (f"Home {number}", "no games yet", str(number + 1)) for number in range(4)
    ]


def test_the_home_pages_tables_are_built_once_per_version_and_every_write_shows_at_once(
    client, users, eager_celery, django_capture_on_commit_callbacks
):
    """The tables (ladders, tournaments, matches) are kept per version of what they list: the first
    page after each write below equals one built with nothing kept, a repeated page reads the three
    versions alone, and what is made per person (who is signed in) is never served to another."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from core.read_cache import read_caches_clear
    from matches.services import match_forfeit
    from ratings import services as ratings_services
    from ratings.rounds import ladder_round_create
    from tournaments.services.setup import tournament_configure, tournament_create, tournament_open

    shown: list[str] = []

    def tables(html: str) -> str:
        return html[html.index("<h2>Games</h2>") :]

    def shows_the_write() -> None:
        with CaptureQueriesContext(connection) as built:
            page = client.get("/").content.decode()
        with CaptureQueriesContext(connection) as kept:
            assert client.get("/").content.decode() == page
        assert len(kept.captured_queries) == 3 < len(built.captured_queries)
        read_caches_clear()
        assert client.get("/").content.decode() == page  # what a fresh build gives
        assert tables(page) not in shown, "the write changed nothing the home page shows"
        shown.append(tables(page))

    shows_the_write()
    ladder = ratings_services.ladder_create(game_key="rat-snake", name="Home ladder", options={"passes": 1})
    shows_the_write()
    for bot in ("random", "heuristic"):
        ratings_services.ladder_join(ladder=ladder, bot=bot)
        shows_the_write()
    assert cells(shown[-1], "ladders")[0][2] == "no games yet"
    with django_capture_on_commit_callbacks(execute=True):
        ladder_round_create(ladder_id=ladder.pk)  # the bots play it out, and it is rated on commit
    shows_the_write()
    assert cells(shown[-1], "ladders")[0][2] != "no games yet"
    tournament = tournament_create(
        organiser=users["carol"], name="Home cup", game_key="rat-snake", format="swiss"
    )
    tournament_open(slug=tournament.slug, user=users["carol"])
    shows_the_write()
    tournament_configure(slug=tournament.slug, user=users["carol"], name="Home cup, renamed")
    shows_the_write()
    assert cells(shown[-1], "tournaments")[0][0] == "Home cup, renamed"
    match = match_create(game_key="rat-snake", seats=[SeatSpec(user=users["bob"]), SeatSpec(bot="random")])
    shows_the_write()
    match_forfeit(match_id=match.pk, seat=0, reason="resigned", user=users["bob"])
    shows_the_write()
    assert cells(shown[-1], "matches")[0][3] == "finished"

    client.force_login(users["alice"])
    assert "alice" in client.get("/").content.decode()
    client.logout()
    assert "alice" not in client.get("/").content.decode()
