"""A ladder's page marks every entry that sits out: a paused one keeps its place with the reason as
a badge, an inactive one (not played for the ladder's `inactive_after_days`) is listed below the
ranked ones without a place, and the entries that left are listed at the bottom on asking
(`?left=1`), each marked; the places stay the API's."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from ratings import services as ladders
from ratings.models import LadderEntry
from tests.pages.test_public_pages import cells

pytestmark = pytest.mark.django_db


@pytest.fixture
def duel(users):
    """Four on one ladder: alice ranked, bob paused (his deck, say), carol inactive, dave left."""
    ladder = ladders.ladder_create(game_key="rat-snake", name="Duel", slug="duel", seats_per_match=2)
    dave = type(users["alice"]).objects.create_user("dave", password="dave-password")
    entries = {
        name: ladders.ladder_join(ladder=ladder, user=user) for name, user in {**users, "dave": dave}.items()
    }
    ladders.entry_pause(entry_id=entries["bob"].pk, reason=LadderEntry.Pause.DECK_ILLEGAL)
    # Joined long ago and never played since: the ladder counts it inactive.
    LadderEntry.objects.filter(pk=entries["carol"].pk).update(joined_at=timezone.now() - timedelta(days=40))
    ladders.ladder_leave(ladder=ladder, user=dave)
    return ladder


def board(client, query: str = "") -> tuple[str, list[list[str]]]:
    html = client.get(f"/ladders/duel/{query}").content.decode()
    return html, cells(html, "leaderboard")


def test_paused_and_inactive_entries_are_marked_with_the_reason_and_the_places_are_the_apis(client, duel):
    html, rows = board(client)
    api = client.get("/api/ladders/duel/leaderboard/").json()
    api = api["results"] if isinstance(api, dict) else api
    assert [row["competitor"] for row in api] == ["alice", "bob"]  # carol is inactive, dave left
    by_name = {row[1].split()[0]: row for row in rows}
    assert set(by_name) == {"alice", "bob", "carol"}
    assert [row[0] for row in rows[:2]] == ["1", "2"] and rows[2][0] == "—"
    assert "paused: deck illegal" in by_name["bob"][1] and "inactive" not in by_name["bob"][1]
    assert "inactive" in by_name["carol"][1] and "paused" not in by_name["carol"][1]
    assert "paused" not in by_name["alice"][1] and "inactive" not in by_name["alice"][1]
    assert 'title="sits out the rounds: its deck is no longer legal"' in html
    assert "dave" not in html
    assert 'href="?left=1">Show the entries that left (1)' in html


def test_the_entries_that_left_are_listed_at_the_bottom_on_asking(client, duel):
    html, rows = board(client, "?left=1")
    assert rows[-1][1] == "dave left" and rows[-1][0] == "—"
    assert [row[1].split()[0] for row in rows] == ["alice", "bob", "carol", "dave"]
    assert "Hide the entries that left" in html
    # The live fragment polls the same view with the same question, so the rows stay while it polls.
    assert 'data-live-src="/ladders/duel/?left=1"' in html
    fragment = client.get("/ladders/duel/?left=1", headers={"X-Live": "1"}).content.decode()
    assert "dave" in fragment and "<nav" not in fragment


def test_a_ladder_nobody_left_offers_no_toggle(client, users):
    ladder = ladders.ladder_create(game_key="rat-snake", name="Duel", slug="duel", seats_per_match=2)
    ladders.ladder_join(ladder=ladder, user=users["alice"])
    html, rows = board(client)
    assert len(rows) == 1 and rows[0][0] == "1" and "entry-mark" not in html
    assert "ladder-left-toggle" not in html
