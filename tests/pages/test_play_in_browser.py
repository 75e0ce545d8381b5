"""Playing in a real headless Chromium: a newcomer signs up, takes an API token, starts matches against a
bot and plays them to the end with clicks; two people act in one live match, each page following the
other's moves in place; and a walk of every page of a live match, as each seat and as a spectator,
finds nothing the viewer may not see.

Without a `chromium` on the PATH these tests skip on a laptop and fail under CI=true.
"""

from __future__ import annotations

import random
import re

import pytest

from decks.selectors import deck_version_brought
from decks.services import deck_create
from engines.entropy import part_commitment
from engines.ragnguns import load_prebuilt
from engines.registry import default_bot, get_game
from matches.models import Match
from matches.selectors import match_event_listing, match_snapshot
from matches.services import SeatSpec, match_create, match_submit_action

MAX_CLICKS = 400


def sign_in(page, live_server, username, password):
    page.goto(f"{live_server.url}/accounts/sign-in/")
    page.fill("#sign-in input[name=username]", username)
    page.fill("#sign-in input[name=password]", password)
    page.click("#sign-in [type=submit]")
    page.wait_for_selector(f"#who >> text={username}")


def shown_seq(page) -> int:
    return int(page.get_attribute("#play-live .play-live", "data-seq"))


def play_to_the_end(page) -> int:
    """Click the first offered action until the match is over; the number of clicks."""
    for clicks in range(MAX_CLICKS):
        page.wait_for_selector("#play-actions, #outcome-title", timeout=15000)
        if page.locator("#outcome-title").count():
            return clicks
        before = shown_seq(page)
        page.locator("#play-actions form").first.locator("[type=submit]").first.click()
        page.wait_for_function(
            "before => { const live = document.querySelector('#play-live .play-live');"
            " return (live && Number(live.dataset.seq) > before) || document.querySelector('#play-error'); }",
            arg=before,
            timeout=15000,
        )
        assert page.locator("#play-error").count() == 0, page.inner_text("#play-error")
    raise AssertionError(f"still playing after {MAX_CLICKS} clicks")


def test_a_newcomer_signs_up_takes_a_token_and_plays_three_games_to_the_end_with_clicks(
    browser, live_server, transactional_db, settings
):
    """With the service's default of every seat adding its part of the chance (made in the browser)."""
    from rest_framework.authtoken.models import Token

    settings.SNAKEPIT_CONTRIBUTED_ENTROPY = True

    page = browser.new_page()
    parts_sent = []
    page.on(
        "request",
        lambda request: (
            parts_sent.append(request.post_data) if "entropy_step" in (request.post_data or "") else None
        ),
    )
    page.goto(f"{live_server.url}/")
    page.click("#who >> text=sign up")
    page.fill("#sign-up input[name=username]", "newcomer")
    page.fill("#sign-up input[name=password1]", "a long enough secret 42")
    page.fill("#sign-up input[name=password2]", "a long enough secret 42")
    page.click("#sign-up [type=submit]")
    page.click("#token-regenerate [type=submit]")
    token = page.inner_text("#api-token").strip()
    assert token == Token.objects.get(user__username="newcomer").key
    response = page.request.get(
        f"{live_server.url}/api/matches/", headers={"Authorization": f"Token {token}"}
    )
    assert response.status == 200

    # Cup Dice (tests/games/) has no board of its own and only the random bot: the generic board.
    games = {"rat-snake": "rat-snake", "rattlesnake": "rattlesnake", "cup-dice": "generic"}
    for game, board in games.items():
        page.click("text=Play a match against a bot") if game == "rat-snake" else page.goto(
            f"{live_server.url}/play/new/"
        )
        page.select_option("#id_game", game)
        page.wait_for_selector(f'#new-match-options[data-game="{game}"]')  # its bots and options drawn
        page.fill("#id_bots", "1")
        assert page.input_value("#id_bot") == default_bot(game)
        page.select_option("#id_bot", default_bot(game))
        page.click("#new-match [type=submit]")
        page.wait_for_selector(f'[data-board="{board}"]')
        match = Match.objects.get(game=game, seats__user__username="newcomer")
        assert page.url.endswith(f"/play/{match.pk}/")
        clicks = play_to_the_end(page)
        match.refresh_from_db()
        [commit, reveal] = match.events.filter(kind="entropy", seat=0).order_by("seq")
        assert commit.payload["commitment"] == part_commitment(reveal.payload["value"])
        assert reveal.payload["value"] in parts_sent[-1]  # made by the browser, not the server
        assert clicks > 0 and match.is_finished
        assert "newcomer" in page.inner_text(".play-outcome")
        page.wait_for_selector("#play-head >> text=finished", timeout=10000)  # the polled head catches up
    page.goto(f"{live_server.url}/play/")
    assert page.locator("#my-matches tbody tr").count() == len(games)


