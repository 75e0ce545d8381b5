"""Every registered game through the whole service, as users and operators run it: people and bots
play a match through the API, seeing only what the rules let them see; a finished match verifies
from its revealed seed; a hundred bot games finish through the event store; a tournament and a
ladder of the game run on bots. Parametrised over `engines.registry.game_keys()`, so a game joins
these tests by being registered."""

from __future__ import annotations

import random

import pytest
from django.core.management import call_command

from engines.registry import bot_names, default_bot, game_keys, get_game
from matches.models import Match
from matches.selectors import match_game
from ratings import services as rating_services
from ratings.models import RatedMatch
from ratings.rounds import ladder_round_create
from tests.support import act_once, match_with_people

pytestmark = pytest.mark.django_db

GAMES = game_keys()


def saved_deck(user) -> str:
    """A legal saved deck of `user`'s (games played with decks), made from the first prebuilt one."""
    from decks.services import deck_create
    from engines.ragnguns import load_prebuilt

    prebuilt = load_prebuilt()[0]
    version = deck_create(
        owner=user, name="Test deck", gunslinger=prebuilt.gunslinger, cards=list(prebuilt.cards)
    )
    assert version.legal, version.violations
    return version.deck.share_id


def human(key: str, user) -> dict:
    seat = {"user": user.username}
    if get_game(key).spec.needs_deck:
        seat["deck"] = saved_deck(user)
    return seat


def seats_with_bots(key: str, humans: list[dict]) -> list[dict]:
    """The humans, then the game's default bot up to its smallest table."""
    missing = max(get_game(key).spec.min_players - len(humans), 0)
    return [*humans, *([{"bot": default_bot(key)}] * missing)]


def audiences(match: Match) -> dict[int, frozenset[int] | None]:
    """Who may read each event while the match runs, per the engine, from the finished log."""
    game = match_game(match)
    state = game.new_state(seats=match.seats.count(), options=match.options)
    audience = {}
    for row in match.events.order_by("seq"):
        event = row.to_engine()
        audience[row.seq] = game.event_audience(state, event)
        game.apply(state, event)
    return audience


@pytest.mark.parametrize("key", GAMES)
def test_the_game_is_described_by_the_games_endpoint(key, client_for):
    described = {game["key"]: game for game in client_for().get("/api/games/").json()}
    assert described[key]["name"] == get_game(key).spec.name
    assert described[key]["bots"] == sorted(bot_names(key)) and "random" in described[key]["bots"]
    assert described[key]["default_bot"] == default_bot(key)
    assert described[key]["min_players"] >= 2


@pytest.mark.parametrize("key", GAMES)
def test_two_people_play_a_whole_match_through_the_api_each_seeing_only_what_they_may(key, users, client_for):
    alice, bob = client_for(users["alice"]), client_for(users["bob"])
    seats = seats_with_bots(key, [human(key, users["alice"]), human(key, users["bob"])])
    match_id = match_with_people(key, seats, {"alice": alice, "bob": bob})["id"]
    base = f"/api/matches/{match_id}"
    rng = random.Random(7)
    seen_while_running = {0: {}, 1: {}, None: {}}  # viewer -> seq -> listed event
    for step in range(20_000):
        # Only this test acts (bots answer inside its requests), so a running match stays running
        # while the listings are read.
        if (step < 10 or step % 5 == 0) and alice.get(f"{base}/").json()["status"] == "running":
            for seat, client in ((0, alice), (1, bob), (None, client_for())):
                for event in client.get(f"{base}/events/").json():
                    seen_while_running[seat].setdefault(event["seq"], event)
                view = client.get(f"{base}/view/").json()
                assert view["seat"] == seat
                assert (view["legal_actions"] == []) == (
                    seat is None or seat not in view["decision"]["seats"]
                )
        if act_once({0: alice, 1: bob}, match_id, rng) is None:
            break
    finished = alice.get(f"{base}/").json()
    assert finished["status"] == "finished", "the match did not end"
    assert len(finished["outcome"]["ranks"]) == len(seats)

    match = Match.objects.get(pk=match_id)
    audience = audiences(match)
    for seat, listed in seen_while_running.items():
        for seq, event in listed.items():
            hidden = audience[seq] is not None and seat not in audience[seq]
            assert event["redacted"] == hidden and (event["payload"] is None) == hidden, (seat, event)
    assert len(seen_while_running[None]) >= len(audience) // 2, (
        "the listings were hardly read while the match ran"
    )
    after = client_for().get(f"{base}/events/").json()
    assert after and not any(event["redacted"] for event in after)
    report = client_for().get(f"{base}/verify/").json()
    assert report["verified"] is True, report
    assert bytes.fromhex(finished["seed"])


