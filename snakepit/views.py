from django.shortcuts import render

from engines.registry import all_games
from matches.selectors import match_list
from ratings.models import Ladder
from ratings.selectors import LeaderboardSummary, leaderboard_summaries
from snakepit.demo import demo_login_hint
from tournaments.models import Tournament


def home(request):
    games = [game.describe() for game in all_games()]
    ladders = list(Ladder.objects.filter(is_active=True)[:10])
    summaries = leaderboard_summaries(ladders=ladders)
    return render(
        request,
        "home.html",
        {
            "section": "home",
            "games": games,
            "matches": match_list()[:10],
            "ladders": [_ladder_row(ladder, summaries[ladder.pk]) for ladder in ladders],
            "tournaments": Tournament.objects.exclude(status=Tournament.Status.DRAFT)[:10],
            "demo_hint": demo_login_hint(request),
        },
    )


def _ladder_row(ladder: Ladder, summary: LeaderboardSummary) -> dict:
    return {
        "slug": ladder.slug,
        "name": ladder.name,
        "game": ladder.game,
        "leader": summary.leader,
        "entries": summary.entries,
    }
