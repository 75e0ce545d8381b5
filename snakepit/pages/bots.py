"""Bot authors' pages: "My bots" (each bot's versions, figures and logs, and the upload form) and a
bot's public page (its versions' status, figures, latest matches and ladder entries).

The upload goes through `bots.services.bot_version_upload` and queues the validation on commit, as
the API's `POST /api/bots/` does (api/bots.py). A bot's source is never drawn; its logs are links to
the API's downloads, offered to its owner and staff only (`bots.selectors.bot_source_readable`), and
the deck a version brings is named to them alone, as the API names it. They also enter a passed
version on a ladder from its public page, through the same function as the API's `ladders` action.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.db.models import Prefetch, prefetch_related_objects
from django.db.models.functions import Length
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_http_methods

from api.bots import bot_version_enter_ladder
from api.throttles import CreateThrottle
from bots.archives import ZIP_MAGIC, ArchiveLimits, is_archive
from bots.models import BOT_NAME_PATTERN, Bot, BotSeat, BotVersion
from bots.selectors import bot_get, bot_list, bot_source_readable, bot_stats, bot_version_deck
from bots.services import bot_version_upload
from bots.tasks import bot_version_validate
from core.errors import ApplicationError, NotFound, Rejected
from decks.selectors import deck_list_for_owner
from engines.errors import UnknownGame
from engines.registry import DEFAULT_GAME, all_games, get_game
from matches.models import Match
from ratings.models import Ladder, LadderEntry
from ratings.selectors import entries_ranked, leaderboard_row
from snakepit.pages.common import deck_field_label, render_page, row_id, throttled

VERSIONS_SHOWN = 20  # newest first; the API lists them all
MATCHES_SHOWN = 50  # as many seats as the API's matches/ answers
DECKS_OFFERED = 100  # as the new-match form offers
LADDERS_OFFERED = 100


class BotUploadForm(forms.Form):
    """A bot version: its bot's name, the game, the file and, for a game played with decks, one of the
    uploader's saved decks."""

    name = forms.RegexField(
        regex=BOT_NAME_PATTERN,
        max_length=60,
        label="Name",
        help_text="A new name is a new bot; a name you have used uploads that bot's next version.",
        error_messages={"invalid": "Letters, digits, '_', '.' and '-', starting with a letter or digit."},
    )
    game = forms.ChoiceField(label="Game")
    file = forms.FileField(
        label="The bot's file",
        help_text="One Python file (.py), or a zip archive with main.py at its top.",
        max_length=200,
        widget=forms.FileInput(attrs={"accept": ".py,.zip"}),
    )
    deck = forms.ChoiceField(
        required=False,
        help_text="One of your saved decks (the Decks page saves one); every seat of the version brings it.",
    )

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = [(game.spec.key, game.spec.name) for game in all_games()]
        self.fields["deck"].label = deck_field_label()
        decks = deck_list_for_owner(owner=user)[:DECKS_OFFERED]
        self.fields["deck"].choices = [("", "—")] + [
            (deck.share_id, deck.name or deck.share_id) for deck in decks
        ]


class LadderEntryForm(forms.Form):
    """A passed version onto a ladder, as the API's `ladders` action takes it. The ladder is only a
    slug here: whether it takes this bot is the service's to say, with its own codes."""

    version = forms.IntegerField(min_value=1, max_value=10**9, widget=forms.HiddenInput)
    ladder = forms.SlugField(max_length=50, allow_unicode=True, label="Ladder")
    replace = forms.BooleanField(required=False, label="Replace my other versions on it")


def _file_payload(upload) -> dict[str, Any]:
    """The upload as the service takes it, sorted by content as the API sorts it: a zip archive's bytes
    as `archive` (bots.archives judges them), else a .py file's text as `source`. Bounded by its kind's
    limit before it is read, with the service's own code."""
    head = upload.read(len(ZIP_MAGIC))
    upload.seek(0)
    if is_archive(head):
        kind, max_bytes = "archive", ArchiveLimits.from_settings().archive_bytes
    else:
        kind, max_bytes = "file", getattr(settings, "SNAKEPIT_BOTS_MAX_SOURCE_BYTES", 64 * 1024)
    if upload.size > max_bytes:
        raise Rejected(f"a bot {kind} is at most {max_bytes} bytes", code="bot/too_large")
    content = upload.read()
    if kind == "archive":
        return {"archive": content}
    try:
        return {"source": content.decode("utf-8")}
    except UnicodeDecodeError:
        raise Rejected(
            "the file is not UTF-8 text (nor a zip archive): a bot file is Python source",
            code="bot/not_python",
        ) from None


