"""Demo data for a newcomer's first run: an organiser account and a rival, and, on an empty database,
something alive to look at -- a finished Swiss tournament, a double elimination in progress, a ladder
whose bots keep playing, a finished match of every game and a few saved decks.

Everything is made through the apps' services, as the API would make it. Bot matches are played here
and now (`match_advance`, `tournament_record_match`, `ladder_ratings_apply` are each safe to run again,
so the tasks the services also queue for the workers change nothing when they run)."""

from __future__ import annotations

import random
from collections.abc import Callable

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.db import transaction
from rest_framework.authtoken.models import Token

from decks.models import Deck
from decks.selectors import prebuilt_list
from decks.services import deck_create
from engines.registry import all_games, bot_names, default_bot
from matches.models import Match
from matches.services import SeatSpec, match_create
from matches.store import match_advance
from ratings.models import Ladder
from ratings.rate import ladder_ratings_apply
from ratings.rounds import ladder_round_create
from ratings.services import ladder_create, ladder_join
from tournaments import services as tournament_services
from tournaments.models import Tournament

OPERATOR_APPS = ("matches", "decks", "tournaments", "ratings")
# What an operator may change in the admin: a ladder's name and schedule. Everything else there is
# a log or a projection of one, written only by the services.
OPERATOR_CHANGES = ("ratings.change_ladder",)

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "snakepit-demo"

SWISS_SLUG = "demo-swiss-open"
DOUBLE_SLUG = "demo-double-elimination"
# The tournaments, the ladder and the pending match are of one game, its bots as the registry lists them.
DEMO_GAME = "rat-snake"
LADDER_SLUG = "demo-rat-snake-bots"
LADDER_ROUNDS = 6  # rounds played now, so the charts have a history from the first page view
LADDER_ROUND_SECONDS = 60  # then the workers' beat pairs a round a minute
ROUNDS_AT_MOST = 40  # a tournament drive stops here whatever happens (it needs 3 to 6)
# Short matches: a demo is for looking at, and `up` waits for it.
QUICK_OPTIONS = {DEMO_GAME: {"passes": 1}}

Progress = Callable[[str], None]


def operators_group_ensure() -> Group:
    """The "operators" group: view every record of the service's apps in the admin, change ladders."""
    group, _ = Group.objects.get_or_create(name="operators")
    viewing = Permission.objects.filter(
        content_type__app_label__in=OPERATOR_APPS, codename__startswith="view_"
    )
    changing = [
        Permission.objects.get(content_type__app_label=label, codename=codename)
        for label, codename in (name.split(".") for name in OPERATOR_CHANGES)
    ]
    group.permissions.add(*viewing, *changing)
    return group


@transaction.atomic
def demo_accounts_ensure() -> tuple[object, object, str]:
    """The demo organiser (staff, so the admin opens too), a rival, and the organiser's API token."""
    users = get_user_model()
    organiser, created = users.objects.get_or_create(
        username=DEMO_USERNAME, defaults={"is_staff": True, "email": "demo@snakepit.invalid"}
    )
    if created:
        organiser.set_password(DEMO_PASSWORD)
        organiser.save()
    rival, created = users.objects.get_or_create(username="rival")
    if created:
        rival.set_unusable_password()
        rival.save()
    organiser.groups.add(operators_group_ensure())
    token, _ = Token.objects.get_or_create(user=organiser)
    return organiser, rival, token.key


def demo_world_wanted() -> bool:
    """An empty database: no tournament, no saved deck, no match with a person seated. (`up` starts
    the open bot ladders before the demo, so their bots may have played already: that is no one's.)"""
    return not (
        Tournament.objects.exists()
        or Deck.objects.exists()
        or Match.objects.filter(seats__user__isnull=False).exists()
    )


def demo_data_ensure(*, with_matches: bool = True, progress: Progress | None = None) -> tuple[object, str]:
    """The demo accounts always; the demo world too on an empty database (so a second run, or a
    database with real data, gets nothing new). Returns the organiser and their token."""
    organiser, _, token = demo_accounts_ensure()
    if with_matches and demo_world_wanted():
        demo_world_build(organiser=organiser, progress=progress or (lambda text: None))
    return organiser, token


def demo_world_build(*, organiser, progress: Progress) -> None:
    rng = random.Random(2026)  # the same demo every time
    progress("demo: saved decks")
    decks_build(organiser)
    progress("demo: a finished match of every game")
    every_game_matches(organiser)
    progress("demo: a pending match for the demo account")
    match_create(
        game_key=DEMO_GAME,
        seats=[SeatSpec(user=organiser), SeatSpec(bot=default_bot(DEMO_GAME))],
        options=QUICK_OPTIONS[DEMO_GAME],
        created_by=organiser,
    )
    progress("demo: a finished Swiss tournament")
    swiss_build(organiser)
    progress("demo: a double elimination in progress")
    double_elimination_build(organiser)
    progress("demo: a ladder of bots")
    ladder_build(organiser, rng)


