"""Deck pages: the Rag'n'Guns deck checker (paste, see every violation with its fix hint, save, share)
and a deck's permalink with its versions and legality in every format."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from snakepit.pages.common import render_page


def deck_check_page(request: HttpRequest) -> HttpResponse:
    return render_page(request, page="pages/deck_check.html", context={"section": "decks"})
