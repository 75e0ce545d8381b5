"""The deck services (tournaments/decks.py): checking, saving as versions, ownership, freezing, and the
version a tournament or ladder entry gets."""

from __future__ import annotations

import pytest

from core.errors import ApplicationError
from decks import selectors as deck_selectors
from decks import services as deck_services
from decks.models import Deck, DeckVersion
from decks.services import SHARE_ID_ALPHABET, SHARE_ID_LENGTH
from engines.ragnguns import load_catalogue, load_prebuilt

STAMPEDE = next(deck for deck in load_prebuilt() if deck.id == "stampede-at-dawn")
SMOKING = next(deck for deck in load_prebuilt() if deck.id == "smoking-barrels")  # Gatling Gun: not Frontier


def legal_cards() -> list[str]:
    return list(STAMPEDE.cards)


def illegal_cards() -> list[str]:
    return [*legal_cards()[:-1], "Machete"]  # a second Machete instead of High Noon


def raises(code: str, status: int):
    class Expect:
        def __enter__(self):
            return self

        def __exit__(self, kind, error, traceback):
            assert kind is not None, f"expected {code}"
            assert isinstance(error, ApplicationError), error
            assert (error.status, error.code) == (status, code), error.as_body()
            self.error = error
            return True

    return Expect()


def save(owner, cards=None, *, name="Stampede", format_key="standard", gunslinger="buffalo-kid"):
    return deck_services.deck_create(
        owner=owner, name=name, format_key=format_key, gunslinger=gunslinger, cards=cards or legal_cards()
    )


@pytest.mark.django_db  # the ban list in effect is read from the database
class TestCheck:
    def test_ids_names_case_and_accents_give_one_normalised_deck(self):
        by_id = deck_selectors.deck_check(
            format_key="standard", gunslinger="buffalo-kid", cards=legal_cards()
        )
        names = [load_catalogue().get(card_id).name.upper() for card_id in legal_cards()]
        by_name = deck_selectors.deck_check(format_key="standard", gunslinger="  buffalo KID ", cards=names)
        assert by_id.legal and by_name.legal
        assert (
            by_id.deck()
            == by_name.deck()
            == {
                "format": "standard",
                "catalogue_version": load_catalogue().version,
                "gunslinger": "buffalo-kid",
                "cards": sorted(legal_cards()),
            }
        )
        accented = deck_selectors.deck_check(
            format_key="standard", gunslinger="jenny james", cards=["SENORITA ROSA", "Señorita Rosa"]
        )
        assert accented.deck()["cards"] == ["senorita-rosa", "senorita-rosa"]
        assert {"deck/duplicate_name", "deck/wrong_size"} <= {v["code"] for v in accented.violations}

    def test_a_pasted_list_reports_text_problems_with_their_lines_first(self):
        text = "# my deck\nGunslinger: Buffalo Kid\n2 Machete\n42\nWhip x1   # cheap\n"
        result = deck_selectors.deck_check(format_key=None, text=text)
        codes = [v["code"] for v in result.violations]
        assert codes[0] == "text/unparsable_line" and result.violations[0]["line"] == 4
        assert {"deck/wrong_size", "deck/duplicate_name"} <= set(codes)
        assert result.deck()["cards"] == ["machete", "machete", "whip"] and result.source_text == text

    def test_the_format_comes_from_the_argument_else_the_text_else_standard(self):
        text = "Format: Frontier\nGunslinger: Buffalo Kid\n" + "\n".join(SMOKING.cards)
        assert deck_selectors.deck_check(text=text).deck()["format"] == "frontier"
        assert "deck/banned" in [v["code"] for v in deck_selectors.deck_check(text=text).violations]
        assert deck_selectors.deck_check(format_key="standard", text=text).legal
        assert (
            deck_selectors.deck_check(cards=legal_cards(), gunslinger="buffalo-kid").deck()["format"]
            == "standard"
        )

    @pytest.mark.parametrize(
        ("arguments", "code"),
        [
            ({}, "deck/no_cards"),
            ({"cards": []}, "deck/no_cards"),
            ({"text": "  \n "}, "deck/no_cards"),
            ({"cards": ["machete"], "text": "Machete"}, "deck/ambiguous_input"),
            ({"cards": ["machete"], "format_key": "modern"}, "deck/unknown_format"),
            ({"text": "Machete", "format_key": "modern"}, "deck/unknown_format"),
            ({"text": "Format: modern\nMachete"}, "deck/unknown_format"),
            ({"cards": ["machete"] * 101}, "deck/too_large"),
            ({"cards": ["m" * 101]}, "deck/too_large"),
            ({"text": "99 Machete\n99 Whip"}, "deck/too_large"),
            ({"text": "x" * 10_001}, "deck/too_large"),
            ({"cards": [1, 2]}, "request/invalid"),
        ],
    )
    def test_input_that_is_not_a_deck_is_refused_with_a_400(self, arguments, code):
        with raises(code, 400):
            deck_selectors.deck_check(**arguments)