def _upload(*, owner, data: dict[str, Any]) -> BotVersion:
    game_key = data["game"]
    version = bot_version_upload(
        owner=owner,
        name=data["name"],
        game_key=game_key,
        # The deck field is on the form for every game; only a game played with decks takes it.
        deck=data["deck"] if get_game(game_key).spec.needs_deck else "",
        **_file_payload(data["file"]),
    )
    transaction.on_commit(lambda: bot_version_validate.delay(version.pk))
    return version


def _versions_prefetch() -> Prefetch:
    """A bot's versions without what the pages never draw (an archive is up to a MiB each), knowing
    only whether each was uploaded as an archive."""
    versions = (
        BotVersion.objects.select_related("deck_version__deck")
        .defer("source", "archive", "log")
        .annotate(archive_bytes=Length("archive"))
        .order_by("-number")
    )
    return Prefetch("versions", queryset=versions)


def _version_rows(bot: Bot, *, private: bool) -> list[dict[str, Any]]:
    return [
        {"version": version, "deck": bot_version_deck(version=version) if private else None}
        for version in list(bot.versions.all())[:VERSIONS_SHOWN]
    ]


@login_required
@require_http_methods(["GET", "POST"])
def my_bots(request: HttpRequest) -> HttpResponse:
    """The signed-in person's bots with their versions and figures, and the upload form. A POST uploads
    a version and comes back here (nothing written when refused: the refusal is shown)."""
    form = BotUploadForm(
        request.POST or None,
        request.FILES or None,
        user=request.user,
        initial={"game": request.GET.get("game", DEFAULT_GAME)},
    )
    error = None
    if request.method == "POST" and form.is_valid():
        error = throttled(request, CreateThrottle())
        if error is None:
            try:
                version = _upload(owner=request.user, data=form.cleaned_data)
            except ApplicationError as refused:
                error = refused
            else:
                messages.success(
                    request,
                    f"Version {version.number} of {version.bot.name} uploaded: "
                    f"its validation match is queued.",
                )
                return redirect("pages:my-bots")
    # bot_list prefetches the versions plainly; these rows also name each version's deck.
    bots = bot_list(owner=request.user).prefetch_related(None).prefetch_related(_versions_prefetch())
    rows = [
        {
            "bot": bot,
            "game": _game(bot.game),
            "versions": _version_rows(bot, private=True),
            "version_count": len(bot.versions.all()),
            "stats": bot_stats(bot=bot),
        }
        for bot in bots
    ]
    status = error.status if error else (400 if form.errors else 200)
    return render_page(
        request,
        page="pages/bot_list.html",
        context={
            "section": "bots",
            "form": form,
            "error": error,
            "rows": rows,
            "versions_shown": VERSIONS_SHOWN,
        },
        status=status,
    )


@require_http_methods(["GET", "POST"])
def bot_detail(request: HttpRequest, bot_id: int) -> HttpResponse:
    """A bot as anyone may see it; its owner and staff also get its logs and its versions' decks, and
    a form per passed version to enter it on a ladder. A POST enters one and comes back here; a
    refusal is shown with its code and nothing is written."""
    try:
        bot = bot_get(bot_id=row_id(bot_id))
    except NotFound:
        raise Http404(f"no bot {bot_id}") from None
    error = None
    if request.method == "POST":
        error = _enter_ladder(request, bot)
        if error is None:
            return redirect("pages:bot-detail", bot_id=bot.pk)
    private = bot_source_readable(bot=bot, user=request.user)
    prefetch_related_objects([bot], _versions_prefetch())
    versions = _version_rows(bot, private=private)
    context = {
        "section": "bots",
        "bot": bot,
        "game": _game(bot.game),
        "private": private,
        "error": error,
        "ladders": _ladders_open_to(bot) if private else [],
        "enterable": [
            row["version"] for row in versions if row["version"].status == BotVersion.Status.PASSED
        ],
        "versions": versions,
        "version_count": len(bot.versions.all()),
        "versions_shown": VERSIONS_SHOWN,
        "stats": bot_stats(bot=bot),
        "matches": _match_rows(bot),
        "entries": _ladder_entries(bot),
    }
    return render_page(
        request, page="pages/bot_detail.html", context=context, status=error.status if error else 200
    )


