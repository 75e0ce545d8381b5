"""The Rag'n'Guns catalogue, deck-check and saved-deck API as a client uses it."""

from __future__ import annotations

import pytest

from decks import services as deck_services
from decks.models import Deck, DeckVersion
from engines.ragnguns import load_catalogue, load_prebuilt

pytestmark = pytest.mark.django_db

CHECK = "/api/ragnguns/deck-checks/"
STAMPEDE = next(deck for deck in load_prebuilt() if deck.id == "stampede-at-dawn")
CATALOGUE = load_catalogue()


def legal_cards() -> list[str]:
    return list(STAMPEDE.cards)


def names(card_ids) -> list[str]:
    return [CATALOGUE.get(card_id).name for card_id in card_ids]


def check(client, body, *, status=200, **kwargs):
    response = client.post(CHECK, body, format="json", **kwargs)
    assert response.status_code == status, response.json()
    return response.json()


def create(client, body, status=201):
    response = client.post("/api/decks/", body, format="json")
    assert response.status_code == status, response.json()
    return response.json()


def assert_error(response, status, code):
    body = response.json()
    assert (response.status_code, body["code"]) == (status, code), body
    assert body["detail"]
    return body


# -- checking a deck ------------------------------------------------------------------------------------


def test_ids_and_names_in_any_case_and_without_accents_check_the_same_deck(client_for):
    anonymous = client_for()
    by_id = check(anonymous, {"format": "standard", "gunslinger": "buffalo-kid", "cards": legal_cards()})
    by_name = check(
        anonymous,
        {
            "format": "standard",
            "gunslinger": "BUFFALO kid",
            "cards": [name.lower() for name in names(legal_cards())],
        },
    )
    assert by_id == by_name
    assert by_id == {
        "legal": True,
        "violations": [],
        "warnings": [],
        "deck": {
            "format": "standard",
            "catalogue_version": CATALOGUE.version,
            "gunslinger": "buffalo-kid",
            "cards": sorted(legal_cards()),
        },
    }
    saloon = next(deck for deck in load_prebuilt() if deck.id == "saloon-nights")
    accents = [
        {
            "senorita-rosa": "senorita rosa",
            "cafe-noir": "CAFE NOIR",
            "fiancees-locket": "Fiancees Locket",
        }.get(c, c)
        for c in saloon.cards
    ]
    body = check(anonymous, {"format": "standard", "gunslinger": "Jenny James", "cards": accents})
    assert body["legal"] is True and body["deck"]["cards"] == sorted(saloon.cards)


def test_every_violation_comes_back_at_once(client_for):
    cards = [
        "Machete",
        "machete",  # a duplicate name
        "Gatling Gun",
        "Buffalo Rifle",
        "High Noon",
        "Marshal Cobb",  # four EPIC cards
        "Jenny's Parasol",  # Jenny James's SIGNATURE, and a second SIGNATURE
        "Machetee",  # a typo
        "Jenny James",  # a GUNSLINGER among the cards
    ]
    body = check(client_for(), {"format": "frontier", "gunslinger": "Buffalo Kid", "cards": cards})
    assert body["legal"] is False
    codes = [violation["code"] for violation in body["violations"]]
    assert codes == [
        "deck/gunslinger_in_deck",
        "deck/unknown_card",
        "deck/wrong_size",
        "deck/duplicate_name",
        "deck/too_many_epic",
        "deck/too_many_signature",
        "deck/foreign_signature",
        "deck/banned",
        "deck/too_many_restricted",
    ]
    for violation in body["violations"]:
        assert (
            set(violation) == {"code", "detail", "cards", "hint"}
            and violation["detail"]
            and violation["hint"]
        )
    typo = next(v for v in body["violations"] if v["code"] == "deck/unknown_card")
    assert typo["cards"] == ["Machetee"] and "Machete" in typo["hint"]
    assert "Machetee" in body["deck"]["cards"]  # kept as given, so a client can point at it


def test_a_pasted_list_with_counts_comments_and_headers(client_for):
    text = """# Stampede, almost
Deck: My Stampede
Gunslinger: Buffalo Kid

Weapons (8)
2 Machete          # one too many
Iron bar
- Whip
1x Brass Knuckles
Bowie Knife x1
tomahawk
BRANDING IRON

Actions:
Improvise
Stampede
Machete (2)
!!!

Backups
Stray Dog
Deputy Nelson
Fall
Bear Trap
Old Bourbon
"""
    body = check(client_for(), {"format": "standard", "text": text})
    assert body["legal"] is False
    unparsable = [v for v in body["violations"] if v["code"] == "text/unparsable_line"]
    assert [v["line"] for v in unparsable] == [17, 18]
    assert [v["code"] for v in body["violations"][2:]] == ["deck/duplicate_name"]
    assert body["deck"]["gunslinger"] == "buffalo-kid"
    assert body["deck"]["cards"].count("machete") == 2 and len(body["deck"]["cards"]) == 15


