"""Demo data for a newcomer's first run: an organiser account and a rival, and, on an empty database,
something alive to look at -- a finished Swiss tournament, a double elimination in progress, a ladder
whose bots keep playing, a finished match of every game and a few saved decks.

Everything is made through the apps' services, as the API would make it. Bot matches are played here
and now (`match_advance`, `tournament_record_match`, `ladder_ratings_apply` are each safe to run again,
so the tasks the services also queue for the workers change nothing when they run)."""

from __future__ import annotations

import ipaddress
import random
import secrets
from collections.abc import Callable

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.db import transaction
from django.http import HttpRequest
from django.http.request import split_domain_port
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
# `up`'s staff account: a name of its own, never the demo's, and a random password (`staff_account_ensure`).
STAFF_USERNAME = "admin"
STAFF_PASSWORD_BYTES = 18  # 24 URL-safe characters

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


def is_loopback(host: str) -> bool:
    """Whether an address or host name (brackets and all, no port) names this machine alone."""
    host = host.strip().strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def demo_login_hint(request: HttpRequest) -> str:
    """ "demo / its password" for the sign-in and home pages, or "" -- shown only to a person on the
    machine the server runs on. Three things must hold, since each alone can be fooled:
    - `up` made the demo account and listens on a loopback address (it sets SNAKEPIT_SHOW_DEMO_LOGIN
      only then), so a server bound to a public address never shows it;
    - the peer is a loopback address: waitress puts the client's own address in REMOTE_ADDR for a
      request through the trusted TLS proxy (X-Forwarded-For), so a visitor through the documented
      proxy in front of a loopback server is not taken for this machine;
    - the Host the browser asked for is a loopback name, for a proxy that forwards no address but
      keeps the Host (`proxy_set_header Host $host`). A Host header alone is the client's to choose,
      which is why it is never the only test."""
    if not settings.SNAKEPIT_SHOW_DEMO_LOGIN:
        return ""
    domain, _ = split_domain_port(request.get_host())
    if not (is_loopback(request.META.get("REMOTE_ADDR", "")) and is_loopback(domain)):
        return ""
    return f"{DEMO_USERNAME} / {DEMO_PASSWORD}"


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
    """The demo organiser (an ordinary player: its password is published, so it may do no more than
    anyone who signs up), a rival, and the organiser's API token. A demo account an older version made
    staff is made ordinary again."""
    users = get_user_model()
    organiser, created = users.objects.get_or_create(
        username=DEMO_USERNAME, defaults={"email": "demo@snakepit.invalid"}
    )
    if created:
        organiser.set_password(DEMO_PASSWORD)
    organiser.is_staff = organiser.is_superuser = False
    organiser.save()
    organiser.groups.clear()
    organiser.user_permissions.clear()
    rival, created = users.objects.get_or_create(username="rival")
    if created:
        rival.set_unusable_password()
        rival.save()
    token, _ = Token.objects.get_or_create(user=organiser)
    return organiser, rival, token.key


@transaction.atomic
def staff_account_ensure(*, new_password: bool = False) -> tuple[object, str | None]:
    """The staff account `up` makes for its operator (the admin, the operations page), in the
    "operators" group, and its password when one was just set: a random one, on creation or when
    asked for. Only the hash is kept, so a password not shown then is not shown again."""
    users = get_user_model()
    staff, created = users.objects.get_or_create(
        username=STAFF_USERNAME, defaults={"is_staff": True, "email": "admin@snakepit.invalid"}
    )
    password = None
    if created or new_password:
        password = secrets.token_urlsafe(STAFF_PASSWORD_BYTES)
        staff.set_password(password)
        staff.save()
    staff.groups.add(operators_group_ensure())
    return staff, password


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
    ladder_build(rng)


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


def ladder_build(rng: random.Random) -> None:
    ladder = ladder_create(
        game_key=DEMO_GAME,
        name="Demo Rat-Snake bots",
        slug=LADDER_SLUG,
        options=QUICK_OPTIONS[DEMO_GAME],
        seats_per_match=2,
        entry_policy=Ladder.Entry.BOTS,
        round_interval_seconds=LADDER_ROUND_SECONDS,
        # The service's own, as the open bot ladders are: a minute between rounds is shorter than an
        # ordinary player (the demo account) may ask for.
        created_by=None,
    )
    # a bot may enter more than once, each entry rated apart
    for bot in (bot_names(DEMO_GAME) * 6)[:6]:
        ladder_join(ladder=ladder, bot=bot)
    for _ in range(LADDER_ROUNDS):
        result = ladder_round_create(ladder_id=ladder.pk, rng=rng, bots_play="caller")
        for match in result.matches:
            match_advance(match_id=match.pk)
        ladder_ratings_apply(ladder_id=ladder.pk)