def decks_build(organiser) -> None:
    """Two pre-built decks saved as the organiser's, and one draft with problems to fix."""
    prebuilt = prebuilt_list()
    for deck in prebuilt[:2]:
        deck_create(owner=organiser, name=deck["name"], text=deck["text"])
    if prebuilt:
        draft = prebuilt[0]
        cards = list(draft["cards"])[: max(len(draft["cards"]) // 2, 1)]
        deck_create(owner=organiser, name="Half-built draft", gunslinger=draft["gunslinger"], cards=cards)


def every_game_matches(organiser) -> None:
    for game in all_games():
        bots = list(game.bots())
        seats = [SeatSpec(bot=bots[k % len(bots)]) for k in range(max(game.spec.min_players, 2))]
        match = match_create(
            game_key=game.spec.key,
            seats=seats,
            options=QUICK_OPTIONS.get(game.spec.key),
            created_by=organiser,
            bots_play="caller",
        )
        match_advance(match_id=match.pk)


def _bot_entries(slug: str, organiser, bots: list[str]) -> None:
    for bot in bots:
        tournament_services.tournament_register(slug=slug, user=organiser, bot=bot)


def _play_out_bot_tables(tournament: Tournament) -> int:
    """Play every unfinished bot-only match of the tournament and record it; returns matches played.
    A match with a person seated waits for them."""
    played = 0
    for link in tournament.matches.select_related("match").filter(match__status=Match.Status.RUNNING):
        if link.match.seats.filter(user__isnull=False).exists():
            continue
        match_advance(match_id=link.match_id)
        tournament_services.tournament_record_match(match_id=link.match_id)
        played += 1
    return played


def tournament_bots_play(tournament: Tournament, organiser) -> None:
    """Play the bots' matches and pair next rounds until the tournament is over, a person's match
    is pending, no round is left to pair, or the cap."""
    for _ in range(ROUNDS_AT_MOST):
        tournament.refresh_from_db()
        if tournament.status == Tournament.Status.FINISHED:
            return
        if _play_out_bot_tables(tournament):
            continue  # a recorded game may start the table's next game, or finish the tournament
        tournament.refresh_from_db()
        if tournament.tables.exclude(status="decided").exists():
            return  # a person's match is pending
        try:
            tournament_services.tournament_next_round(slug=tournament.slug, user=organiser)
        except Exception:  # noqa: BLE001 - no further round to pair: the drive is over
            return


def swiss_build(organiser) -> None:
    slug = SWISS_SLUG
    tournament_services.tournament_create(
        organiser=organiser,
        name="Demo Swiss Open",
        slug=slug,
        game_key=DEMO_GAME,
        format="swiss",
        options=QUICK_OPTIONS[DEMO_GAME],
        config={"rounds": 3},
        seeding="manual",
    )
    tournament_services.tournament_open(slug=slug, user=organiser)
    _bot_entries(slug, organiser, (bot_names(DEMO_GAME) * 8)[:8])
    tournament_services.tournament_start(slug=slug, user=organiser)
    tournament_bots_play(Tournament.objects.get(slug=slug), organiser)


def double_elimination_build(organiser) -> None:
    """The demo account (top seed: a bye into round two) and five bots: the bots' matches are played,
    the demo account's waits for it (signed in as demo, a newcomer plays it and the bracket moves on)."""
    slug = DOUBLE_SLUG
    tournament_services.tournament_create(
        organiser=organiser,
        name="Demo Double Elimination",
        slug=slug,
        game_key=DEMO_GAME,
        format="double_elimination",
        options=QUICK_OPTIONS[DEMO_GAME],
        seeding="manual",
    )
    tournament_services.tournament_open(slug=slug, user=organiser)
    tournament_services.tournament_register(slug=slug, user=organiser, seed=1)
    _bot_entries(slug, organiser, (bot_names(DEMO_GAME) * 5)[:5])
    tournament_services.tournament_start(slug=slug, user=organiser)
    tournament_bots_play(Tournament.objects.get(slug=slug), organiser)


def ladder_build(organiser, rng: random.Random) -> None:
    ladder = ladder_create(
        game_key=DEMO_GAME,
        name="Demo Rat-Snake bots",
        slug=LADDER_SLUG,
        options=QUICK_OPTIONS[DEMO_GAME],
        seats_per_match=2,
        entry_policy=Ladder.Entry.BOTS,
        round_interval_seconds=LADDER_ROUND_SECONDS,
        created_by=organiser,
    )
    # a bot may enter more than once, each entry rated apart
    for bot in (bot_names(DEMO_GAME) * 6)[:6]:
        ladder_join(ladder=ladder, bot=bot)
    for _ in range(LADDER_ROUNDS):
        result = ladder_round_create(ladder_id=ladder.pk, rng=rng, bots_play="caller")
        for match in result.matches:
            match_advance(match_id=match.pk)
        ladder_ratings_apply(ladder_id=ladder.pk)