def test_a_raw_text_plain_body_is_a_deck_list(client_for):
    text = "Gunslinger: Buffalo Kid\n" + "\n".join(names(legal_cards())) + "\n"
    response = client_for().post(CHECK, text, content_type="text/plain")
    assert response.status_code == 200 and response.json()["legal"] is True
    assert response.json()["deck"]["format"] == "standard"
    frontier = client_for().post(f"{CHECK}?format=frontier", text, content_type="text/plain; charset=utf-8")
    assert frontier.json()["deck"]["format"] == "frontier"
    in_text = client_for().post(CHECK, "Format: frontier\n" + text, content_type="text/plain")
    assert in_text.json()["deck"]["format"] == "frontier"
    latin = client_for().post(
        CHECK,
        "Gunslinger: Jenny James\nSeñorita Rosa\n".encode("latin-1"),
        content_type="text/plain; charset=latin-1",
    )
    assert "senorita-rosa" in latin.json()["deck"]["cards"]


def test_input_that_is_not_a_deck_is_a_400_with_a_code(client_for):
    client = client_for()
    json_cases = [
        ({"format": "standard"}, "deck/no_cards"),
        ({"format": "standard", "cards": []}, "deck/no_cards"),
        ({"format": "standard", "text": "   "}, "deck/no_cards"),
        ({"format": "modern", "cards": ["machete"]}, "deck/unknown_format"),
        ({"format": "standard", "cards": "machete"}, "request/invalid"),
        ({"format": "standard", "cards": [1, 2, 3]}, "request/invalid"),
        ({"format": "standard", "cards": [None]}, "request/invalid"),
        ({"format": "standard", "cards": ["machete"], "gunslinger": 7}, "request/invalid"),
        ({"format": 15, "cards": ["machete"]}, "request/invalid"),
        ({"format": "standard", "cards": ["machete"], "gunsligner": "Buffalo Kid"}, "request/invalid"),
        ({"format": "standard", "cards": ["machete"], "text": "Machete"}, "deck/ambiguous_input"),
        ({"format": "standard", "cards": ["machete"] * 101}, "deck/too_large"),
        (["machete"], "request/invalid"),
    ]
    for body, code in json_cases:
        assert_error(client.post(CHECK, body, format="json"), 400, code)
    assert_error(client.post(CHECK, "{not json", content_type="application/json"), 400, "request/malformed")
    assert_error(client.post(CHECK, "", content_type="application/json"), 400, "deck/no_cards")
    assert_error(client.post(CHECK, b"\xff\xfe", content_type="text/plain"), 400, "request/malformed")
    assert_error(
        client.post(CHECK, "Machete", content_type="text/plain; charset=klingon"), 400, "request/malformed"
    )
    assert_error(
        client.post(CHECK, "Machete", content_type="text/plain", QUERY_STRING="format=modern"),
        400,
        "deck/unknown_format",
    )
    assert_error(
        client.post(CHECK, "a=b", content_type="application/x-www-form-urlencoded"),
        415,
        "request/unsupported_media_type",
    )
    assert_error(client.get(CHECK), 405, "request/method_not_allowed")


# -- the catalogue ---------------------------------------------------------------------------------------


