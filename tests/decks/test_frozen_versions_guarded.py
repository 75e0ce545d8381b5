"""The database, not only `DeckVersion.save`, keeps deck versions unedited and frozen ones in place
(decks/migrations/0003). On PostgreSQL the statements run as a role with the service's grants (a
superuser, as the test runner is, gets past the guards by design)."""

from __future__ import annotations

from contextlib import contextmanager, nullcontext

import pytest
from django.db import DatabaseError, connection, transaction

from decks import services as deck_services
from decks.models import DeckVersion
from engines.ragnguns import load_prebuilt
from tests.matches.test_database_protection import acting_as_a_new_role

pytestmark = pytest.mark.django_db

STAMPEDE = next(deck for deck in load_prebuilt() if deck.id == "stampede-at-dawn")


def as_the_service():
    return acting_as_a_new_role(None) if connection.vendor == "postgresql" else nullcontext()


@contextmanager
def refused():
    with pytest.raises(DatabaseError), transaction.atomic():
        yield


def execute(sql: str, params=()) -> None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


@pytest.fixture
def versions(users):
    frozen = deck_services.deck_create(
        owner=users["alice"], gunslinger=STAMPEDE.gunslinger, cards=list(STAMPEDE.cards)
    )
    frozen = deck_services.deck_version_freeze(deck_version=frozen, purpose="ladder standard")
    draft = deck_services.deck_create(owner=users["bob"], gunslinger=STAMPEDE.gunslinger, cards=["machete"])
    return frozen, draft


def test_no_version_is_edited_and_a_frozen_one_is_never_deleted_or_thawed(versions):
    frozen, draft = versions
    with as_the_service():
        for version in (frozen, draft):
            with refused():
                execute(
                    "UPDATE decks_deckversion SET cards = %s WHERE id = %s", ['["gatling-gun"]', version.pk]
                )
            with refused():
                execute("UPDATE decks_deckversion SET legal = NOT legal WHERE id = %s", [version.pk])
        with refused():
            execute("UPDATE decks_deckversion SET frozen_at = NULL WHERE id = %s", [frozen.pk])
        with refused():
            execute("DELETE FROM decks_deckversion WHERE id = %s", [frozen.pk])
        # What the service does still works: freezing a draft, adding a purpose, deleting an unfrozen one.
        execute("UPDATE decks_deckversion SET frozen_at = CURRENT_TIMESTAMP WHERE id = %s", [draft.pk])
        execute(
            "UPDATE decks_deckversion SET frozen_for = frozen_for || %s WHERE id = %s",
            ["\ntournament 3", frozen.pk],
        )
    assert DeckVersion.objects.get(pk=draft.pk).frozen_at is not None
    assert DeckVersion.objects.get(pk=frozen.pk).frozen_for.splitlines() == [
        "ladder standard",
        "tournament 3",
    ]
    assert DeckVersion.objects.get(pk=frozen.pk).cards == frozen.cards


def test_an_unfrozen_deck_is_still_deleted_whole(users):
    version = deck_services.deck_create(
        owner=users["carol"], gunslinger=STAMPEDE.gunslinger, cards=["machete"]
    )
    with as_the_service():
        deck_services.deck_delete(share_id=version.deck.share_id, user=users["carol"])
    assert not DeckVersion.objects.filter(pk=version.pk).exists()
