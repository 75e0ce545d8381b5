"""Rag'n'Guns tournaments and dated ban lists (issue #19): entries bring a deck legal in the
tournament's format, and check-in refuses a deck a ban list has since made illegal until it is
replaced."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from core.errors import ApplicationError
from decks import services as deck_services
from decks.models import DeckVersion
from engines.ragnguns import load_catalogue, load_prebuilt
from tournaments import services

pytestmark = pytest.mark.django_db

PREBUILT = {deck.id: deck for deck in load_prebuilt()}
STAMPEDE = PREBUILT["stampede-at-dawn"]


def saved(owner, cards, name="Deck"):
    return deck_services.deck_create(
        owner=owner, name=name, format_key="standard", gunslinger=STAMPEDE.gunslinger, cards=list(cards)
    )


@pytest.fixture
def cup(users, django_user_model):
    organiser = django_user_model.objects.create_user("sheriff")
    tournament = services.tournament_create(
        organiser=organiser,
        name="Frontier Cup",
        game_key="ragnguns",
        format="swiss",
        options={"format": "frontier"},
        check_in_required=True,
    )
    services.tournament_open(slug=tournament.slug, user=organiser)
    return tournament


def test_registration_asks_for_a_deck_legal_in_the_tournaments_format_and_a_refusal_freezes_nothing(
    cup, users
):
    gatling = deck_services.deck_create(
        owner=users["alice"],
        name="Gatling",
        format_key="standard",
        gunslinger=PREBUILT["smoking-barrels"].gunslinger,
        cards=list(PREBUILT["smoking-barrels"].cards),
    )
    assert gatling.legal  # in Standard, where it was saved; Frontier bans its Gatling Gun
    with pytest.raises(ApplicationError) as refused:
        services.tournament_register(slug=cup.slug, user=users["alice"], deck_share_id=gatling.deck.share_id)
    assert refused.value.code == "deck/illegal"
    assert DeckVersion.objects.get(pk=gatling.pk).frozen_at is None and not cup.entries.exists()


def test_check_in_refuses_a_deck_a_new_ban_list_made_illegal_until_it_is_replaced(
    cup, users, client_for, django_user_model, eager_celery
):
    staff = django_user_model.objects.create_user("marshal", is_staff=True)
    entered = saved(users["alice"], STAMPEDE.cards, "Stampede")
    alice = client_for(users["alice"])
    registered = alice.post(
        f"/api/tournaments/{cup.slug}/register/", {"deck": entered.deck.share_id}, format="json"
    )
    assert registered.status_code == 201, registered.json()
    victim = STAMPEDE.cards[0]
    published = client_for(staff).post(
        "/api/ragnguns/formats/frontier/ban-lists/",
        {
            "version": "2026.9",
            "effective_at": (timezone.now() - timedelta(seconds=1)).isoformat(),
            "banned": ["gatling-gun", victim],
            "restricted": ["high-noon"],
            "max_restricted": 1,
        },
        format="json",
    )
    assert published.status_code == 201, published.json()

    [row] = client_for().get(f"/api/tournaments/{cup.slug}/entries/").json()
    assert row["deck"]["legal"] is False
    assert [violation["code"] for violation in row["deck"]["violations"]] == ["deck/banned"]
    refused = alice.post(f"/api/tournaments/{cup.slug}/check-in/", {}, format="json")
    assert (refused.status_code, refused.json()["code"]) == (422, "check_in/deck_illegal")
    assert refused.json()["violations"][0]["cards"] == [victim]

    still_illegal = alice.post(
        f"/api/tournaments/{cup.slug}/deck/", {"deck": entered.deck.share_id}, format="json"
    )
    assert (still_illegal.status_code, still_illegal.json()["code"]) == (422, "deck/illegal")
    replacement = next(
        card.id
        for card in load_catalogue().cards
        if not card.is_gunslinger
        and card.id not in STAMPEDE.cards
        and card.id not in ("gatling-gun", "high-noon")
    )
    fixed = deck_services.deck_update(
        share_id=entered.deck.share_id,
        user=users["alice"],
        cards=[replacement if card == victim else card for card in STAMPEDE.cards],
    )
    changed = alice.post(f"/api/tournaments/{cup.slug}/deck/", {"deck": entered.deck.share_id}, format="json")
    assert changed.status_code == 200, changed.json()
    assert changed.json()["deck"] == {
        "share_id": entered.deck.share_id,
        "version": fixed.number,
        "legal": True,
        "violations": [],
    }
    checked_in = alice.post(f"/api/tournaments/{cup.slug}/check-in/", {}, format="json")
    assert checked_in.status_code == 200, checked_in.json()
    assert DeckVersion.objects.get(pk=entered.pk).frozen_at is not None  # the entered version stays frozen