def _enter_ladder(request: HttpRequest, bot: Bot) -> ApplicationError | None:
    """The entry form's POST: None once the version entered (with a message saying so), else the
    refusal to show. Whether the person may enter this bot is the service's check, as on the API."""
    form = LadderEntryForm(request.POST)
    if not form.is_valid():
        fields = ", ".join(sorted(form.errors))
        return ApplicationError(
            f"the entry form is incomplete or malformed ({fields})", code="request/invalid"
        )
    error = throttled(request, CreateThrottle())
    if error is not None:
        return error
    data = form.cleaned_data
    try:
        entry = bot_version_enter_ladder(
            bot=bot,
            number=data["version"],
            user=request.user,
            ladder_slug=data["ladder"],
            replace=data["replace"],
        )
    except ApplicationError as refused:
        return refused
    messages.success(request, f"{entry.label} entered {entry.ladder.name}")
    return None


def _ladders_open_to(bot: Bot) -> list[Ladder]:
    """The ladders of the bot's game that take bots and are not archived: what the service accepts,
    offered so that the form's choice is one it will take."""
    return list(
        Ladder.objects.filter(game=bot.game, archived_at__isnull=True)
        .exclude(entry_policy=Ladder.Entry.USERS)
        .order_by("name")[:LADDERS_OFFERED]
    )


def _game(key: str) -> dict[str, Any]:
    try:
        spec = get_game(key).spec
    except UnknownGame:  # a game no longer registered still has its bots' pages
        return {"key": key, "name": key, "needs_deck": False}
    return {"key": key, "name": spec.name, "needs_deck": spec.needs_deck}


def _match_rows(bot: Bot) -> list[dict[str, Any]]:
    """The bot's latest seats, newest match first (as the API's matches/ lists them), each with the
    other seats' holders and how the seat ended."""
    seats = list(
        BotSeat.objects.filter(version__bot=bot)
        .select_related("version", "match")
        .prefetch_related("match__seats__user")
        .order_by("-match_id", "seat")[:MATCHES_SHOWN]
    )
    accounts = {seat.user_id for row in seats for seat in row.match.seats.all() if seat.user_id is not None}
    bots_by_account = {other.account_id: other for other in Bot.objects.filter(account_id__in=accounts)}
    rows = []
    for row in seats:
        opponents = []
        for seat in row.match.seats.all():
            if seat.index == row.seat:
                continue
            other = bots_by_account.get(seat.user_id)
            if other is not None and other.pk == bot.pk:
                opponents.append({"label": "itself", "bot": None})  # a validation match, or a self-pairing
            elif other is not None:
                opponents.append({"label": other.name, "bot": other})
            else:
                opponents.append({"label": seat.label, "bot": None})
        rows.append(
            {"seat": row, "match": row.match, "opponents": opponents, "result": _result(row.match, row.seat)}
        )
    return rows


def _result(match: Match, seat: int) -> str:
    """How the seat ended, in words: won, lost, a draw, or its place among more than two."""
    if not match.is_finished:
        return str(match.status)
    ranks = (match.outcome or {}).get("ranks") or []
    if seat >= len(ranks):
        return "finished"
    rank = ranks[seat]
    if all(other == rank for other in ranks):
        return "draw"
    if len(ranks) == 2:
        return "won" if rank == min(ranks) else "lost"
    shared = " (shared)" if ranks.count(rank) > 1 else ""
    return f"place {rank} of {len(ranks)}{shared}"


def _ladder_entries(bot: Bot) -> list[dict[str, Any]]:
    """Each ladder entry of the bot's versions, with its rating as the leaderboard shows it and its
    place there (none once it left, or while the ladder counts it inactive)."""
    numbers = dict(bot.versions.values_list("pk", "number"))
    entries = LadderEntry.objects.filter(bot_version_id__in=list(numbers)).select_related("ladder", "user")
    rows = []
    for entry in entries.order_by("ladder__name", "bot_version_id"):
        ranked = list(entries_ranked(ladder=entry.ladder).values_list("pk", flat=True))
        position = ranked.index(entry.pk) + 1 if entry.pk in ranked else None
        rows.append(
            {
                "ladder": entry.ladder,
                "version": numbers[entry.bot_version_id],
                "row": leaderboard_row(entry=entry, ladder=entry.ladder, position=position),
            }
        )
    return rows