def test_the_catalogue_filters_by_type_keyword_cost_and_text(client_for):
    client = client_for()

    def ids(**params):
        response = client.get("/api/ragnguns/cards/", params)
        assert response.status_code == 200, response.json()
        body = response.json()
        assert body["catalogue_version"] == CATALOGUE.version and body["count"] == len(body["results"])
        return [card["id"] for card in body["results"]]

    assert len(ids()) == len(CATALOGUE)
    assert ids(type="gunslinger") == ["buffalo-kid", "jenny-james"]
    assert (
        ids(type="TRAP")
        == ids(cost="X")
        == ids(cost="x")
        == ["bear-trap", "fall", "lure", "quicksand", "rattlesnake"]
    )
    assert set(ids(keyword="epic")) == {card.id for card in CATALOGUE if card.is_epic}
    assert "sisters" in ids(cost="3") and all(CATALOGUE.get(i).cost == 3 for i in ids(cost="3"))
    cheap_melee = sorted(
        c.id for c in CATALOGUE if c.type == "WEAPON" and "MELEE" in c.keywords and c.cost == 1
    )
    assert len(cheap_melee) >= 2 and sorted(ids(type="weapon", keyword="MELEE", cost="1")) == cheap_melee
    assert ids(search="senorita") == ["senorita-rosa"]
    assert "old-bourbon" in ids(search="HEAL bullet")
    assert ids(signature="Buffalo Kid") == ["buffalo-rifle", "stampede"]
    assert ids(search="nothing like this") == []
    for params in ({"type": "SPELL"}, {"keyword": "FLYING"}, {"cost": "two"}, {"origin": "fan-made"}):
        assert_error(client.get("/api/ragnguns/cards/", params), 400, "catalogue/invalid_filter")


def test_a_card_formats_and_prebuilt_decks(client_for):
    client = client_for()
    machete = client.get("/api/ragnguns/cards/machete/").json()
    legality = machete.pop("legality")
    assert machete == CATALOGUE.get("machete").to_dict()
    assert legality["formats"] == {"frontier": "legal", "standard": "legal"}
    gatling = client.get("/api/ragnguns/cards/gatling-gun/").json()["legality"]
    assert gatling["formats"] == {"frontier": "banned", "standard": "legal"}
    assert {
        "format": "frontier",
        "version": "2026.1",
        "effective": "2026-01-01T00:00:00+00:00",
        "status": "banned",
    } in (gatling["ban_list_history"])
    assert client.get("/api/ragnguns/cards/Señorita Rosa/").json()["id"] == "senorita-rosa"
    missing = assert_error(client.get("/api/ragnguns/cards/machetee/"), 404, "card/not_found")
    assert "Machete" in missing["detail"]
    formats = client.get("/api/ragnguns/formats/").json()
    assert [fmt["key"] for fmt in formats] == ["frontier", "standard"]
    frontier = client.get("/api/ragnguns/formats/frontier/").json()
    assert frontier["banned"] == ["gatling-gun"] and frontier["max_restricted"] == 1
    assert_error(client.get("/api/ragnguns/formats/modern/"), 404, "deck/unknown_format")
    prebuilt = client.get("/api/ragnguns/prebuilt/").json()
    assert {deck["id"] for deck in prebuilt} == {deck.id for deck in load_prebuilt()}
    smoking = client.get("/api/ragnguns/prebuilt/smoking-barrels/").json()
    assert smoking["legal_in"] == {"frontier": False, "standard": True}
    pasted = check(client, {"format": "standard", "text": smoking["text"]})
    assert pasted["legal"] and pasted["deck"]["cards"] == sorted(smoking["cards"])
    assert_error(client.get("/api/ragnguns/prebuilt/nope/"), 404, "prebuilt/not_found")


# -- saved decks -----------------------------------------------------------------------------------------


def test_each_card_shows_its_provenance_per_field_and_its_effects_as_data(client_for):
    client = client_for()
    machete = client.get("/api/ragnguns/cards/machete/").json()
    assert machete["provenance"] == {
        "type": "printed",
        "cost": "printed",
        "firepower": "printed",
        "durability": "printed",
        "keywords": "printed",
        "signature": "designed",
    }
    sisters = client.get("/api/ragnguns/cards/sisters/").json()
    assert (sisters["provenance"]["firepower"], sisters["provenance"]["durability"]) == ("printed", "example")
    improvise = client.get("/api/ragnguns/cards/improvise/").json()
    (effect,) = improvise["effects"]
    assert effect["readings"] == {"by_paying_one": 1, "so_i_pay_nothing": 0}
    assert effect["do"] == [{"op": "pick", "keywords": ["MELEE"]}]
    assert effect["provenance"]["cost"] == "printed"
    listed = client.get("/api/ragnguns/cards/", {"search": "whip"}).json()["results"]
    assert listed[0]["effects"][0]["provenance"]["do"] == "printed"


