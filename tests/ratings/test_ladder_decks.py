"""Rag'n'Guns ladders and dated ban lists (issue #19): entries bring a deck legal in the ladder's
format; a ban list taking effect pauses the entries it made illegal until their owners fix them."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from core.errors import ApplicationError
from decks import services as deck_services
from decks.models import DeckVersion
from decks.tasks import ban_lists_apply
from engines.ragnguns import load_catalogue, load_prebuilt
from ratings import services
from ratings.models import LadderEntry

pytestmark = pytest.mark.django_db

PREBUILT = {deck.id: deck for deck in load_prebuilt()}
STAMPEDE = PREBUILT["stampede-at-dawn"]
SMOKING = PREBUILT["smoking-barrels"]  # holds the Gatling Gun, banned in Frontier


def saved(owner, deck, name):
    return deck_services.deck_create(
        owner=owner, name=name, format_key="standard", gunslinger=deck.gunslinger, cards=list(deck.cards)
    )


def test_joining_asks_for_a_deck_legal_in_the_ladders_format_and_a_refusal_freezes_nothing(users):
    ladder = services.ladder_create(
        game_key="ragnguns", name="Frontier nights", options={"format": "frontier"}
    )
    gatling = saved(users["alice"], SMOKING, "Gatling")
    assert gatling.legal  # in Standard, where it was saved
    with pytest.raises(ApplicationError) as refused:
        services.ladder_join(ladder=ladder, user=users["alice"], deck_share_id=gatling.deck.share_id)
    assert refused.value.code == "deck/illegal"
    assert "deck/banned" in [violation["code"] for violation in refused.value.extra["violations"]]
    assert DeckVersion.objects.get(pk=gatling.pk).frozen_at is None
    assert not ladder.entries.exists()
    stampede = saved(users["alice"], STAMPEDE, "Stampede")
    entry = services.ladder_join(ladder=ladder, user=users["alice"], deck_share_id=stampede.deck.share_id)
    assert entry.deck_version_id == stampede.pk
    assert DeckVersion.objects.get(pk=stampede.pk).frozen_for == f"ladder {ladder.slug}"


def test_a_new_ban_list_pauses_the_entries_it_makes_illegal_until_their_owners_fix_them(
    users, client_for, django_user_model, eager_celery, django_capture_on_commit_callbacks
):
    staff = django_user_model.objects.create_user("marshal", is_staff=True)
    ladder = services.ladder_create(game_key="ragnguns", name="Standard nights")
    stampede = saved(users["alice"], STAMPEDE, "Stampede")
    entry = services.ladder_join(ladder=ladder, user=users["alice"], deck_share_id=stampede.deck.share_id)
    other = saved(users["bob"], PREBUILT["saloon-nights"], "Saloon")
    services.ladder_join(ladder=ladder, user=users["bob"], deck_share_id=other.deck.share_id)
    victim = next(card for card in STAMPEDE.cards if card not in PREBUILT["saloon-nights"].cards)

    with django_capture_on_commit_callbacks(execute=True):
        published = client_for(staff).post(
            "/api/ragnguns/formats/standard/ban-lists/",
            {
                "version": "2026.7",
                "effective_at": (timezone.now() - timedelta(seconds=1)).isoformat(),
                "banned": [victim],
            },
            format="json",
        )
    assert published.status_code == 201, published.json()
    assert ban_lists_apply() == []  # the API queued it at once (eager here): nothing left for beat
    entry.refresh_from_db()
    assert entry.paused_reason == LadderEntry.Pause.DECK_ILLEGAL
    assert not ladder.entries.get(user=users["bob"]).is_paused

    # The owner reads what to change; resuming without changing it is refused.
    owner = client_for(users["alice"])
    shown = owner.get(f"/api/ladders/{ladder.slug}/entries/{entry.pk}/").json()
    assert shown["paused"] == LadderEntry.Pause.DECK_ILLEGAL
    assert [violation["code"] for violation in shown["deck_violations"]] == ["deck/banned"]
    assert victim in shown["deck_violations"][0]["cards"]
    resumed = owner.post(f"/api/ladders/{ladder.slug}/entries/{entry.pk}/resume/")
    assert (resumed.status_code, resumed.json()["code"]) == (409, "entry/deck_illegal")

    # Fixed: the deck without the banned card, entered again.
    replacement = next(
        card.id for card in load_catalogue().cards if not card.is_gunslinger and card.id not in STAMPEDE.cards
    )
    fixed = deck_services.deck_update(
        share_id=stampede.deck.share_id,
        user=users["alice"],
        cards=[replacement if card == victim else card for card in STAMPEDE.cards],
    )
    assert fixed.legal and fixed.number == 2
    back = services.ladder_join(ladder=ladder, user=users["alice"], deck_share_id=stampede.deck.share_id)
    assert back.pk == entry.pk and not back.is_paused and back.deck_version_id == fixed.pk
    # The old version stays frozen: matches already played with it keep it.
    assert DeckVersion.objects.get(pk=stampede.pk).frozen_at is not None
