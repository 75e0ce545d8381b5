from django.conf import settings
from django.shortcuts import render

from engines.registry import all_games
from tournaments.demo import DEMO_PASSWORD, DEMO_USERNAME
from tournaments.selectors import match_list


def home(request):
    games = [{**game.spec.describe(), "bots": sorted(game.bots())} for game in all_games()]
    return render(
        request,
        "home.html",
        {
            "games": games,
            "matches": match_list()[:10],
            # Shown only on a development server, where `manage.py up` created that account.
            "demo_hint": f"{DEMO_USERNAME} / {DEMO_PASSWORD}" if settings.DEBUG else "",
        },
    )
