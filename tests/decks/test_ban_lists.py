"""Dated ban lists that reach saved decks and new matches (issue #19)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from decks import selectors as deck_selectors
from decks import services as deck_services
from decks.models import BanList
from decks.signals import deck_legality_changed
from engines.ragnguns import load_catalogue, load_prebuilt
from matches.services import SeatSpec, match_create

pytestmark = pytest.mark.django_db

STAMPEDE = next(deck for deck in load_prebuilt() if deck.id == "stampede-at-dawn")
VICTIM = STAMPEDE.cards[0]  # a card of the deck that the new list bans


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user("marshal", password="marshal-password", is_staff=True)


@pytest.fixture
def heard():
    """What `deck_legality_changed` said, one dict a sending."""
    messages = []

    def receiver(sender, **kwargs):
        messages.append(kwargs)

    deck_legality_changed.connect(receiver)
    yield messages
    deck_legality_changed.disconnect(receiver)


def save(owner, *, name="Stampede"):
    return deck_services.deck_create(
        owner=owner,
        name=name,
        format_key="standard",
        gunslinger=STAMPEDE.gunslinger,
        cards=list(STAMPEDE.cards),
    )


def publish(by, *, version="2026.2", effective_at, banned=(VICTIM,)):
    return deck_services.ban_list_publish(
        format_key="standard",
        version=version,
        effective_at=effective_at,
        banned=list(banned),
        restricted=[],
        max_restricted=0,
        notes="the first dated list",
        by=by,
    )


def test_a_list_rules_from_its_date_and_reaches_the_decks_entered_in_its_format(
    users, staff, heard, django_capture_on_commit_callbacks
):
    now = timezone.now()
    current = save(users["alice"])
    entered = deck_services.deck_version_freeze(deck_version=save(users["bob"]), purpose="ladder standard")
    deck_services.deck_update(share_id=entered.deck.share_id, user=users["bob"], name="renamed only")
    old = save(users["carol"])
    newcomer = next(
        card.id for card in load_catalogue().cards if not card.is_gunslinger and card.id not in STAMPEDE.cards
    )
    without_victim = deck_services.deck_update(
        share_id=old.deck.share_id, user=users["carol"], cards=[newcomer, *STAMPEDE.cards[1:]]
    )
    assert without_victim.number == 2
    with django_capture_on_commit_callbacks(execute=True):
        publish(staff, effective_at=now + timedelta(hours=1))

    # Before its date the list is upcoming: the packaged list still rules, nothing is re-checked.
    assert deck_selectors.format_get(key="standard").ban_list_version == "2026.1"
    history = deck_selectors.ban_list_history(format_key="standard")
    assert [(entry["version"], entry["in_effect"], entry["upcoming"]) for entry in history] == [
        ("2026.1", True, False),
        ("2026.2", False, True),
    ]
    assert deck_services.ban_lists_take_effect(now=now) == [] and heard == []

    later = now + timedelta(hours=2)
    assert deck_selectors.format_get(key="standard", at=later).ban_list_version == "2026.2"
    with django_capture_on_commit_callbacks(execute=True):
        applied = deck_services.ban_lists_take_effect(now=later)
    assert [row.version for row in applied] == ["2026.2"]
    assert BanList.objects.get(version="2026.2").applied_at == later
    [message] = heard
    assert (message["format_key"], message["ban_list_version"]) == ("standard", "2026.2")
    flagged = {entry["deck_version_id"] for entry in message["illegal"]}
    # Each deck's current version and every frozen one; carol's old version 1 is history, not an entry.
    assert current.pk in flagged and entered.pk in flagged
    assert all(entry["violations"][0]["code"] == "deck/banned" for entry in message["illegal"])
    assert {entry["owner_id"] for entry in message["illegal"]} >= {users["alice"].pk, users["bob"].pk}
    assert old.pk not in flagged and without_victim.pk not in flagged

    # Applied once: a second sweep finds nothing to do.
    with django_capture_on_commit_callbacks(execute=True):
        assert deck_services.ban_lists_take_effect(now=later + timedelta(minutes=1)) == []
    assert len(heard) == 1


def test_a_deck_shows_its_legality_in_every_format_under_the_list_in_effect(users, staff, client_for):
    deck = save(users["alice"])
    body = client_for().get(f"/api/decks/{deck.deck.share_id}/").json()
    assert body["legality"]["standard"] == {"legal": True, "ban_list_version": "2026.1", "violations": []}
    assert body["current"]["ban_list_version"] == "2026.1"
    publish(staff, effective_at=timezone.now() - timedelta(minutes=1))
    deck_selectors.ban_list_cache_clear("standard")
    body = client_for().get(f"/api/decks/{deck.deck.share_id}/").json()
    standard = body["legality"]["standard"]
    assert standard["legal"] is False and standard["ban_list_version"] == "2026.2"
    assert [violation["code"] for violation in standard["violations"]] == ["deck/banned"]
    assert body["current"]["legal"] is True  # the verdict it was saved with, under 2026.1, stays


def test_a_new_match_keeps_the_list_in_effect_at_its_creation(users, staff):
    publish(staff, effective_at=timezone.now() - timedelta(minutes=1))
    match = match_create(
        game_key="ragnguns", seats=[SeatSpec(bot="random"), SeatSpec(bot="random")], bots_play="caller"
    )
    written = json.loads(match.options["ban_list"])
    assert written["version"] == "2026.2" and VICTIM in written["banned"]
    packaged = match_create(
        game_key="rat-snake", seats=[SeatSpec(bot="random"), SeatSpec(bot="random")], bots_play="caller"
    )
    assert "ban_list" not in packaged.options


def test_publishing_through_the_api_is_for_staff_and_checked(users, staff, client_for):
    url = "/api/ragnguns/formats/standard/ban-lists/"
    body = {"version": "2027.1", "effective_at": "2027-01-01T00:00:00Z", "banned": [VICTIM]}
    assert client_for().post(url, body, format="json").status_code in (401, 403)
    refused = client_for(users["alice"]).post(url, body, format="json")
    assert (refused.status_code, refused.json()["code"]) == (403, "ban_list/not_staff")
    published = client_for(staff).post(url, body, format="json")
    assert published.status_code == 201, published.json()
    assert published.json()["upcoming"] is True and published.json()["banned"] == [VICTIM]
    again = client_for(staff).post(url, body, format="json")
    assert (again.status_code, again.json()["code"]) == (409, "ban_list/version_taken")
    packaged_again = client_for(staff).post(url, {**body, "version": "2026.1"}, format="json")
    assert packaged_again.status_code == 409
    unknown = client_for(staff).post(
        url, {**body, "version": "2027.2", "banned": ["no-such-card"]}, format="json"
    )
    assert (unknown.status_code, unknown.json()["code"]) == (400, "ban_list/invalid")
    odd_offset = client_for(staff).post(
        url, {**body, "version": "2027.3", "effective_at": "2027-01-01T00:00:00+23:00"}, format="json"
    )
    assert odd_offset.status_code == 400
    listed = client_for().get(url).json()
    assert [entry["version"] for entry in listed] == ["2026.1", "2027.1"]
    assert client_for().get("/api/ragnguns/formats/nope/ban-lists/").status_code == 404


def test_an_entry_is_judged_under_the_list_in_effect_not_the_one_the_deck_was_saved_under(users, staff):
    from core.errors import ApplicationError

    version = save(users["alice"])
    assert version.legal and version.ban_list_version == "2026.1"
    publish(staff, effective_at=timezone.now() - timedelta(minutes=1))
    with pytest.raises(ApplicationError) as refused:
        deck_selectors.deck_version_for_entry(share_id=version.deck.share_id, user=users["alice"])
    assert refused.value.code == "deck/illegal"
    assert [violation["code"] for violation in refused.value.extra["violations"]] == ["deck/banned"]