def test_two_people_act_in_one_live_match_and_each_page_follows_the_other(
    browser, live_server, transactional_db, users, settings
):
    settings.SNAKEPIT_CONTRIBUTED_ENTROPY = True
    match = match_create(
        game_key="rattlesnake", seats=[SeatSpec(user=users["alice"]), SeatSpec(user=users["bob"])]
    )
    pages = {}
    for name in ("alice", "bob"):
        pages[name] = browser.new_context().new_page()
        sign_in(pages[name], live_server, name, f"{name}-password")
        pages[name].goto(f"{live_server.url}/play/{match.pk}/")
    # Each adds a part of the chance: Alice commits, Bob commits and so reveals at once, and Alice's
    # page, following Bob's step, offers her reveal.
    for name, button in (("alice", "Add my part"), ("bob", "Add my part"), ("alice", "Reveal my part")):
        pages[name].locator(
            f'#play-actions form[data-action-type="entropy"] button:has-text("{button}")'
        ).click(timeout=15000)
    pages["alice"].wait_for_selector('form[data-action-type="entropy"]', state="detached", timeout=15000)
    assert match.events.filter(kind="entropy").count() == 4
    acted = {"alice": 0, "bob": 0}
    game = get_game("rattlesnake")
    while min(acted.values()) < 3 and not Match.objects.get(pk=match.pk).is_finished:
        snapshot = match_snapshot(match)
        [seat] = game.decision(snapshot.state).seats
        mover, watcher = ("alice", "bob") if seat == 0 else ("bob", "alice")
        # The mover's page shows their move without a reload (the head is polled, the board redrawn),
        # and the watcher's page offers nothing to click.
        pages[mover].wait_for_function(
            "seq => Number(document.querySelector('#play-live .play-live').dataset.seq) === seq",
            arg=snapshot.seq,
            timeout=15000,
        )
        pages[mover].wait_for_selector("#play-actions")
        pages[watcher].wait_for_selector("#play-head >> text=waiting", timeout=15000)
        pages[watcher].wait_for_selector("#play-actions", state="detached", timeout=15000)
        pages[mover].locator("#play-actions form").first.locator("[type=submit]").first.click()
        pages[mover].wait_for_function(
            "seq => Number(document.querySelector('#play-live .play-live').dataset.seq) > seq"
            " || document.querySelector('#play-error')",
            arg=snapshot.seq,
            timeout=15000,
        )
        assert pages[mover].locator("#play-error").count() == 0, pages[mover].inner_text("#play-error")
        last = match.events.order_by("-seq").first()
        assert last.seat == seat and last.actor.username == mover
        acted[mover] += 1
        # The watcher's page catches up in place: its board shows the new head.
        pages[watcher].wait_for_function(
            "seq => Number(document.querySelector('#play-live .play-live').dataset.seq) >= seq",
            arg=last.seq,
            timeout=15000,
        )
    assert min(acted.values()) >= 3 or Match.objects.get(pk=match.pk).is_finished


# --- no page leaks what its viewer may not see --------------------------------------------------------


def strings_in(value) -> set[str]:
    found = set()
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            found.add(item)
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, (list, tuple)):
            pending.extend(item)
    return found


def card_names_in(text: str, names: set[str]) -> set[str]:
    """Which of `names` (card keys) appear in `text`, as keys or as the words the boards print."""
    lowered = text.lower()
    return {
        name
        for name in names
        if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", lowered)
        or re.search(rf"(?<![\w-]){re.escape(name.replace('-', ' '))}(?![\w-])", lowered)
    }


@pytest.fixture
def live_ragnguns(users):
    """Alice and Bob, each with a different saved deck, some way into a Rag'n'Guns match."""
    decks = load_prebuilt()
    first = decks[0]
    second = next(deck for deck in decks[1:] if not set(deck.cards) & set(first.cards))
    versions = [
        deck_create(owner=users[name], name=name, gunslinger=deck.gunslinger, cards=list(deck.cards))
        for name, deck in (("alice", first), ("bob", second))
    ]
    match = match_create(
        game_key="ragnguns",
        seats=[
            SeatSpec(user=users["alice"], deck=deck_version_brought(versions[0])),
            SeatSpec(user=users["bob"], deck=deck_version_brought(versions[1])),
        ],
        seed=b"\x07" * 32,
    )
    game, rng = get_game("ragnguns"), random.Random(5)
    for _ in range(6):
        snapshot = match_snapshot(match)
        decision = game.decision(snapshot.state)
        if decision.kind == "over":
            break
        seat = min(decision.seats)
        action = rng.choice(game.legal_actions(snapshot.state, seat))
        match_submit_action(
            match_id=match.pk, user=users[("alice", "bob")[seat]], action=action, expected_seq=snapshot.seq
        )
    match.refresh_from_db()
    assert not match.is_finished
    return match, {0: set(first.cards), 1: set(second.cards)}


