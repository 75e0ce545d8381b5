"""Accounts in the browser, server side: sign-up bounded and checked inline, sign-in and sign-up
throttled like the API's sign-in, sign-out by POST only, `next` kept on this site, and the API token
page showing and replacing the token."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def sign_up(client, username, password="a long enough secret 42", **extra):
    return client.post(
        "/accounts/sign-up/", {"username": username, "password1": password, "password2": password, **extra}
    )


def test_sign_up_makes_a_plain_account_signs_it_in_and_goes_to_the_token_page(client, django_user_model):
    response = sign_up(client, "newcomer")
    assert response.status_code == 302 and response["Location"] == "/accounts/token/"
    user = django_user_model.objects.get(username="newcomer")
    assert not user.is_staff and not user.is_superuser and not user.groups.exists()
    assert "Signed in as <strong>newcomer</strong>" in client.get("/accounts/token/").content.decode()


@pytest.mark.parametrize(
    "username, password, field",
    [
        ("x" * 41, "a long enough secret 42", "username"),
        ("no spaces allowed", "a long enough secret 42", "username"),
        ("alice", "a long enough secret 42", "username"),  # taken
        ("ALICE", "a long enough secret 42", "username"),  # taken, whatever the case
        ("newcomer", "short", "password2"),
        ("newcomer", "password", "password2"),  # too common
        ("newcomer", "p" * 129, "password1"),
    ],
)
def test_a_bad_sign_up_is_refused_inline_and_makes_nothing(
    client, users, django_user_model, username, password, field
):
    before = django_user_model.objects.count()
    response = sign_up(client, username, password)
    assert response.status_code == 400
    assert f'id="{field}-errors"' in response.content.decode()
    assert django_user_model.objects.count() == before


def test_sign_in_goes_to_next_only_on_this_site(client, users):
    signed = client.post(
        "/accounts/sign-in/", {"username": "alice", "password": "alice-password", "next": "/play/"}
    )
    assert signed["Location"] == "/play/"
    client.post("/accounts/sign-out/")
    elsewhere = client.post(
        "/accounts/sign-in/",
        {"username": "alice", "password": "alice-password", "next": "https://evil.example/"},
    )
    assert elsewhere["Location"] == "/"
    client.post("/accounts/sign-out/")
    wrong = client.post("/accounts/sign-in/", {"username": "alice", "password": "nope"})
    assert wrong.status_code == 200 and 'id="form-errors"' in wrong.content.decode()


def test_sign_out_is_a_post(client, users):
    client.force_login(users["alice"])
    assert client.get("/accounts/sign-out/").status_code == 405
    assert "Signed in as" in client.get("/").content.decode()
    client.post("/accounts/sign-out/")
    assert "Signed in as" not in client.get("/").content.decode()


def test_signing_in_and_up_are_throttled_like_the_apis_sign_in(client, users, settings):
    settings.SNAKEPIT_RATES = {**settings.SNAKEPIT_RATES, "sign_in": "3/min"}
    cache.clear()
    for _ in range(2):
        assert (
            client.post("/accounts/sign-in/", {"username": "alice", "password": "wrong"}).status_code == 200
        )
    assert sign_up(client, "first").status_code == 302
    client.post("/accounts/sign-out/")
    refused = client.post("/accounts/sign-in/", {"username": "alice", "password": "alice-password"})
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    assert "Too many attempts" in refused.content.decode()
    assert sign_up(client, "second").status_code == 429
    assert "_auth_user_id" not in client.session


def test_the_token_page_shows_the_token_and_a_new_one_replaces_it(client, users):
    assert client.get("/accounts/token/")["Location"].startswith("/accounts/sign-in/?next=/accounts/token/")
    client.force_login(users["alice"])
    assert "You have no API token yet" in client.get("/accounts/token/").content.decode()
    client.post("/accounts/token/")
    first = Token.objects.get(user=users["alice"]).key
    assert first in client.get("/accounts/token/").content.decode()
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {first}")
    assert (
        api.post("/api/matches/", {}, format="json").status_code == 400
    )  # authenticated: the body is what is wrong
    client.post("/accounts/token/")
    second = Token.objects.get(user=users["alice"]).key
    assert second != first
    assert api.post("/api/matches/", {}, format="json").status_code == 401  # the old token stopped working
    client.force_login(users["bob"])
    assert second not in client.get("/accounts/token/").content.decode()
