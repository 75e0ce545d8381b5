"""The Django admin: a staff user browses every model of every app, and cannot alter a log."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.contrib import admin
from django.urls import reverse
from django.utils import timezone

from matches import services as match_services
from matches.models import Match, MatchEvent
from matches.services import SeatSpec
from matches.store import match_advance
from ratings import services as rating_services
from ratings.models import Ladder
from ratings.rate import ladder_match_rate
from ratings.rounds import ladder_round_create
from ratings.seasons import ladder_season_close
from snakepit.demo import DEMO_USERNAME, demo_data_ensure
from tournaments import services as tournament_services
from tournaments.models import TournamentEvent

pytestmark = pytest.mark.django_db

APPS = ("matches", "decks", "tournaments", "ratings")


@pytest.fixture
def operator(django_user_model):
    return django_user_model.objects.create_superuser(
        "operator", "operator@snakepit.invalid", "operator-password"
    )


@pytest.fixture
def world(operator, users):
    """At least one row of every model: matches and events, a deck, a played tournament, a rated ladder."""
    from decks import services as deck_services
    from matches.challenges import challenge_create

    demo_data_ensure()
    deck_services.deck_create(owner=users["alice"], cards=["Machete"])
    operator.is_staff = True
    deck_services.ban_list_publish(
        format_key="frontier",
        version="2027.1",
        effective_at=timezone.now(),
        banned=["machete"],
        restricted=[],
        max_restricted=0,
        by=operator,
    )
    challenge_create(
        created_by=users["alice"], game_key="rat-snake", seats=[{"user": "alice"}, {"user": "bob"}]
    )
    # Two of each, so that the admin's ladder and tournament filters have a choice to offer.
    ladders = [
        rating_services.ladder_create(game_key="rat-snake", name=name, options={"passes": 1})
        for name in ("Dens", "Pits")
    ]
    for ladder in ladders:
        for bot in ("random", "heuristic"):
            rating_services.ladder_join(ladder=ladder, bot=bot)
        for match in ladder_round_create(ladder_id=ladder.pk).matches:
            match_advance(match_id=match.pk)
            ladder_match_rate(match_id=match.pk)
    ladder_season_close(ladder_id=ladders[0].pk)
    for name in ("Cup", "Shield"):
        tournament = tournament_services.tournament_create(
            organiser=operator, name=name, game_key="rat-snake", format="round_robin", options={"passes": 1}
        )
        tournament_services.tournament_open(slug=tournament.slug, user=operator)
        # A webhook, so that pairing leaves a delivery (never sent: nothing commits in a test).
        tournament_services.tournament_webhook_add(
            slug=tournament.slug, user=operator, url="https://hooks.snakepit.invalid/t", events=[]
        )
        for bot in ("random", "heuristic"):
            tournament_services.tournament_register(slug=tournament.slug, user=operator, bot=bot)
        tournament_services.tournament_start(slug=tournament.slug, user=operator)
    return {"ladder": ladders[0]}


def test_every_model_of_every_app_is_registered():
    for label in APPS:
        for model in apps.get_app_config(label).get_models():
            assert admin.site.is_registered(model), f"{label}.{model.__name__} has no admin"


@pytest.mark.parametrize("who", ["superuser", "demo operator"])
def test_a_staff_user_browses_every_list_and_every_record(client, operator, world, who, django_user_model):
    staff = operator if who == "superuser" else django_user_model.objects.get(username=DEMO_USERNAME)
    assert staff.is_staff and (who == "superuser") == staff.is_superuser
    client.force_login(staff)
    for label in APPS:
        for model in apps.get_app_config(label).get_models():
            name = f"admin:{label}_{model._meta.model_name}"
            listing = client.get(reverse(f"{name}_changelist"))
            assert listing.status_code == 200, f"{model.__name__} list: {listing.status_code}"
            record = model.objects.order_by("pk").first()
            assert record is not None, f"the fixture made no {model.__name__}"
            page = client.get(reverse(f"{name}_change", args=[record.pk]))
            assert page.status_code == 200, f"{model.__name__} {record.pk}: {page.status_code}"
    searched = client.get(reverse("admin:matches_match_changelist"), {"q": "heuristic", "game": "rat-snake"})
    assert searched.status_code == 200 and b"rat-snake" in searched.content
    listing = client.get(reverse("admin:matches_match_changelist"))
    # Django shows a filter once it has two choices; these are its filters, shown or not.
    assert {str(spec.title) for spec in listing.context["cl"].filter_specs} >= {
        "game",
        "status",
        "ladder",
        "tournament",
    }
    ladder = world["ladder"]
    by_ladder = client.get(
        reverse("admin:matches_match_changelist"), {"ladder_match__round__ladder__id__exact": ladder.pk}
    )
    shown = by_ladder.context["cl"].result_list
    assert {match.pk for match in shown} == set(
        Match.objects.filter(ladder_match__round__ladder=ladder).values_list("pk", flat=True)
    )


@pytest.mark.parametrize("model", [MatchEvent, TournamentEvent])
@pytest.mark.parametrize("who", ["superuser", "demo operator"])
def test_a_staff_user_cannot_change_or_delete_an_event(
    client, operator, world, model, who, django_user_model
):
    client.force_login(
        operator if who == "superuser" else django_user_model.objects.get(username=DEMO_USERNAME)
    )
    event = model.objects.order_by("pk").first()
    before = model.objects.values().get(pk=event.pk)
    name = f"admin:{model._meta.app_label}_{model._meta.model_name}"
    change_url = reverse(f"{name}_change", args=[event.pk])

    page = client.get(change_url)
    assert page.status_code == 200 and b'name="_save"' not in page.content  # shown, not editable
    assert client.post(change_url, {"seq": 99, "kind": "action", "payload": "{}"}).status_code == 403
    assert client.post(reverse(f"{name}_delete", args=[event.pk]), {"post": "yes"}).status_code == 403
    bulk = client.post(
        reverse(f"{name}_changelist"),
        {"action": "delete_selected", "_selected_action": [event.pk], "post": "yes"},
    )
    assert bulk.status_code in (200, 302)
    assert client.get(reverse(f"{name}_add")).status_code == 403
    assert model.objects.values().get(pk=event.pk) == before
    assert model.objects.count() >= 1


def test_the_admin_hides_a_running_matchs_seed_and_payloads_until_it_ends(client, operator, users):
    client.force_login(operator)
    match = match_services.match_create(
        game_key="rat-snake",
        seats=[SeatSpec(user=users["alice"]), SeatSpec(bot="random")],
        options={"passes": 1},
    )
    seed_hex = bytes(match.seed).hex()
    page = client.get(reverse("admin:matches_match_change", args=[match.pk])).content.decode()
    assert seed_hex not in page and "hidden until the match ends" in page
    event = match.events.order_by("seq").first()
    event_page = client.get(reverse("admin:matches_matchevent_change", args=[event.pk])).content.decode()
    assert "hidden until the match ends" in event_page

    match_services.match_forfeit(match_id=match.pk, seat=0, reason="resigned", user=users["alice"])
    page = client.get(reverse("admin:matches_match_change", args=[match.pk])).content.decode()
    assert seed_hex in page


def test_pausing_a_ladder_in_the_admin_pauses_its_beat_entry(client, operator, world):
    from django_celery_beat.models import PeriodicTask

    client.force_login(operator)
    ladder: Ladder = world["ladder"]
    url = reverse("admin:ratings_ladder_change", args=[ladder.pk])
    response = client.post(
        url,
        {
            "name": "Renamed",
            "round_interval_seconds": 900,
            "move_deadline_seconds": ladder.move_deadline_seconds,
            "match_deadline_seconds": ladder.match_deadline_seconds,
            "_save": "Save",
        },
    )  # "is_active" unticked
    assert response.status_code == 302, response.content.decode()[:2000]
    ladder.refresh_from_db()
    assert ladder.name == "Renamed" and not ladder.is_active
    task = PeriodicTask.objects.get(name=f"ladder round: {ladder.slug}")
    assert not task.enabled and task.interval.every == 900