def hidden_from(match, decks: dict[int, set[str]], viewer: int | None) -> set[str]:
    """Card names the viewer may not know now: what the other seats' views and deck lists hold, less
    what the viewer's own view and the log as they read it show."""
    game = get_game(match.game)
    state = match_snapshot(match).state
    others = [seat for seat in (0, 1) if seat != viewer]
    secret = set().union(*(strings_in(game.view(state, seat)) | decks[seat] for seat in others))
    known = strings_in([row["payload"] for row in match_event_listing(match, viewer_seat=viewer)])
    # What the viewer was shown at any point stays known: a card once face up is no secret after.
    replayed = game.new_state(seats=2, options=match.options)
    known |= strings_in(game.view(replayed, viewer))
    for row in match.events.filter(kind__in=("action", "chance", "forfeit")).order_by("seq"):
        game.apply(replayed, row.to_engine())
        known |= strings_in(game.view(replayed, viewer))
    if viewer is not None:
        known |= decks[viewer]
    cards = decks[0] | decks[1]
    return (secret - known) & cards


def test_no_page_of_a_live_match_shows_a_seat_or_a_spectator_what_it_may_not_see(
    browser, live_server, transactional_db, live_ragnguns
):
    match, decks = live_ragnguns
    head = match.events.count()
    urls = [
        f"/play/{match.pk}/",
        f"/play/{match.pk}/live/",
        f"/play/{match.pk}/head/",
        f"/matches/{match.pk}/",
        f"/matches/{match.pk}/verify/",
    ] + [f"/matches/{match.pk}/?step={step}" for step in range(head + 1)]
    viewers = {0: "alice", 1: "bob", None: None}
    for viewer, name in viewers.items():
        hidden = hidden_from(match, decks, viewer)
        assert hidden, "the walk needs something hidden to look for"
        page = browser.new_context().new_page()
        if name:
            sign_in(page, live_server, name, f"{name}-password")
        seen = set()
        for url in urls:
            response = page.goto(f"{live_server.url}{url}")
            assert response.status < 500, url
            text = page.content()
            leaked = card_names_in(text, hidden)
            assert not leaked, f"{url} shows {name or 'a spectator'} {sorted(leaked)}"
            seen |= card_names_in(text, decks[viewer] if viewer is not None else set())
        if viewer is not None:
            # The check can fail: the viewer's own hand is on their page.
            hand = set(
                get_game("ragnguns").view(match_snapshot(match).state, viewer)["seats"][viewer]["hand"]
            )
            assert hand <= seen
        page.context.close()


def test_a_new_match_takes_the_options_and_the_seat_chosen_with_script_and_without(
    browser, live_server, transactional_db, users
):
    """With script, choosing the game redraws its options in place (the address follows); without, the
    "Show its options" button reloads the page for it. Either way the match has what was chosen."""
    page = browser.new_context().new_page()
    sign_in(page, live_server, "alice", "alice-password")
    page.goto(f"{live_server.url}/play/new/")
    page.select_option("#id_game", "rattlebones")
    page.wait_for_selector('#new-match-options[data-game="rattlebones"]')
    assert page.url.endswith("/play/new/?game=rattlebones")
    page.select_option("#id_option_x2_points", "points_sides")
    page.select_option("#id_seat", "1")
    page.click("#new-match [type=submit]")
    page.wait_for_selector('[data-board="rattlebones"]')
    match = Match.objects.get(game="rattlebones")
    assert page.url.endswith(f"/play/{match.pk}/")
    assert match.options["x2_points"] == "points_sides"
    assert match.seats.get(user=users["alice"]).index == 1

    plain = browser.new_context(java_script_enabled=False).new_page()
    sign_in(plain, live_server, "alice", "alice-password")
    plain.goto(f"{live_server.url}/play/new/")
    plain.select_option("#id_game", "rattlesnake")
    plain.click("#new-match button[name=show_options]")
    plain.wait_for_selector('#new-match-options[data-game="rattlesnake"]')
    plain.select_option("#id_option_pistol", "seat_0")
    plain.click("#new-match button:has-text('Start the match')")
    plain.wait_for_selector('[data-board="rattlesnake"]')
    match = Match.objects.get(game="rattlesnake")
    assert match.options["pistol"] == "seat_0" and match.seats.get(user=users["alice"]).index == 0