@pytest.mark.django_db
class TestSavedDecks:
    def test_a_deck_gets_a_random_share_id_and_version_1(self, users):
        version = save(users["alice"])
        deck = version.deck
        assert version.number == 1 and version.legal and version.violations == []
        assert len(deck.share_id) == SHARE_ID_LENGTH and set(deck.share_id) <= set(SHARE_ID_ALPHABET)
        assert deck.share_id != str(deck.pk) and deck.game == "ragnguns"
        assert version.catalogue_version == load_catalogue().version and version.format == "standard"
        others = {save(users["alice"]).deck.share_id for _ in range(5)}
        assert deck.share_id not in others and len(others) == 5

    def test_an_illegal_deck_is_saved_as_a_draft_with_its_violations(self, users):
        version = save(users["alice"], illegal_cards())
        assert not version.legal
        assert [v["code"] for v in version.violations] == ["deck/duplicate_name"]
        assert deck_selectors.deck_list_for_owner(owner=users["alice"]).get().legal is False

    def test_an_edit_is_a_new_version_and_the_old_one_stays(self, users):
        first = save(users["alice"], illegal_cards())
        share_id = first.deck.share_id
        second = deck_services.deck_update(share_id=share_id, user=users["alice"], cards=legal_cards())
        assert (second.number, second.legal) == (2, True)
        first.refresh_from_db()
        assert first.cards == sorted([*legal_cards()[:-1], "machete"])
        assert not first.legal and first.number == 1
        assert deck_selectors.deck_version_get(deck=first.deck).pk == second.pk
        assert list(deck_selectors.deck_versions(deck=first.deck).values_list("number", flat=True)) == [1, 2]

    def test_only_the_format_re_checks_the_same_deck_in_a_new_version(self, users):
        version = save(users["alice"], list(SMOKING.cards))
        frontier = deck_services.deck_update(
            share_id=version.deck.share_id, user=users["alice"], format_key="frontier"
        )
        assert (frontier.number, frontier.format, frontier.legal) == (2, "frontier", False)
        assert frontier.cards == version.cards and frontier.gunslinger == "buffalo-kid"

    def test_a_rename_or_the_same_deck_again_adds_no_version(self, users):
        version = save(users["alice"])
        same = deck_services.deck_update(
            share_id=version.deck.share_id,
            user=users["alice"],
            name="Renamed",
            cards=list(reversed(legal_cards())),
        )
        assert same.pk == version.pk and Deck.objects.get().name == "Renamed"

    def test_a_new_gunslinger_alone_keeps_the_cards(self, users):
        version = save(users["alice"])
        jenny = deck_services.deck_update(
            share_id=version.deck.share_id, user=users["alice"], gunslinger="Jenny James"
        )
        assert jenny.number == 2 and jenny.cards == version.cards
        assert [v["code"] for v in jenny.violations] == [
            "deck/foreign_signature"
        ]  # Stampede is Buffalo Kid's

    def test_only_the_owner_edits_or_deletes(self, users):
        share_id = save(users["alice"]).deck.share_id
        with raises("deck/not_yours", 403):
            deck_services.deck_update(share_id=share_id, user=users["bob"], name="mine now")
        with raises("deck/not_yours", 403):
            deck_services.deck_delete(share_id=share_id, user=users["bob"])
        with raises("deck/not_found", 404):
            deck_selectors.deck_get_by_share_id(share_id="nosuchdeck")
        deck_services.deck_delete(share_id=share_id, user=users["alice"])
        assert not Deck.objects.exists() and not DeckVersion.objects.exists()

    def test_a_malformed_edit_writes_nothing(self, users):
        version = save(users["alice"])
        with raises("deck/unknown_format", 400):
            deck_services.deck_update(
                share_id=version.deck.share_id, user=users["alice"], name="x", format_key="modern"
            )
        assert DeckVersion.objects.count() == 1 and Deck.objects.get().name == "Stampede"

    def test_a_deck_from_text_keeps_its_text_and_takes_its_name(self, users):
        text = "Deck: Pasted Stampede\nGunslinger: Buffalo Kid\n" + "\n".join(legal_cards())
        version = deck_services.deck_create(owner=users["alice"], text=text)
        assert version.source_text == text and version.deck.name == "Pasted Stampede" and version.legal

    def test_export_reads_back_as_the_same_deck(self, users):
        version = save(users["alice"], illegal_cards(), format_key="frontier", name="Two machetes")
        text = deck_selectors.deck_export_text(deck=version.deck, version=version)
        assert text.startswith("Deck: Two machetes\nFormat: frontier\nGunslinger: Buffalo Kid\n")
        again = deck_selectors.deck_check(text=text)
        assert again.deck()["cards"] == version.cards and again.deck()["format"] == "frontier"
        assert again.violations == version.violations

    def test_the_name_survives_export_and_import(self, users):
        name = "Guns // Roses #2"
        version = save(users["alice"], format_key="frontier", name=name)
        text = deck_selectors.deck_export_text(deck=version.deck, version=version)
        imported = deck_services.deck_create(owner=users["bob"], text=text)
        assert imported.deck.name == name
        assert imported.cards == version.cards and imported.gunslinger == version.gunslinger
        assert imported.format == "frontier"


