"""The organiser's control through the API: seeding (random from a committed-then-revealed secret,
by hand, by registration), forbidden pairs by username, re-pairing with a reason, the check-in window,
registering someone else, late entrants' missed rounds, cancel and delete, round end times closed by
rule, an unpairable Swiss, table keys in numeric order and tie-breaks named as FIDE names them."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from engines.chance import ChanceRequest, draw
from tournaments import services
from tournaments.models import Tournament, TournamentEvent

pytestmark = pytest.mark.django_db


@pytest.fixture
def organiser(django_user_model, client_for):
    return client_for(django_user_model.objects.create_user("organiser"))


def post(client, path, body=None, status=(200, 201)):
    response = client.post(path, body or {}, format="json")
    expected = status if isinstance(status, tuple) else (status,)
    assert response.status_code in expected, (path, response.status_code, response.content[:400])
    return response.json() if response.content else None


def opened(organiser, **body):
    body = {"name": "Open", "game": "rat-snake", "format": "swiss", "result_mode": "table", **body}
    slug = post(organiser, "/api/tournaments/", body)["slug"]
    post(organiser, f"/api/tournaments/{slug}/open/")
    return slug


def register(slug, django_user_model, client_for, names):
    clients = {}
    for name in names:
        client = client_for(django_user_model.objects.create_user(name))
        clients[name] = client
        post(client, f"/api/tournaments/{slug}/register/")
    return clients


def events(slug, kind):
    return list(TournamentEvent.objects.filter(tournament__slug=slug, kind=kind).order_by("seq"))


def started_order(slug):
    return events(slug, "started")[0].payload["players"]


def usernames(organiser, slug):
    return {e["player"]: e["user"] for e in organiser.get(f"/api/tournaments/{slug}/entries/").json()}


def test_random_seeding_is_committed_before_registration_and_revealed_with_the_first_round(
    organiser, django_user_model, client_for
):
    slug = opened(organiser, seeding="random")
    commitment = events(slug, "registration_opened")[0].payload["seed_commitment"]
    assert organiser.get(f"/api/tournaments/{slug}/").json()["seed_commitment"] == commitment
    register(slug, django_user_model, client_for, [f"r{k}" for k in range(9)])
    # Before the start the secret is nowhere to be read.
    secret = bytes(Tournament.objects.get(slug=slug).seed).hex()
    for path in ("/", "/events/", "/export/json/"):
        assert secret not in organiser.get(f"/api/tournaments/{slug}{path}").content.decode()
    post(organiser, f"/api/tournaments/{slug}/start/")
    started = events(slug, "started")[0].payload
    revealed = bytes.fromhex(started["seed"])
    assert hashlib.sha256(revealed).hexdigest() == commitment
    # Anyone re-derives the order from the revealed secret (docs/tournaments.md: ids sorted, shuffled).
    ids = sorted(started["players"])
    permutation = draw(revealed, 0, ChanceRequest.shuffle("seeding", size=len(ids)))["permutation"]
    assert started["players"] == [ids[i] for i in permutation]
    # Another tournament with the same name draws another secret: nothing follows from the slug.
    other = opened(organiser, seeding="random")
    assert events(other, "registration_opened")[0].payload["seed_commitment"] != commitment


def test_manual_seeding_orders_rated_and_unrated_people_and_registration_seeding_keeps_the_order(
    organiser, django_user_model, client_for
):
    slug = opened(organiser, seeding="manual")
    register(slug, django_user_model, client_for, ["ann", "ben", "cat", "dan"])
    refused = post(organiser, f"/api/tournaments/{slug}/seeds/", {"order": ["dan", "nobody"]}, status=422)
    assert refused["code"] == "player/not_found"
    entries = post(organiser, f"/api/tournaments/{slug}/seeds/", {"order": ["dan", "ann", "cat"]})
    assert [(e["user"], e["seed"]) for e in entries] == [("dan", 1), ("ann", 2), ("cat", 3), ("ben", None)]
    post(organiser, f"/api/tournaments/{slug}/start/")
    names = usernames(organiser, slug)
    assert [names[p] for p in started_order(slug)] == ["dan", "ann", "cat", "ben"]
    assert events(slug, "seeds_set")[0].actor.username == "organiser"
    by_registration = opened(organiser, seeding="registration")
    register(by_registration, django_user_model, client_for, ["zed", "amy", "kim"])
    post(organiser, f"/api/tournaments/{by_registration}/start/")
    names = usernames(organiser, by_registration)
    assert [names[p] for p in started_order(by_registration)] == ["zed", "amy", "kim"]


def test_forbidden_pairs_by_username_are_validated_and_editable_until_the_round_is_paired(
    organiser, django_user_model, client_for
):
    slug = opened(organiser, seeding="manual", config={"rounds": 3})
    names = ["s1", "s2", "s3", "s4", "s5", "s6"]
    register(slug, django_user_model, client_for, names)
    post(organiser, f"/api/tournaments/{slug}/seeds/", {"order": names})
    refused = organiser.put(
        f"/api/tournaments/{slug}/forbidden-pairs/", {"pairs": [["s1", "ghost"]]}, format="json"
    )
    assert refused.status_code == 422 and refused.json()["code"] == "player/not_found"
    # Seed 1 meets seed 4 in round one of six; forbid it.
    response = organiser.put(
        f"/api/tournaments/{slug}/forbidden-pairs/", {"pairs": [["s1", "s4"]]}, format="json"
    )
    assert response.status_code == 200 and response.json() == {"pairs": [["s1", "s4"]]}
    post(organiser, f"/api/tournaments/{slug}/start/")
    ids = {v: k for k, v in usernames(organiser, slug).items()}
    met = {frozenset(t["players"]) for t in organiser.get(f"/api/tournaments/{slug}/tables/").json()}
    assert frozenset({ids["s1"], ids["s4"]}) not in met
    # Still editable for the next round.
    response = organiser.put(
        f"/api/tournaments/{slug}/forbidden-pairs/", {"pairs": [["s1", "s4"], ["s2", "s3"]]}, format="json"
    )
    assert response.status_code == 200 and organiser.get(f"/api/tournaments/{slug}/forbidden-pairs/").json()[
        "pairs"
    ][1] == ["s2", "s3"]
    outsider = client_for(django_user_model.objects.create_user("outsider"))
    assert (
        outsider.put(f"/api/tournaments/{slug}/forbidden-pairs/", {"pairs": []}, format="json").status_code
        == 403
    )


def test_the_organiser_swaps_players_of_a_round_before_it_starts_with_a_reason(
    organiser, django_user_model, client_for
):
    slug = opened(organiser, seeding="manual")
    clients = register(slug, django_user_model, client_for, ["w1", "w2", "w3", "w4"])
    post(organiser, f"/api/tournaments/{slug}/start/")
    names = usernames(organiser, slug)
    tables = organiser.get(f"/api/tournaments/{slug}/tables/").json()
    (a, b), (c, d) = (t["players"] for t in tables)
    swapped = {"tables": [[names[a], names[c]], [names[b], names[d]]], "reason": "siblings at table 1"}
    assert (
        post(clients["w1"], f"/api/tournaments/{slug}/rounds/1/repair/", swapped, status=403)["code"]
        == "tournament/not_organiser"
    )
    event = post(organiser, f"/api/tournaments/{slug}/rounds/1/repair/", swapped, status=201)
    assert event["payload"]["reason"] == "siblings at table 1"
    assert events(slug, "round_repaired")[0].actor.username == "organiser"
    tables = organiser.get(f"/api/tournaments/{slug}/tables/").json()
    assert [t["players"] for t in tables] == [[a, c], [b, d]]
    post(
        clients[names[a]],
        f"/api/tournaments/{slug}/tables/{tables[0]['match_key']}/report/",
        {"ranks": [1, 2]},
    )
    refused = post(organiser, f"/api/tournaments/{slug}/rounds/1/repair/", swapped, status=409)
    assert refused["code"] == "round/already_started"
    call_rebuild(slug)


def call_rebuild(slug):
    call_command("rebuild_tournaments", "--tournament", slug)


def test_check_in_happens_within_its_window(organiser, django_user_model, client_for):
    slug = opened(organiser, check_in_required=True)
    clients = register(slug, django_user_model, client_for, ["c1", "c2"])
    now = timezone.now()
    response = organiser.patch(
        f"/api/tournaments/{slug}/",
        {"check_in_opens_at": (now + timedelta(hours=1)).isoformat(), "check_in_closes_at": now.isoformat()},
        format="json",
    )
    assert response.status_code == 422 and response.json()["code"] == "check_in/bad_window"
    organiser.patch(
        f"/api/tournaments/{slug}/",
        {"check_in_opens_at": (now + timedelta(hours=1)).isoformat()},
        format="json",
    )
    assert (
        post(clients["c1"], f"/api/tournaments/{slug}/check-in/", status=409)["code"] == "check_in/not_open"
    )
    organiser.patch(
        f"/api/tournaments/{slug}/",
        {
            "check_in_opens_at": (now - timedelta(hours=1)).isoformat(),
            "check_in_closes_at": (now + timedelta(hours=1)).isoformat(),
        },
        format="json",
    )
    assert post(clients["c1"], f"/api/tournaments/{slug}/check-in/")["status"] == "checked_in"
    organiser.patch(
        f"/api/tournaments/{slug}/",
        {"check_in_closes_at": (now - timedelta(minutes=1)).isoformat()},
        format="json",
    )
    assert post(clients["c2"], f"/api/tournaments/{slug}/check-in/", status=409)["code"] == "check_in/closed"


def test_an_organiser_registering_someone_else_registers_that_person(
    organiser, django_user_model, client_for
):
    slug = opened(organiser)
    django_user_model.objects.create_user("zoe")
    entry = post(organiser, f"/api/tournaments/{slug}/register/", {"username": "zoe"}, status=201)
    assert entry["user"] == "zoe"
    assert [e["user"] for e in organiser.get(f"/api/tournaments/{slug}/entries/").json()] == ["zoe"]
    assert (
        post(organiser, f"/api/tournaments/{slug}/register/", {"username": "nobody"}, status=404)["code"]
        == "user/not_found"
    )
    player = client_for(django_user_model.objects.create_user("yan"))
    assert (
        post(player, f"/api/tournaments/{slug}/register/", {"username": "zoe"}, status=403)["code"]
        == "tournament/not_organiser"
    )
    assert events(slug, "registered")[0].actor.username == "organiser"


def test_a_late_entrant_starts_with_a_half_point_bye_for_each_missed_round_when_the_organiser_says_so(
    organiser, django_user_model, client_for
):
    slug = opened(organiser, config={"rounds": 4, "missed_rounds": "half_point_bye"})
    register(slug, django_user_model, client_for, ["l1", "l2", "l3", "l4"])
    post(organiser, f"/api/tournaments/{slug}/start/")
    for table in organiser.get(f"/api/tournaments/{slug}/tables/").json():
        post(
            organiser,
            f"/api/tournaments/{slug}/tables/{table['match_key']}/correct/",
            {"ranks": [1, 2], "reason": "test"},
        )
    post(organiser, f"/api/tournaments/{slug}/next-round/")
    register(slug, django_user_model, client_for, ["late"])
    rows = {row["name"]: row for row in organiser.get(f"/api/tournaments/{slug}/standings/").json()}
    assert rows["late"]["points"] == 1.0  # rounds 1 and 2 (paired already) missed: half a point each
    for table in organiser.get(f"/api/tournaments/{slug}/tables/", {"round": 2}).json():
        post(
            organiser,
            f"/api/tournaments/{slug}/tables/{table['match_key']}/correct/",
            {"ranks": [1, 2], "reason": "test"},
        )
    post(organiser, f"/api/tournaments/{slug}/next-round/")
    round_three = organiser.get(f"/api/tournaments/{slug}/tables/", {"round": 3}).json()
    ids = {v: k for k, v in usernames(organiser, slug).items()}
    paired = [p for t in round_three for p in t["players"]] + events(slug, "round_paired")[-1].payload["byes"]
    assert ids["late"] in paired
    trf = organiser.get(f"/api/tournaments/{slug}/export/trf/").content.decode()
    late_line = next(line for line in trf.splitlines() if "late" in line)
    assert late_line[91:99] == "0000 - H"


def test_cancel_keeps_the_log_and_only_a_never_opened_draft_is_deleted(
    organiser, django_user_model, client_for
):
    draft = post(organiser, "/api/tournaments/", {"name": "Draft", "game": "rat-snake", "format": "swiss"})[
        "slug"
    ]
    assert organiser.delete(f"/api/tournaments/{draft}/").status_code == 204
    assert organiser.get(f"/api/tournaments/{draft}/").status_code == 404
    slug = opened(organiser)
    clients = register(slug, django_user_model, client_for, ["k1", "k2"])
    response = organiser.delete(f"/api/tournaments/{slug}/")
    assert response.status_code == 409 and response.json()["code"] == "tournament/not_deletable"
    post(organiser, f"/api/tournaments/{slug}/start/")
    assert (
        post(clients["k1"], f"/api/tournaments/{slug}/cancel/", {"reason": "mine"}, status=403)["code"]
        == "tournament/not_organiser"
    )
    cancelled = post(organiser, f"/api/tournaments/{slug}/cancel/", {"reason": "the venue closed"})
    assert cancelled["status"] == "cancelled"
    assert events(slug, "cancelled")[0].payload == {"kind": "cancelled", "reason": "the venue closed"}
    key = organiser.get(f"/api/tournaments/{slug}/tables/").json()[0]["match_key"]
    refused = post(
        clients["k1"], f"/api/tournaments/{slug}/tables/{key}/report/", {"ranks": [1, 2]}, status=409
    )
    assert refused["code"] == "tournament/wrong_status"
    assert (
        post(organiser, f"/api/tournaments/{slug}/cancel/", {"reason": "again"}, status=409)["code"]
        == "tournament/wrong_status"
    )
    call_rebuild(slug)


def test_tables_open_past_the_round_end_are_flagged_and_closed_by_rule(
    organiser, django_user_model, client_for
):
    slug = opened(organiser, format="round_robin")
    clients = register(slug, django_user_model, client_for, ["t1", "t2", "t3", "t4"])
    soon = timezone.now() + timedelta(hours=1)
    post(organiser, f"/api/tournaments/{slug}/start/", {"ends_at": soon.isoformat()})
    tables = organiser.get(f"/api/tournaments/{slug}/tables/").json()
    assert all(t["ends_at"] and not t["overdue"] for t in tables)
    assert (
        post(organiser, f"/api/tournaments/{slug}/rounds/1/close/", {"rule": "draw"}, status=409)["code"]
        == "round/not_over"
    )
    names = usernames(organiser, slug)
    first = tables[0]
    post(
        clients[names[first["players"][0]]],
        f"/api/tournaments/{slug}/tables/{first['match_key']}/report/",
        {"ranks": [1, 2]},
    )
    post(clients[names[first["players"][1]]], f"/api/tournaments/{slug}/tables/{first['match_key']}/confirm/")
    # The service takes the time to judge by (the API passes now): an hour later, round 1 is over.
    closed = services.tournament_round_close(
        slug=slug,
        user=django_user_model.objects.get(username="organiser"),
        round_number=1,
        rule="both_lose",
        now=soon + timedelta(seconds=1),
    )
    assert closed == [tables[1]["match_key"]]
    table = organiser.get(f"/api/tournaments/{slug}/tables/{tables[1]['match_key']}/").json()
    assert table["result"]["forfeit"] and table["result"]["ranks"] == [1, 1]
    assert "closed by rule (both lose)" in table["history"][-1]["reason"]
    rows = {
        row["player"]: row["points"] for row in organiser.get(f"/api/tournaments/{slug}/standings/").json()
    }
    assert rows[tables[1]["players"][0]] == rows[tables[1]["players"][1]] == 0
    assert events(slug, "round_closed")[0].payload["rule"] == "both_lose"
    # A round whose time is up shows its open tables as overdue; the API closes them by rule.
    past = timezone.now() - timedelta(minutes=5)
    post(organiser, f"/api/tournaments/{slug}/next-round/", {"ends_at": past.isoformat()})
    round_two = organiser.get(f"/api/tournaments/{slug}/tables/", {"round": 2}).json()
    assert all(t["overdue"] for t in round_two)
    assert post(organiser, f"/api/tournaments/{slug}/rounds/2/close/", {"rule": "draw"})["closed"] == [
        t["match_key"] for t in round_two
    ]
    assert all(
        t["status"] == "decided"
        for t in organiser.get(f"/api/tournaments/{slug}/tables/", {"round": 2}).json()
    )
    call_rebuild(slug)


def test_an_unpairable_swiss_round_is_a_clear_error_that_writes_nothing(
    organiser, django_user_model, client_for
):
    slug = opened(organiser)
    register(slug, django_user_model, client_for, ["u1", "u2"])
    organiser.put(f"/api/tournaments/{slug}/forbidden-pairs/", {"pairs": [["u1", "u2"]]}, format="json")
    count = TournamentEvent.objects.filter(tournament__slug=slug).count()
    refused = post(organiser, f"/api/tournaments/{slug}/start/", status=422)
    assert refused["code"] == "swiss/no_legal_pairing" and "forbidden pairs" in refused["detail"]
    assert TournamentEvent.objects.filter(tournament__slug=slug).count() == count
    assert organiser.get(f"/api/tournaments/{slug}/").json()["status"] == "registration"


def test_table_keys_sort_as_numbers_and_tiebreaks_are_named_as_fide_names_them(
    organiser, django_user_model, client_for
):
    slug = opened(organiser)
    register(slug, django_user_model, client_for, [f"n{k}" for k in range(22)])
    post(organiser, f"/api/tournaments/{slug}/start/")
    keys = [t["match_key"] for t in organiser.get(f"/api/tournaments/{slug}/tables/").json()]
    assert keys == [f"R1-T{k}" for k in range(1, 12)]
    csv_keys = [
        line.split(",")[2]
        for line in organiser.get(f"/api/tournaments/{slug}/tables/csv/").content.decode().splitlines()[1:]
    ]
    assert csv_keys == keys
    tiebreaks = organiser.get(f"/api/tournaments/{slug}/").json()["tiebreaks"]
    assert {"code": "BH-C1", "name": "Buchholz Cut-1", "source": "FIDE C.07 Art. 8.1, 14"} in tiebreaks


def test_forbidden_pairs_in_the_config_naming_unknown_players_are_refused_at_the_start(
    organiser, django_user_model, client_for
):
    slug = opened(organiser, config={"forbidden_pairs": [["u1", "u999"]]})
    register(slug, django_user_model, client_for, ["v1", "v2"])
    refused = post(organiser, f"/api/tournaments/{slug}/start/", status=422)
    assert refused["code"] == "player/not_found" and "u999" in refused["detail"]
    assert organiser.get(f"/api/tournaments/{slug}/").json()["status"] == "registration"
