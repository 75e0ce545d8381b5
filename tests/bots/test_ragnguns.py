"""Uploaded Rag'n'Guns bots bring a deck (issue #20): an upload names one of its owner's saved decks,
legal in the format the validation match plays under the ban list in effect; the version keeps it
frozen, and every seat it holds brings it, in its validation match and on ladders."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from bots.models import BotVersion
from bots.services import bot_match_create, bot_version_upload, ladder_seats_bind
from core.errors import Rejected
from decks import services as deck_services
from decks.models import DeckVersion
from engines.ragnguns import load_prebuilt
from matches.models import Match, MatchEvent
from ratings import services as ladders
from ratings.models import LadderEntry, RatedMatch
from ratings.rounds import ladder_round_create
from tests.bots.conftest import program

pytestmark = pytest.mark.django_db
needs_root = pytest.mark.usefixtures("root_worker")

PREBUILT = {deck.id: deck for deck in load_prebuilt()}
STAMPEDE = PREBUILT["stampede-at-dawn"]
SALOON = PREBUILT["saloon-nights"]


def saved(owner, deck=STAMPEDE, name="Stampede", cards=None) -> DeckVersion:
    return deck_services.deck_create(
        owner=owner,
        name=name,
        format_key="standard",
        gunslinger=deck.gunslinger,
        cards=cards or list(deck.cards),
    )


def upload(client, deck: DeckVersion | str | None, *, name="rando", game="ragnguns", **extra):
    body = {"name": name, "game": game, "source": program("random_bot"), **extra}
    if deck is not None:
        body["deck"] = deck if isinstance(deck, str) else deck.deck.share_id
    return client.post("/api/bots/", body, format="json")


def brought(match: Match) -> dict[int, dict]:
    """Each seat's opening `bring_deck` action, as the match's log holds it."""
    events = match.events.filter(kind=MatchEvent.Kind.ACTION, payload__type="bring_deck")
    return {
        event.seat: {"gunslinger": event.payload["gunslinger"], "cards": event.payload["cards"]}
        for event in events
    }


def as_brought(version: DeckVersion) -> dict:
    return {"gunslinger": version.gunslinger, "cards": list(version.cards)}


@needs_root
def test_a_bot_with_a_legal_deck_plays_its_validation_match_with_it_on_both_seats_and_passes(
    users, client_for, bot_settings, eager_celery, django_capture_on_commit_callbacks
):
    alice = client_for(users["alice"])
    deck = saved(users["alice"])
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(alice, deck)
    assert response.status_code == 201, response.json()
    bot_id = response.json()["bot"]
    assert response.json()["deck"] == {"share_id": deck.deck.share_id, "version": 1, "name": "Stampede"}
    version = BotVersion.objects.get(bot_id=bot_id, number=1)
    assert version.status == BotVersion.Status.PASSED, version.log
    assert version.deck_version_id == deck.pk
    assert DeckVersion.objects.get(pk=deck.pk).frozen_for == f"bot {bot_id} v1"

    match = version.validation_match
    assert match.is_finished and match.game == "ragnguns"
    assert brought(match) == {0: as_brought(deck), 1: as_brought(deck)}
    assert match.events.filter(kind=MatchEvent.Kind.ACTION).count() > 2  # it played, not only brought
    assert not match.events.filter(kind=MatchEvent.Kind.FORFEIT).exists()

    own = alice.get(f"/api/bots/{bot_id}/versions/1/").json()
    assert own["deck"] == {"share_id": deck.deck.share_id, "version": 1, "name": "Stampede"}
    public = client_for().get(f"/api/bots/{bot_id}/")
    assert public.status_code == 200
    assert deck.deck.share_id not in public.content.decode() and "deck" not in public.json()["versions"][0]
    assert client_for(users["bob"]).get(f"/api/bots/{bot_id}/versions/1/").status_code == 403


def test_a_multipart_upload_names_its_deck_and_a_version_of_it(users, client_for):
    first = saved(users["alice"])
    second = deck_services.deck_update(
        share_id=first.deck.share_id,
        user=users["alice"],
        gunslinger=SALOON.gunslinger,
        cards=list(SALOON.cards),
    )
    assert second.number == 2
    response = client_for(users["alice"]).post(
        "/api/bots/",
        {
            "name": "filed",
            "game": "ragnguns",
            "deck": first.deck.share_id,
            "deck_version": "1",
            "file": SimpleUploadedFile("bot.py", program("random_bot").encode()),
        },
        format="multipart",
    )
    assert response.status_code == 201, response.json()
    assert BotVersion.objects.get(bot__name="filed").deck_version_id == first.pk
    assert response.json()["deck"]["version"] == 1


def test_a_deck_the_ban_list_in_effect_makes_illegal_is_refused_with_its_violations(
    users, client_for, django_user_model
):
    deck = saved(users["alice"])
    assert deck.legal
    banned = deck.cards[0]
    deck_services.ban_list_publish(
        format_key="standard",
        version="2026.bots",
        effective_at=timezone.now() - timedelta(seconds=1),
        banned=[banned],
        restricted=[],
        max_restricted=0,
        by=django_user_model.objects.create_user("marshal", is_staff=True),
    )
    response = upload(client_for(users["alice"]), deck)
    assert response.status_code == 422, response.json()
    body = response.json()
    assert body["code"] == "deck/illegal" and body["detail"]
    assert [violation["code"] for violation in body["violations"]] == ["deck/banned"]
    assert banned in body["violations"][0]["cards"]
    assert not BotVersion.objects.exists()
    assert DeckVersion.objects.get(pk=deck.pk).frozen_at is None  # a refusal freezes nothing


def test_a_draft_that_breaks_the_deck_rules_is_refused_with_every_problem(users, client_for):
    draft = saved(users["alice"], cards=list(STAMPEDE.cards)[:5])
    assert not draft.legal
    response = upload(client_for(users["alice"]), draft)
    assert response.status_code == 422
    assert response.json()["code"] == "deck/illegal"
    assert {violation["code"] for violation in response.json()["violations"]} == {
        violation["code"] for violation in draft.violations
    }
    assert not BotVersion.objects.exists()


@pytest.mark.parametrize(
    ("deck", "game", "status", "code"),
    [
        ("bob's", "ragnguns", 403, "deck/not_yours"),
        ("nothing", "ragnguns", 404, "deck/not_found"),
        (None, "ragnguns", 422, "bot/deck_required"),
        ("alice's", "rat-snake", 422, "bot/deck_not_needed"),
    ],
)
def test_a_deck_that_is_not_the_uploaders_or_not_wanted_or_missing_is_refused(
    users, client_for, deck, game, status, code
):
    decks = {
        "alice's": saved(users["alice"]),
        "bob's": saved(users["bob"]),
        "nothing": "no-such-deck",
        None: None,
    }
    response = upload(client_for(users["alice"]), decks[deck], game=game)
    assert response.status_code == status, response.json()
    assert response.json()["code"] == code and response.json()["detail"]
    assert not BotVersion.objects.exists()
    assert not DeckVersion.objects.filter(frozen_at__isnull=False).exists()


def test_a_deck_version_without_a_deck_is_a_bad_request(users, client_for):
    response = upload(client_for(users["alice"]), None, deck_version=1)
    assert response.status_code == 400


def test_a_ladder_seat_that_did_not_bring_the_versions_deck_is_not_bound(users):
    first = bot_version_upload(
        owner=users["alice"],
        name="rando",
        game_key="ragnguns",
        source=program("random_bot"),
        deck=saved(users["alice"]).deck.share_id,
    )
    other = saved(users["alice"], SALOON, "Saloon")
    second = bot_version_upload(
        owner=users["alice"],
        name="rando",
        game_key="ragnguns",
        source=program("random_bot"),
        deck=other.deck.share_id,
    )
    match = bot_match_create(versions=[first, first], validation=True)
    assert brought(match) == {0: as_brought(first.deck_version), 1: as_brought(first.deck_version)}
    BotVersion.objects.filter(pk=second.pk).update(status=BotVersion.Status.PASSED)
    with pytest.raises(Rejected) as refused:
        ladder_seats_bind(match=match, versions={0: second.pk})
    assert refused.value.code == "bot/wrong_deck"


@pytest.fixture
def standard(db):
    return ladders.ladder_create(game_key="ragnguns", name="Guns at dawn", slug="guns", seats_per_match=2)


def _passed_bots(users, client_for, django_capture_on_commit_callbacks) -> dict[str, tuple[int, DeckVersion]]:
    bots = {}
    for person, (deck, deck_name) in {"alice": (STAMPEDE, "Stampede"), "bob": (SALOON, "Saloon")}.items():
        version = saved(users[person], deck, deck_name)
        with django_capture_on_commit_callbacks(execute=True):
            response = upload(client_for(users[person]), version, name=f"{person}-bot")
        assert response.status_code == 201, response.json()
        bot_id = response.json()["bot"]
        status = BotVersion.objects.get(bot_id=bot_id).status
        assert status == BotVersion.Status.PASSED, BotVersion.objects.get(bot_id=bot_id).log
        bots[person] = (bot_id, version)
    return bots


@needs_root
def test_passed_ragnguns_bots_join_a_ladder_with_their_decks_and_the_worker_plays_the_round_to_the_end(
    users, client_for, standard, bot_settings, eager_celery, django_capture_on_commit_callbacks
):
    bots = _passed_bots(users, client_for, django_capture_on_commit_callbacks)
    for person, (bot_id, deck) in bots.items():
        joined = client_for(users[person]).post(
            f"/api/bots/{bot_id}/ladders/", {"ladder": "guns", "version": 1}, format="json"
        )
        assert joined.status_code == 201, joined.json()
        entry = LadderEntry.objects.get(pk=joined.json()["entry"])
        assert entry.deck_version_id == deck.pk
        assert "deck" not in joined.json() and deck.deck.share_id not in joined.content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        played = ladder_round_create(ladder_id=standard.pk, rng=random.Random(5)).matches
    assert len(played) == 1
    match = Match.objects.get(pk=played[0].pk)
    assert match.is_finished
    seats = dict(match.seats.values_list("index", "user_id"))
    decks = {
        BotVersion.objects.get(bot_id=bot_id).bot.account_id: as_brought(deck)
        for bot_id, deck in bots.values()
    }
    assert brought(match) == {seat: decks[user_id] for seat, user_id in seats.items()}
    assert not match.events.filter(kind=MatchEvent.Kind.FORFEIT).exists()
    assert RatedMatch.objects.filter(match=match).exists()


@needs_root
def test_a_ban_list_that_makes_a_bots_deck_illegal_pauses_its_ladder_entry(
    users,
    client_for,
    standard,
    django_user_model,
    bot_settings,
    eager_celery,
    django_capture_on_commit_callbacks,
):
    bots = _passed_bots(users, client_for, django_capture_on_commit_callbacks)
    for person, (other_id, _) in bots.items():
        joined = client_for(users[person]).post(
            f"/api/bots/{other_id}/ladders/", {"ladder": "guns", "version": 1}, format="json"
        )
        assert joined.status_code == 201, joined.json()
    bot_id, deck = bots["alice"]
    entry = LadderEntry.objects.get(bot_version_id=BotVersion.objects.get(bot_id=bot_id).pk)
    victim = next(card for card in deck.cards if card not in SALOON.cards)
    marshal = django_user_model.objects.create_user("marshal", is_staff=True)
    with django_capture_on_commit_callbacks(execute=True):
        deck_services.ban_list_publish(
            format_key="standard",
            version="2026.bots",
            effective_at=timezone.now() - timedelta(seconds=1),
            banned=[victim],
            restricted=[],
            max_restricted=0,
            by=marshal,
        )
        deck_services.ban_lists_take_effect()
    entry.refresh_from_db()
    assert entry.paused_reason == LadderEntry.Pause.DECK_ILLEGAL
    assert ladder_round_create(ladder_id=standard.pk).round is None  # bob's bot is left alone
    alice = client_for(users["alice"])
    again = alice.post(f"/api/bots/{bot_id}/ladders/", {"ladder": "guns", "version": 1}, format="json")
    assert (again.status_code, again.json()["code"]) == (422, "deck/illegal")
    refused = upload(alice, deck, name="alice-bot")  # nor does a new version take that deck
    assert (refused.status_code, refused.json()["code"]) == (422, "deck/illegal")

    # The ban lifted by a later list: the version comes back by joining again, rating and all.
    with django_capture_on_commit_callbacks(execute=True):
        deck_services.ban_list_publish(
            format_key="standard",
            version="2026.bots.2",
            effective_at=timezone.now(),
            banned=[],
            restricted=[],
            max_restricted=0,
            by=marshal,
        )
        deck_services.ban_lists_take_effect()
    back = alice.post(f"/api/bots/{bot_id}/ladders/", {"ladder": "guns", "version": 1}, format="json")
    assert back.status_code == 201, back.json()
    assert back.json()["entry"] == entry.pk and back.json()["paused"] is None