@pytest.mark.parametrize("key", GAMES)
def test_actions_carry_the_expected_seq_and_an_idempotency_key(key, users, client_for):
    alice = client_for(users["alice"])
    seats = seats_with_bots(key, [human(key, users["alice"])])
    match_id = alice.post("/api/matches/", {"game": key, "seats": seats}, format="json").json()["id"]
    base = f"/api/matches/{match_id}"
    mine = alice.get(f"{base}/view/").json()
    while 0 not in mine["decision"]["seats"]:  # the bots finished the match before the person's turn
        assert mine["status"] == "finished"
        return
    body = {"expected_seq": mine["seq"], "action": mine["legal_actions"][0], "seat": 0}
    first = alice.post(f"{base}/actions/", body, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    again = alice.post(f"{base}/actions/", body, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert first.status_code == 201 and again.status_code in (200, 201), (first.json(), again.json())
    assert again.json()["event"]["seq"] == first.json()["event"]["seq"]
    stale = alice.post(f"{base}/actions/", body, format="json")
    if alice.get(f"{base}/").json()["status"] != "finished":
        assert (stale.status_code, stale.json()["code"]) == (409, "match/stale_seq")


@pytest.mark.parametrize("key", GAMES)
def test_a_hundred_bot_games_finish_through_the_event_store_and_verify(key, capsys):
    call_command("play_bots", key, "--matches", "100")
    matches = Match.objects.filter(game=key)
    assert matches.count() == 100 and all(match.is_finished for match in matches)
    call_command("verify_matches", "--game", key)
    assert "100 matches" in capsys.readouterr().out


@pytest.mark.parametrize("key", GAMES)
def test_a_tournament_of_it_is_played_by_bots_and_records_every_result(
    key, django_user_model, client_for, eager_celery, django_capture_on_commit_callbacks
):
    organiser = client_for(django_user_model.objects.create_user("organiser"))
    seats = get_game(key).spec.min_players
    body = (
        {"name": f"{key} open", "game": key, "format": "swiss"}
        if seats == 2
        else {
            "name": f"{key} pods",
            "game": key,
            "format": "pods",
            "seats_per_match": seats,
            "config": {"rounds": 2},
        }
    )
    created = organiser.post("/api/tournaments/", body, format="json")
    assert created.status_code == 201, created.json()
    slug = created.json()["slug"]
    assert organiser.post(f"/api/tournaments/{slug}/open/").status_code == 200
    for number in range(2 * seats):
        bot = bot_names(key)[number % len(bot_names(key))]
        assert (
            organiser.post(f"/api/tournaments/{slug}/register/", {"bot": bot}, format="json").status_code
            == 201
        )
    with django_capture_on_commit_callbacks(execute=True):
        assert organiser.post(f"/api/tournaments/{slug}/start/").status_code == 200
    for _ in range(20):
        if organiser.get(f"/api/tournaments/{slug}/").json()["status"] == "finished":
            break
        with django_capture_on_commit_callbacks(execute=True):
            assert organiser.post(f"/api/tournaments/{slug}/next-round/").status_code == 200
    assert organiser.get(f"/api/tournaments/{slug}/").json()["status"] == "finished"
    tables = organiser.get(f"/api/tournaments/{slug}/tables/").json()
    played = [table for table in tables if table["matches"]]
    assert played and all(table["status"] not in {"open", "reported", "disputed"} for table in tables)
    assert all(
        Match.objects.get(pk=match_id).is_finished for table in played for match_id in table["matches"]
    )
    standings = organiser.get(f"/api/tournaments/{slug}/standings/").json()
    assert len(standings) == 2 * seats
    call_command("rebuild_tournaments", "--tournament", slug)


@pytest.mark.parametrize("key", GAMES)
def test_a_ladder_of_it_plays_bot_rounds_and_rates_each_match_once(
    key, eager_celery, django_capture_on_commit_callbacks
):
    seats = get_game(key).spec.min_players
    ladder = rating_services.ladder_create(
        game_key=key, name=f"{key} ladder", slug="ladder", seats_per_match=seats
    )
    for number in range(seats):
        rating_services.ladder_join(ladder=ladder, bot=bot_names(key)[number % len(bot_names(key))])
    rng = random.Random(3)
    for _ in range(3):
        with django_capture_on_commit_callbacks(execute=True):
            ladder_round_create(ladder_id=ladder.pk, rng=rng)
    matches = Match.objects.filter(ladder_match__round__ladder=ladder)
    assert matches.count() == 3 and all(match.is_finished for match in matches)
    assert RatedMatch.objects.filter(ladder=ladder).count() == 3
    assert all(entry.games == 3 for entry in ladder.entries.all())
