"""Deck pages: the Rag'n'Guns deck checker (paste, see every violation with its fix hint, save, share)
and a deck's permalink with its versions and legality in every format. Checks and saves go through
`decks.selectors.deck_check` and `decks.services.deck_create`, as the API's do."""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse

from core.errors import ApplicationError, NotFound
from decks.selectors import (
    MAX_TEXT_LENGTH,
    deck_check,
    deck_export_text,
    deck_get_by_share_id,
    deck_list_for_owner,
    deck_version_get,
    deck_version_recheck,
    deck_versions,
    format_list,
    prebuilt_list,
)
from decks.services import deck_create
from snakepit.pages.common import MAX_ROW_ID, render_page

MY_DECKS = 20  # saved decks listed under the checker for a signed-in person


class DeckCheckForm(forms.Form):
    text = forms.CharField(
        label="Deck list",
        widget=forms.Textarea(attrs={"rows": 16, "spellcheck": "false"}),
        max_length=MAX_TEXT_LENGTH,
        help_text='One card a line, e.g. "2 Rusty Revolver"; a "Gunslinger:" line names your gunslinger.',
    )
    format = forms.ChoiceField(label="Format", required=False)
    name = forms.CharField(label="Name (to save it)", required=False, max_length=100)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["format"].choices = [("", "from the list's Format: line, else standard")] + [
            (fmt.key, fmt.name) for fmt in format_list()
        ]


def deck_check_page(request: HttpRequest) -> HttpResponse:
    """GET: the form (a pre-built deck's list filled in with `?prebuilt=<id>`). POST: check the list,
    or with `save` (signed in) save it and go to its permalink; problems are shown in the form."""
    prebuilt = prebuilt_list()
    result = None
    error = ""
    status = 200
    if request.method == "POST":
        form = DeckCheckForm(request.POST)
        if form.is_valid():
            data = form.cleaned_data
            try:
                if "save" in request.POST:
                    if not request.user.is_authenticated:
                        raise ApplicationError(
                            "Sign in to save a deck.", code="auth/not_signed_in", status=403
                        )
                    version = deck_create(
                        owner=request.user,
                        name=data["name"],
                        format_key=data["format"] or None,
                        text=data["text"],
                    )
                    return redirect("pages:deck-detail", share_id=version.deck.share_id)
                result = deck_check(format_key=data["format"] or None, text=data["text"])
            except ApplicationError as refusal:
                error, status = refusal.detail, refusal.status
        else:
            status = 400
    else:
        chosen = next((deck for deck in prebuilt if deck["id"] == request.GET.get("prebuilt")), None)
        form = DeckCheckForm(initial={"text": chosen["text"], "name": chosen["name"]} if chosen else None)
    context = {
        "section": "decks",
        "form": form,
        "result": result,
        "error": error,
        "prebuilt": prebuilt,
        "my_decks": deck_list_for_owner(owner=request.user)[:MY_DECKS]
        if request.user.is_authenticated
        else [],
    }
    return render_page(
        request,
        page="pages/deck_check.html",
        fragment="pages/_deck_check_body.html",
        context=context,
        status=status,
    )


def legality_by_format(version) -> list[dict[str, Any]]:
    """The version checked again in every format: (format, legal, its violations)."""
    rows = []
    for fmt in format_list():
        check = deck_version_recheck(version, fmt)
        rows.append({"key": fmt.key, "name": fmt.name, "legal": check.legal, "violations": check.violations})
    return rows


def deck_detail(request: HttpRequest, share_id: str) -> HttpResponse:
    """A saved deck's permalink: anyone with the link may look (as the API lets them)."""
    try:
        deck = deck_get_by_share_id(share_id=share_id)
        number = request.GET.get("version")
        wanted = int(number) if number and number.isdigit() else None
        if wanted is not None and wanted > MAX_ROW_ID:
            raise NotFound(f"deck {share_id} has no version {number}")
        version = deck_version_get(deck=deck, number=wanted)
    except NotFound:
        raise Http404(f"no deck {share_id}") from None
    context = {
        "section": "decks",
        "deck": deck,
        "version": version,
        "versions": list(deck_versions(deck=deck)),
        "text": deck_export_text(deck=deck, version=version),
        "legality": legality_by_format(version),
        "share_url": request.build_absolute_uri(reverse("pages:deck-detail", args=[deck.share_id])),
        "is_owner": request.user.is_authenticated and deck.owner_id == request.user.pk,
    }
    return render_page(request, page="pages/deck_detail.html", context=context)