def test_a_saved_deck_belongs_to_its_owner_and_is_read_by_share_id(users, client_for):
    alice, bob, anonymous = client_for(users["alice"]), client_for(users["bob"]), client_for()
    deck = create(
        alice, {"name": "Stampede", "format": "standard", "gunslinger": "buffalo-kid", "cards": legal_cards()}
    )
    share_id = deck["share_id"]
    assert deck["owner"] == "alice" and deck["version"] == 1 and deck["legal"] is True
    assert 8 <= len(share_id) <= 10 and share_id != str(Deck.objects.get().pk)
    url = f"/api/decks/{share_id}/"
    for reader in (anonymous, bob, alice):
        assert reader.get(url).json() == deck
    assert_error(bob.patch(url, {"name": "Bob's now"}, format="json"), 403, "deck/not_yours")
    assert_error(bob.put(url, {"cards": legal_cards()}, format="json"), 403, "deck/not_yours")
    assert_error(bob.delete(url), 403, "deck/not_yours")
    assert_error(anonymous.delete(url), 401, "auth/not_authenticated")
    assert_error(
        anonymous.post("/api/decks/", {"cards": legal_cards()}, format="json"), 401, "auth/not_authenticated"
    )
    assert_error(anonymous.get("/api/decks/"), 401, "auth/not_authenticated")
    assert_error(anonymous.get("/api/decks/nosuchdeck/"), 404, "deck/not_found")
    assert_error(anonymous.get("/api/decks/nosuchdeck/export/"), 404, "deck/not_found")
    assert bob.get("/api/decks/").json()["count"] == 0
    assert alice.delete(url).status_code == 204
    assert_error(anonymous.get(url), 404, "deck/not_found")


def test_an_illegal_deck_is_saved_and_says_so_and_the_list_filters_on_legality(users, client_for):
    alice = client_for(users["alice"])
    draft = create(alice, {"name": "Draft", "gunslinger": "Buffalo Kid", "cards": ["Machete", "Machete"]})
    assert draft["legal"] is False
    assert {v["code"] for v in draft["current"]["violations"]} == {"deck/wrong_size", "deck/duplicate_name"}
    create(alice, {"name": "Ready", "gunslinger": "Buffalo Kid", "cards": legal_cards()})
    create(client_for(users["bob"]), {"name": "Bob's", "gunslinger": "Buffalo Kid", "cards": legal_cards()})
    mine = alice.get("/api/decks/").json()
    assert mine["count"] == 2 and {deck["name"] for deck in mine["results"]} == {"Draft", "Ready"}
    assert [deck["name"] for deck in alice.get("/api/decks/", {"legal": "true"}).json()["results"]] == [
        "Ready"
    ]
    assert [deck["name"] for deck in alice.get("/api/decks/", {"legal": "false"}).json()["results"]] == [
        "Draft"
    ]
    assert alice.get("/api/decks/", {"format": "frontier"}).json()["count"] == 0
    assert alice.get("/api/decks/", {"format": "standard", "name": "read"}).json()["count"] == 1


def test_an_edit_makes_a_new_version_and_the_old_one_stays_readable_and_exportable(users, client_for):
    alice, anonymous = client_for(users["alice"]), client_for()
    first = create(alice, {"name": "Stampede", "gunslinger": "buffalo-kid", "cards": legal_cards()})
    url = f"/api/decks/{first['share_id']}/"
    swapped = [*legal_cards()[:-1], "Gatling Gun"]
    second = alice.put(url, {"gunslinger": "buffalo-kid", "cards": swapped}, format="json")
    assert second.status_code == 200 and second.json()["version"] == 2
    renamed = alice.patch(url, {"name": "Stampede II"}, format="json").json()
    assert (renamed["version"], renamed["name"]) == (2, "Stampede II")
    frontier = alice.patch(url, {"format": "frontier"}, format="json").json()
    assert frontier["version"] == 3 and frontier["legal"] is False
    assert [v["code"] for v in frontier["current"]["violations"]] == ["deck/banned"]
    versions = anonymous.get(f"{url}versions/").json()
    assert [(v["number"], v["format"], v["legal"]) for v in versions] == [
        (1, "standard", True),
        (2, "standard", True),
        (3, "frontier", False),
    ]
    v1 = anonymous.get(f"{url}versions/1/").json()
    assert v1["cards"] == sorted(legal_cards()) and v1 == first["current"]
    assert_error(anonymous.get(f"{url}versions/4/"), 404, "deck/version_not_found")
    assert_error(anonymous.get(f"{url}versions/one/"), 404, "deck/version_not_found")
    old = anonymous.get(f"{url}export/", {"version": 1})
    assert "High Noon" in old.content.decode() and "Gatling Gun" not in old.content.decode()
    current = anonymous.get(f"{url}export/").content.decode()
    assert (
        "Gatling Gun" in current
        and "Format: frontier" in current
        and current.startswith("Deck: Stampede II\n")
    )
    assert_error(anonymous.get(f"{url}export/", {"version": 9}), 404, "deck/version_not_found")
    assert_error(alice.put(url, {"name": "no deck"}, format="json"), 400, "deck/no_cards")
    assert_error(alice.patch(url, {"cards": [3]}, format="json"), 400, "request/invalid")


