from django.shortcuts import render

from engines.registry import all_games
from matches.selectors import match_list
from ratings.models import Ladder
from ratings.selectors import leaderboard
from snakepit.demo import demo_login_hint
from tournaments.models import Tournament


def home(request):
    games = [game.describe() for game in all_games()]
    return render(
        request,
        "home.html",
        {
            "section": "home",
            "games": games,
            "matches": match_list()[:10],
            "ladders": [_ladder_row(ladder) for ladder in Ladder.objects.filter(is_active=True)[:10]],
            "tournaments": Tournament.objects.exclude(status=Tournament.Status.DRAFT)[:10],
            "demo_hint": demo_login_hint(request),
        },
    )


def _ladder_row(ladder: Ladder) -> dict:
    rows = leaderboard(ladder=ladder)
    leader = next((row for row in rows if row["games"]), None)
    return {
        "slug": ladder.slug,
        "name": ladder.name,
        "game": ladder.game,
        "leader": leader,
        "entries": len(rows),
    }
