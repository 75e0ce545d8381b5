"""The accounts `manage.py up` makes (#32): the demo account is an ordinary player whose published
login is shown only on this machine; the staff account has a random password that no page names and
that is kept only as a hash."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from matches.models import Match
from snakepit.demo import (
    DEMO_PASSWORD,
    DEMO_USERNAME,
    DOUBLE_SLUG,
    LADDER_SLUG,
    STAFF_USERNAME,
    SWISS_SLUG,
    demo_data_ensure,
    is_loopback,
    staff_account_ensure,
)

pytestmark = pytest.mark.django_db

LOOPBACK = {"HTTP_HOST": "127.0.0.1:8000", "REMOTE_ADDR": "127.0.0.1"}


@pytest.fixture
def up_world(settings):
    """What `up` leaves on a fresh database, served to this machine (demo login shown)."""
    settings.SNAKEPIT_SHOW_DEMO_LOGIN = True
    demo_data_ensure()
    staff, password = staff_account_ensure()
    return staff, password


def main_pages() -> list[str]:
    match = Match.objects.order_by("pk").first()
    return [
        "/",
        "/accounts/sign-in/",
        "/accounts/sign-up/",
        "/tournaments/",
        f"/tournaments/{SWISS_SLUG}/",
        f"/tournaments/{DOUBLE_SLUG}/",
        "/ladders/",
        f"/ladders/{LADDER_SLUG}/",
        "/matches/",
        f"/matches/{match.pk}/",
        "/decks/",
        "/api/",
        "/api/docs/",
        "/api/schema/",
    ]


def test_no_page_names_the_staff_password_to_anyone_nor_to_demo(client, up_world):
    staff, password = up_world
    assert password and len(password) >= 20
    pages = main_pages()
    for path in pages:
        response = client.get(path, **LOOPBACK)
        assert response.status_code == 200, path
        assert password not in response.content.decode(), path
    assert DEMO_PASSWORD in client.get("/accounts/sign-in/", **LOOPBACK).content.decode()  # the hint is on
    assert client.login(username=DEMO_USERNAME, password=DEMO_PASSWORD)
    for path in [*pages, "/accounts/token/", "/bots/", "/play/", "/ops/", "/admin/"]:
        response = client.get(path, **LOOPBACK)
        assert response.status_code < 500, path
        assert password not in response.content.decode(), path
    assert not get_user_model().objects.filter(password__contains=password).exists()  # a hash alone


def test_demo_is_an_ordinary_player_refused_the_ops_page_and_the_admin(client, up_world):
    staff, password = up_world
    demo = get_user_model().objects.get(username=DEMO_USERNAME)
    assert not demo.is_staff and not demo.is_superuser and not demo.groups.exists()
    client.force_login(demo)
    assert client.get("/ops/").status_code == 403
    admin = client.get("/admin/")
    assert admin.status_code == 302 and admin["Location"].startswith("/admin/login/")
    match = Match.objects.filter(status=Match.Status.RUNNING).first()
    assert client.post("/ops/matches/void/", {"match": match.pk, "reason": "demo"}).status_code == 403
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING
    # The staff account, with the password `up` printed, opens both.
    assert client.login(username=STAFF_USERNAME, password=password)
    assert client.get("/ops/").status_code == 200
    assert client.get("/admin/").status_code == 200


def test_a_demo_account_an_older_version_made_staff_is_made_ordinary(django_user_model):
    old = django_user_model.objects.create_user(DEMO_USERNAME, password=DEMO_PASSWORD, is_staff=True)
    old.groups.add(Group.objects.create(name="operators"))
    demo_data_ensure(with_matches=False)
    old.refresh_from_db()
    assert not old.is_staff and not old.groups.exists()


def test_the_staff_password_is_set_once_and_anew_only_when_asked(django_user_model):
    staff, first = staff_account_ensure()
    assert staff.is_staff and not staff.is_superuser and staff.groups.filter(name="operators").exists()
    again, second = staff_account_ensure()  # a second `up`: the same account, nothing to print
    assert again.pk == staff.pk and second is None
    staff.refresh_from_db()
    assert staff.check_password(first)
    _, renewed = staff_account_ensure(new_password=True)
    staff.refresh_from_db()
    assert renewed not in (None, first) and staff.check_password(renewed) and not staff.check_password(first)


def test_ups_banner_prints_the_staff_password_the_first_time_only():
    from snakepit.management.commands.up import Command

    first = Command._staff_line()
    password = get_user_model().objects.get(username=STAFF_USERNAME)
    assert STAFF_USERNAME in first and any(password.check_password(word) for word in first.split())
    second = Command._staff_line()
    assert "changepassword" in second
    assert not any(password.check_password(word) for word in second.split())


@pytest.mark.parametrize(
    "meta, shown",
    [
        ({"HTTP_HOST": "127.0.0.1:8000", "REMOTE_ADDR": "127.0.0.1"}, True),
        ({"HTTP_HOST": "localhost:8000", "REMOTE_ADDR": "::1"}, True),
        ({"HTTP_HOST": "[::1]:8000", "REMOTE_ADDR": "127.0.0.1"}, True),
        # Through the documented proxy: waitress puts the visitor's address (X-Forwarded-For) here.
        ({"HTTP_HOST": "127.0.0.1:8000", "REMOTE_ADDR": "203.0.113.7"}, False),
        # A proxy that keeps the Host the visitor asked for but forwards no address.
        ({"HTTP_HOST": "snakepit.example.org", "REMOTE_ADDR": "127.0.0.1"}, False),
    ],
)
def test_the_demo_login_is_shown_only_to_this_machine(client, settings, meta, shown):
    settings.SNAKEPIT_SHOW_DEMO_LOGIN = True
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "snakepit.example.org"]
    for path in ("/", "/accounts/sign-in/"):
        page = client.get(path, **meta).content.decode()
        assert (f"{DEMO_USERNAME} / {DEMO_PASSWORD}" in page) == shown, path


def test_a_server_not_started_by_up_on_loopback_never_shows_the_demo_login(client, settings):
    settings.SNAKEPIT_SHOW_DEMO_LOGIN = False
    assert DEMO_PASSWORD not in client.get("/accounts/sign-in/", **LOOPBACK).content.decode()


@pytest.mark.parametrize(
    "host, loopback",
    [
        ("127.0.0.1", True),
        ("127.0.0.53", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("LocalHost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.20", False),
        ("localhost.example.org", False),
        ("", False),
    ],
)
def test_which_listening_addresses_are_this_machine_alone(host, loopback):
    assert is_loopback(host) is loopback