def test_export_round_trips_through_the_check_endpoint(users, client_for):
    alice, anonymous = client_for(users["alice"]), client_for()
    cards = [*names(legal_cards()[:-2]), "Señorita Rosa", "Machetee"]  # an EPIC, and an unknown card
    deck = create(
        alice, {"name": "Round trip", "format": "frontier", "gunslinger": "Buffalo Kid", "cards": cards}
    )
    export = anonymous.get(f"/api/decks/{deck['share_id']}/export/", HTTP_ACCEPT="text/plain")
    assert export.status_code == 200 and export["Content-Type"] == "text/plain; charset=utf-8"
    assert export["Content-Disposition"] == f'inline; filename="{deck["share_id"]}-v1.txt"'
    text = export.content.decode()
    checked = anonymous.post(CHECK, text, content_type="text/plain").json()
    assert checked["deck"] == {
        "format": deck["current"]["format"],
        "catalogue_version": deck["current"]["catalogue_version"],
        "gunslinger": deck["current"]["gunslinger"],
        "cards": deck["current"]["cards"],
    }
    assert checked["violations"] == deck["current"]["violations"] and checked["legal"] is False
    as_json = check(anonymous, {"text": text})
    assert as_json == checked
    missing = anonymous.get("/api/decks/nosuchdeck/export/", HTTP_ACCEPT="text/plain")
    assert missing.status_code == 404 and missing.json()["code"] == "deck/not_found"


def test_a_deck_is_saved_from_a_pasted_list(users, client_for):
    alice = client_for(users["alice"])
    text = "Deck: Pasted\nGunslinger: Buffalo Kid\n" + "\n".join(names(legal_cards())) + "\n"
    from_json = create(alice, {"text": text})
    assert (
        from_json["name"] == "Pasted" and from_json["legal"] and from_json["current"]["source_text"] == text
    )
    raw = alice.post("/api/decks/?name=Raw&format=frontier", text, content_type="text/plain")
    assert raw.status_code == 201, raw.json()
    assert (raw.json()["name"], raw.json()["current"]["format"]) == ("Raw", "frontier")
    edited = alice.put(f"/api/decks/{raw.json()['share_id']}/", text + "Machete\n", content_type="text/plain")
    assert edited.json()["version"] == 2 and edited.json()["current"]["format"] == "frontier"


def test_a_deck_with_a_frozen_version_cannot_be_deleted(users, client_for):
    alice = client_for(users["alice"])
    deck = create(alice, {"gunslinger": "Buffalo Kid", "cards": legal_cards()})
    version = DeckVersion.objects.get(deck__share_id=deck["share_id"], number=1)
    deck_services.deck_version_freeze(deck_version=version, purpose="tournament 1")
    deck_services.deck_version_freeze(deck_version=version, purpose="tournament 1")
    url = f"/api/decks/{deck['share_id']}/"
    assert_error(alice.delete(url), 409, "deck/frozen")
    frozen = alice.get(f"{url}versions/1/").json()
    assert frozen["frozen_at"] and frozen["frozen_for"] == ["tournament 1"]
    assert alice.patch(url, {"cards": [*legal_cards()[:-1], "Machete"]}, format="json").json()["version"] == 2
    assert alice.get(f"{url}versions/1/").json() == frozen
    assert Deck.objects.filter(share_id=deck["share_id"]).exists()


def test_the_openapi_schema_documents_the_deck_endpoints(client_for):
    schema = client_for().get("/api/schema/", {"format": "json"})
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    for path in (
        "/api/ragnguns/cards/",
        "/api/ragnguns/cards/{id}/",
        "/api/ragnguns/formats/",
        "/api/ragnguns/prebuilt/",
        "/api/ragnguns/deck-checks/",
        "/api/decks/",
        "/api/decks/{share_id}/",
        "/api/decks/{share_id}/versions/",
        "/api/decks/{share_id}/versions/{number}/",
        "/api/decks/{share_id}/export/",
    ):
        assert path in paths, path
    check_body = paths["/api/ragnguns/deck-checks/"]["post"]["requestBody"]["content"]
    assert {"application/json", "text/plain"} <= set(check_body)
    assert "text/plain" in paths["/api/decks/{share_id}/export/"]["get"]["responses"]["200"]["content"]
    assert {"legal", "violations", "deck"} <= set(
        schema.json()["components"]["schemas"]["DeckCheck"]["properties"]
    )