@pytest.mark.django_db
class TestFreezeAndEntry:
    def test_freezing_is_idempotent_and_records_every_purpose(self, users):
        version = save(users["alice"])
        frozen = deck_services.deck_version_freeze(deck_version=version, purpose="tournament 7")
        again = deck_services.deck_version_freeze(deck_version=version, purpose="tournament 7")
        assert frozen.frozen_at is not None and again.frozen_at == frozen.frozen_at
        assert again.frozen_for == "tournament 7"
        ladder = deck_services.deck_version_freeze(deck_version=version, purpose="ladder standard")
        assert ladder.frozen_at == frozen.frozen_at and ladder.frozen_for.splitlines() == [
            "tournament 7",
            "ladder standard",
        ]
        with raises("deck/freeze_purpose_missing", 400):
            deck_services.deck_version_freeze(deck_version=version, purpose="  ")

    def test_a_saved_version_is_never_edited_in_place(self, users):
        version = save(users["alice"])
        version.cards = ["machete"]
        with pytest.raises(ValueError, match="never edited"):
            version.save()
        with pytest.raises(ValueError, match="never edited"):
            version.save(update_fields=["cards", "frozen_at"])
        assert DeckVersion.objects.get(pk=version.pk).cards == sorted(legal_cards())

    def test_a_deck_with_a_frozen_version_cannot_be_deleted_but_can_be_edited(self, users):
        version = save(users["alice"])
        deck_services.deck_version_freeze(deck_version=version, purpose="tournament 7")
        with raises("deck/frozen", 409):
            deck_services.deck_delete(share_id=version.deck.share_id, user=users["alice"])
        edited = deck_services.deck_update(
            share_id=version.deck.share_id, user=users["alice"], cards=illegal_cards()
        )
        assert edited.number == 2
        frozen = DeckVersion.objects.get(pk=version.pk)
        assert (frozen.cards, frozen.legal, frozen.is_frozen) == (version.cards, True, True)
        assert DeckVersion.objects.count() == 2

    def test_entry_gets_the_owners_legal_version(self, users):
        first = save(users["alice"])
        second = deck_services.deck_update(
            share_id=first.deck.share_id, user=users["alice"], cards=illegal_cards()
        )
        share_id = first.deck.share_id
        assert (
            deck_selectors.deck_version_for_entry(share_id=share_id, version=1, user=users["alice"]).pk
            == first.pk
        )
        with raises("deck/illegal", 422) as refused:
            deck_selectors.deck_version_for_entry(
                share_id=share_id, user=users["alice"]
            )  # the current one: v2
        assert [v["code"] for v in refused.error.extra["violations"]] == ["deck/duplicate_name"]
        assert refused.error.as_body()["violations"] == second.violations
        with raises("deck/not_yours", 403):
            deck_selectors.deck_version_for_entry(share_id=share_id, version=1, user=users["bob"])
        with raises("deck/version_not_found", 404):
            deck_selectors.deck_version_for_entry(share_id=share_id, version=3, user=users["alice"])
        with raises("deck/not_found", 404):
            deck_selectors.deck_version_for_entry(share_id="nosuchdeck", user=users["alice"])

    def test_entry_judges_the_events_format_and_a_changed_catalogue_again(self, users):
        version = save(users["alice"], list(SMOKING.cards))
        share_id = version.deck.share_id
        assert deck_selectors.deck_version_for_entry(share_id=share_id, user=users["alice"]).pk == version.pk
        with raises("deck/illegal", 422) as refused:
            deck_selectors.deck_version_for_entry(
                share_id=share_id, user=users["alice"], format_key="frontier"
            )
        assert "deck/banned" in [v["code"] for v in refused.error.extra["violations"]]
        # Saved against an older catalogue (illegal then): judged again against today's. Versions are
        # never edited (the database refuses), so the old one is written as it would have been.
        old = DeckVersion.objects.create(
            deck=version.deck,
            number=2,
            format=version.format,
            catalogue_version="2025.9",
            gunslinger=version.gunslinger,
            cards=version.cards,
            legal=False,
            violations=[],
            ban_list_version=version.ban_list_version,
        )
        assert deck_selectors.deck_version_for_entry(share_id=share_id, user=users["alice"]).pk == old.pk
