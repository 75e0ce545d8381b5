from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils import timezone

from core.read_cache import Built, ReadCache
from engines.registry import all_games
from matches.selectors import match_list, matches_version
from ratings.models import Ladder
from ratings.selectors import (
    LeaderboardSummary,
    ladders_version,
    leaderboard_changes_at,
    leaderboard_summaries,
)
from snakepit.demo import demo_login_hint
from tournaments.models import Tournament
from tournaments.selectors import tournaments_version

# The home page's tables are the same for everyone: kept per version of the ladders, tournaments and
# matches they list (core/read_cache.py); the page around them (who is signed in) is made per request.
HOME_TABLES = ReadCache(max_entries=16, max_bytes=2 * 2**20)


def home(request):
    version = (ladders_version(), tournaments_version(), matches_version())
    return render(
        request,
        "home.html",
        {
            "section": "home",
            "tables": HOME_TABLES.get_or_build(version, _home_tables_built),
            "demo_hint": demo_login_hint(request),
        },
    )


def _home_tables_built() -> Built:
    now = timezone.now()  # before the rows are read: a leader that turns inactive meanwhile expires it
    ladders = list(Ladder.objects.filter(is_active=True)[:10])
    changes_at = leaderboard_changes_at(ladders=ladders, now=now)
    summaries = leaderboard_summaries(ladders=ladders, now=now)
    html = render_to_string(
        "home_tables.html",
        {
            "games": [game.describe() for game in all_games()],
            "matches": match_list()[:10],
            "ladders": [_ladder_row(ladder, summaries[ladder.pk]) for ladder in ladders],
            "tournaments": Tournament.objects.exclude(status=Tournament.Status.DRAFT)[:10],
        },
    )
    return Built(html, len(html.encode()), None if changes_at is None else changes_at.timestamp())


def _ladder_row(ladder: Ladder, summary: LeaderboardSummary) -> dict:
    return {
        "slug": ladder.slug,
        "name": ladder.name,
        "game": ladder.game,
        "leader": summary.leader,
        "entries": summary.entries,
    }