def test_checking_a_deck_reads_no_database(client_for, django_assert_num_queries):
    check(client_for(), {"gunslinger": "buffalo-kid", "cards": legal_cards()})  # the ban lists, cached
    with django_assert_num_queries(0):
        body = check(client_for(), {"gunslinger": "buffalo-kid", "cards": legal_cards()})
    assert body["legal"] is True


def test_pasted_prose_comes_back_as_warnings_beside_a_legal_check_and_a_saved_deck(client_for, users):
    prose = "Hi all, here is the list I took to the county fair!\n\n"
    text = prose + "Gunslinger: Buffalo Kid\n" + "\n".join(names(legal_cards())) + "\n"
    body = check(client_for(None), {"text": text})
    assert body["legal"] is True, body
    assert [(w["code"], w["line"]) for w in body["warnings"]] == [("text/ignored_line", 1)]
    saved = create(client_for(users["alice"]), {"text": text, "name": "County fair"})
    assert saved["current"]["warnings"][0]["line"] == 1 and saved["current"]["legal"] is True


def test_a_diff_between_versions_names_the_cards_in_and_out(client_for, users):
    alice = client_for(users["alice"])
    first = create(alice, {"gunslinger": "buffalo-kid", "cards": legal_cards(), "name": "Diffed"})
    url = f"/api/decks/{first['share_id']}/"
    swapped_out = legal_cards()[0]
    newcomer = next(
        card.id for card in CATALOGUE.cards if not card.is_gunslinger and card.id not in legal_cards()
    )
    cards = [newcomer, *legal_cards()[1:]]
    assert alice.put(url, {"gunslinger": "buffalo-kid", "cards": cards}, format="json").status_code == 200
    diff = alice.get(f"{url}diff/").json()
    assert diff["from"] == 1 and diff["to"] == 2
    assert [entry["card"] for entry in diff["cards_in"]] == [newcomer]
    assert [entry["card"] for entry in diff["cards_out"]] == [swapped_out]
    assert diff["gunslinger"]["changed"] is False
    backwards = client_for().get(f"{url}diff/", {"from": 2, "to": 1}).json()
    assert backwards["cards_in"] == diff["cards_out"] and backwards["cards_out"] == diff["cards_in"]
    assert_error(alice.get(f"{url}diff/", {"to": 1}), 404, "deck/version_not_found")
    assert_error(alice.get(f"{url}diff/", {"from": 7}), 404, "deck/version_not_found")


def test_sample_draws_follow_the_draw_rule_and_the_seed(client_for, users):
    deck = create(client_for(users["alice"]), {"gunslinger": "buffalo-kid", "cards": legal_cards()})
    url = f"/api/decks/{deck['share_id']}/sample-draws/"
    anonymous = client_for()
    drawn = anonymous.get(url, {"seed": "saturday", "turns": 6}).json()
    hands = [[entry["card"] for entry in turn["cards"]] for turn in drawn["turns"]]
    # DRAW 3 a turn; 15 cards run out after five turns, so a sixth turn draws nothing.
    assert [len(hand) for hand in hands] == [3, 3, 3, 3, 3]
    assert sorted(card for hand in hands for card in hand) == sorted(legal_cards())
    assert drawn["left_in_deck"] == 0
    assert anonymous.get(url, {"seed": "saturday", "turns": 6}).json() == drawn
    other = anonymous.get(url, {"seed": "sunday", "turns": 6}).json()
    assert other["turns"] != drawn["turns"]
    fresh = anonymous.get(url).json()
    assert len(fresh["turns"]) == 3 and fresh["seed"]
    assert_error(anonymous.get(url, {"turns": 11}), 400, "request/invalid_query")
    assert_error(anonymous.get(url, {"seed": "x" * 65}), 400, "deck/bad_seed")


def test_sample_draws_shuffle_as_a_match_shuffles():
    from engines.chance import ChanceRequest, draw
    from engines.ragnguns.rules import sample_draws

    permutation = draw(b"\x01" * 32, 0, ChanceRequest.shuffle("deck", size=15))["permutation"]
    turns = sample_draws(legal_cards(), permutation, turns=2)
    canonical = sorted(legal_cards())
    assert turns == [[canonical[i] for i in permutation[:3]], [canonical[i] for i in permutation[3:6]]]
