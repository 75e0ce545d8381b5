"""Every game's play page and replay fit a 390 px phone: nothing wider than the screen, so nothing
scrolls sideways, mid-match and once it is over, for the seated person and for a spectator.

Without a `chromium` on the PATH these tests skip on a laptop and fail under CI=true."""

from __future__ import annotations

import random

import pytest

from engines.registry import default_bot, game_keys, get_game
from matches.selectors import match_game, match_snapshot
from matches.services import SeatSpec, match_create, match_submit_action
from tests.api.test_streams import person_seat
from tests.pages.test_play_in_browser import sign_in

PHONE = {"width": 390, "height": 844}
MID_MATCH_MOVES = 6
MOVES_TO_THE_END = 400
# What is wider than the viewport, for the failure message: the elements reaching past its right edge
# and those whose content spills out of them, by tag and class.
OVERFLOW = """() => {
  const width = document.documentElement.clientWidth;
  const wide = [...document.querySelectorAll('body *')]
    .filter(element => element.getBoundingClientRect().right > width + 1)
    .map(element => element.tagName.toLowerCase() + (element.className ? '.' + element.className : '')
      + ' ' + Math.round(element.getBoundingClientRect().right));
  const spilling = [...document.querySelectorAll('body *')]
    .filter(element => element.scrollWidth > element.clientWidth + 1
      && getComputedStyle(element).overflowX === 'visible')
    .map(element => element.tagName.toLowerCase() + (element.className ? '.' + element.className : '')
      + ' ' + element.scrollWidth + '>' + element.clientWidth);
  const scroll = document.documentElement.scrollWidth;
  return {scroll, width, wide: wide.slice(0, 8), spilling: spilling.slice(0, 8)};
}"""


def moves_made(match, person, moves: int) -> None:
    """Up to `moves` of the person's random legal moves (the bots answer each)."""
    rng = random.Random(7)
    game = match_game(match)
    for _ in range(moves):
        match.refresh_from_db()
        snapshot = match_snapshot(match)
        decision = game.decision(snapshot.state)
        if match.status != "running" or 0 not in decision.seats:
            return
        action = rng.choice(game.legal_actions(snapshot.state, 0))
        match_submit_action(match_id=match.pk, user=person, action=dict(action), expected_seq=snapshot.seq)


def assert_fits(page, url: str) -> None:
    response = page.goto(url)
    assert response.status == 200, url
    measured = page.evaluate(OVERFLOW)
    assert measured["scroll"] <= measured["width"], f"{url} is wider than a phone: {measured}"


@pytest.mark.parametrize("key", game_keys())
def test_every_games_play_page_and_replay_fit_a_phone(key, browser, live_server, transactional_db, users):
    alice = users["alice"]
    game = get_game(key)
    bots = [SeatSpec(bot=default_bot(key))] * max(game.spec.min_players - 1, 1)
    # A fixed seed: the same position each run (drawn hands and names vary in width from seed to seed).
    match = match_create(
        game_key=key, seats=[person_seat(key, alice), *bots], entropy="server", seed=bytes(32)
    )
    seated = browser.new_context(viewport=PHONE).new_page()
    sign_in(seated, live_server, "alice", "alice-password")
    spectator = browser.new_context(viewport=PHONE).new_page()
    for moves in (MID_MATCH_MOVES, MOVES_TO_THE_END):
        moves_made(match, alice, moves)
        assert_fits(seated, f"{live_server.url}/play/{match.pk}/")
        assert_fits(spectator, f"{live_server.url}/matches/{match.pk}/")
        assert_fits(spectator, f"{live_server.url}/matches/{match.pk}/?step=1")
    match.refresh_from_db()
    assert match.status != "running", "the match should have been played to its end"
