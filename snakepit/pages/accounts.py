"""Accounts in the browser: sign in, sign up, sign out, and the API token page, so a newcomer reaches
everything without the shell.

Sign-in and sign-up count against the same `sign_in` rate as the API's token and browsable sign-in
(api/throttles.py), per client address; a refusal is the form again with the reason, as a 429 with
Retry-After. A new account gets nothing more than any account: no staff flag, no group.
"""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model, login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.contrib.auth.views import LoginView, LogoutView
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods
from rest_framework.authtoken.models import Token

from api.throttles import SignInThrottle
from snakepit.demo import demo_login_hint

USERNAME_MAX = 40  # shorter than the column's 150: names are shown in tables, brackets and logs
PASSWORD_MAX = 128  # hashing a longer one costs the server more and protects nobody more


def _sign_in_refusal(request: HttpRequest) -> int | None:
    """Seconds to wait when this client has asked to sign in or up too often; None when it may."""
    throttle = SignInThrottle()
    if throttle.allow_request(request, None):
        return None
    return int(throttle.wait() or 1)


def _throttled_form(request: HttpRequest, template: str, form: forms.Form, wait: int) -> HttpResponse:
    form.add_error(None, f"Too many attempts from here; try again in {wait} s.")
    response = render(
        request, template, {"form": form, "section": "account", "next": _next(request)}, status=429
    )
    response["Retry-After"] = str(wait)
    return response


def _next(request: HttpRequest) -> str:
    """Where to go after signing in or up: `next` when it is a page of this site, else home."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    if len(target) <= 2000 and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return ""


class SignInForm(AuthenticationForm):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["username"].max_length = USERNAME_MAX * 4  # older accounts may have longer names
        self.fields["username"].widget.attrs["maxlength"] = USERNAME_MAX * 4
        self.fields["password"].max_length = PASSWORD_MAX
        self.fields["password"].widget.attrs["maxlength"] = PASSWORD_MAX


class SignInView(LoginView):
    template_name = "accounts/sign_in.html"
    form_class = SignInForm
    redirect_authenticated_user = True

    def get_context_data(self, **kwargs):
        return {
            **super().get_context_data(**kwargs),
            "section": "account",
            "demo_hint": demo_login_hint(self.request),
        }

    def post(self, request, *args, **kwargs):
        wait = _sign_in_refusal(request)
        if wait is not None:
            return _throttled_form(request, self.template_name, self.get_form(), wait)
        return super().post(request, *args, **kwargs)

    def get_default_redirect_url(self):
        return "/"


sign_in = SignInView.as_view()
sign_out = LogoutView.as_view(next_page="/")  # POST only (Django's LogoutView refuses GET)


class SignUpForm(UserCreationForm):
    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username",)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        username = self.fields["username"]
        username.max_length = USERNAME_MAX
        username.widget.attrs["maxlength"] = USERNAME_MAX
        username.help_text = f"Up to {USERNAME_MAX} letters, digits and @ . + - _"
        for name in ("password1", "password2"):
            self.fields[name].max_length = PASSWORD_MAX
            self.fields[name].widget.attrs["maxlength"] = PASSWORD_MAX

    def clean_username(self):
        username = super().clean_username()  # None when taken in any case: Django has said so
        if username is not None and len(username) > USERNAME_MAX:
            raise forms.ValidationError(f"At most {USERNAME_MAX} characters.")
        return username

    def clean(self):
        data = super().clean()
        for name in ("password1", "password2"):
            if len(data.get(name) or "") > PASSWORD_MAX:
                self.add_error(name, f"At most {PASSWORD_MAX} characters.")
        return data


@require_http_methods(["GET", "POST"])
def sign_up(request: HttpRequest) -> HttpResponse:
    template = "accounts/sign_up.html"
    if request.user.is_authenticated:
        return redirect(_next(request) or "pages:api-token")
    form = SignUpForm(request.POST or None)
    if request.method == "POST":
        wait = _sign_in_refusal(request)
        if wait is not None:
            return _throttled_form(request, template, form, wait)
        if form.is_valid():
            with transaction.atomic():
                user = form.save()
            login(request, user)
            return redirect(_next(request) or "pages:api-token")
    status = 400 if form.errors else 200
    return render(
        request, template, {"form": form, "section": "account", "next": _next(request)}, status=status
    )


@login_required
@require_http_methods(["GET", "POST"])
def api_token(request: HttpRequest) -> HttpResponse:
    """Your API token: shown to you alone; a POST makes a new one, and the old one stops working."""
    if request.method == "POST":
        with transaction.atomic():
            Token.objects.filter(user=request.user).delete()
            Token.objects.create(user=request.user)
        return redirect("pages:api-token")
    token = Token.objects.filter(user=request.user).first()
    return render(request, "accounts/api_token.html", {"token": token, "section": "account"})
