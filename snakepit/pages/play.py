"""Playing in the browser: a seated player's page of a match (their seat's view drawn for the game,
their legal actions as buttons and forms), a new match against bots, and the list of one's matches.

The page shows exactly what the API's `view` answers for the same person: the engine's view for the
seat they hold (a spectator's when they hold none), legal actions only for that seat, and the log with
every payload the seat may not read withheld. An action goes through
`matches.services.match_submit_action`, as the API's does, with the seq the page was drawn at and an
idempotency key made when the page was drawn, so a double click or a resent form writes once.

Each game draws its view with `play/<game key>.html`; a game without one gets `play/generic.html`, the
readable rendering of any view (snakepit.pages.rendering), and so a playable page on day one.
"""

from __future__ import annotations

import re
import secrets
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.contrib.auth.decorators import login_required
from django.db.models import Case, Max, When
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template import TemplateDoesNotExist
from django.template.loader import get_template
from django.urls import reverse
from django.utils.crypto import salted_hmac
from django.views.decorators.http import require_GET, require_http_methods

from api.limits import MAX_IDEMPOTENCY_KEY
from api.throttles import ActionThrottle, CreateThrottle
from core.errors import ApplicationError, Forbidden
from decks.selectors import deck_list_for_owner
from engines.entropy import part_commitment
from engines.registry import DEFAULT_GAME, all_games, bot_names, default_bot, game_keys, get_game
from flows.match_with_decks import match_create_with_decks
from matches import selectors, services
from matches.models import Match
from snakepit.pages.common import deck_field_label, paginate, render_page, throttled, wants_fragment
from snakepit.pages.play_actions import ActionFormError, action_from_form, action_groups
from snakepit.pages.rendering import view_html

RECENT_EVENTS = 12  # the log's tail shown beside the board; the replay page has the whole of it
POLL_MILLISECONDS = 2000


def board_template_name(game_key: str) -> str:
    """The game's own drawing of a view, or the generic one when the game has none yet."""
    name = f"play/{game_key}.html"
    try:
        get_template(name)
    except TemplateDoesNotExist:
        return "play/generic.html"
    return name


def _seats(match: Match) -> list[dict[str, Any]]:
    return [
        {"index": seat.index, "label": seat.label, "is_bot": bool(seat.bot), "user_id": seat.user_id}
        for seat in match.seats.all()
    ]


def _requested_seat(request: HttpRequest) -> int | None:
    raw = request.GET.get("seat") or request.POST.get("seat") or ""
    if not raw:
        return None
    if not raw.isdigit() or len(raw) > 3:
        raise ApplicationError("seat is a seat number", code="request/invalid_query")
    return int(raw)


def _outcome_lines(match: Match, seats: list[dict[str, Any]]) -> list[dict[str, Any]]:
    outcome = match.outcome or {}
    ranks = outcome.get("ranks") or []
    scores = outcome.get("scores") or []
    lines = []
    for seat in seats:
        index = seat["index"]
        lines.append(
            {
                "seat": seat,
                "rank": ranks[index] if index < len(ranks) else None,
                "score": scores[index] if index < len(scores) else None,
            }
        )
    return sorted(lines, key=lambda line: (line["rank"] is None, line["rank"] or 0, line["seat"]["index"]))


def _ordinal(number: int) -> str:
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def _names(labels: list[str]) -> str:
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]


def result_headline(outcome: dict[str, Any], labels: list[str], seat: int | None) -> str:
    """The end of a match in one line, from the viewer's side: "You won", "You finished 2nd of 4",
    "You shared first place with bob", "Drawn"; a spectator reads who won. `labels` are the seats'
    names in seat order, `outcome` the match's (ranks: 1 is best, equal ranks tie)."""
    ranks = list(outcome.get("ranks") or [])
    if len(ranks) != len(labels) or not ranks:
        return "The match is over"
    players = len(ranks)
    best = min(ranks)
    winners = [index for index, rank in enumerate(ranks) if rank == best]
    if len(winners) == players:
        return "Drawn: everyone shares first place" if players > 2 else "Drawn"
    if seat is None or not 0 <= seat < players:
        if len(winners) == 1:
            return f"{labels[winners[0]]} won"
        return f"{_names([labels[index] for index in winners])} shared first place"
    rank = ranks[seat]
    tied = [labels[index] for index, other in enumerate(ranks) if other == rank and index != seat]
    if rank == best:
        return "You won" if not tied else f"You shared first place with {_names(tied)}"
    if players == 2:
        return "You lost"
    place = f"{_ordinal(rank)} of {players}"
    return f"You finished {place}" if not tied else f"You finished {place}, tied with {_names(tied)}"


def _competition_links(match: Match, user) -> dict[str, Any]:
    """Where a finished match leads: its tournament or ladder, and the viewer's next running match
    there (the next game of a series, the next round's table), if any."""
    # A missing reverse one-to-one raises a subclass of AttributeError, so getattr's default holds.
    tournament_match = getattr(match, "tournament_match", None)
    ladder_match = getattr(match, "ladder_match", None)
    following = Match.objects.none()
    if tournament_match is not None:
        following = Match.objects.filter(tournament_match__tournament_id=tournament_match.tournament_id)
    elif ladder_match is not None:
        following = Match.objects.filter(ladder_match__round__ladder_id=ladder_match.round.ladder_id)
    next_match = None
    if user.is_authenticated and (tournament_match or ladder_match):
        next_match = (
            following.filter(status=Match.Status.RUNNING, seats__user=user)
            .exclude(pk=match.pk)
            .order_by("created_at", "pk")
            .first()
        )
    return {"tournament_match": tournament_match, "ladder_match": ladder_match, "next_match": next_match}


def play_context(
    request: HttpRequest, match: Match, *, error: ApplicationError | ActionFormError | None = None
) -> dict:
    """Everything the play page and its live fragment draw, read as the requesting person may see it."""
    seat = selectors.match_viewer_seat(match, request.user, _requested_seat(request))
    snapshot = selectors.match_snapshot(match)
    match.refresh_from_db(fields=["status", "outcome", "finished_at"])
    game = selectors.match_game(match)
    decision = game.decision(snapshot.state)
    view = game.view(snapshot.state, seat)
    seats = _seats(match)
    to_act = seat is not None and match.status == Match.Status.RUNNING and seat in decision.seats
    legal = game.legal_actions(snapshot.state, seat) if to_act else []
    board = board_template_name(match.game)
    entropy = selectors.match_entropy_status(match) if match.status == Match.Status.RUNNING else None
    entropy_step = entropy["phase"] if entropy and seat is not None and seat in entropy["awaited"] else ""
    events = selectors.match_event_listing(
        match, viewer_seat=seat, after=max(snapshot.seq - RECENT_EVENTS, 0)
    )
    return {
        "section": "play",
        "match": match,
        "game": game.spec,
        "seat": seat,
        "held_seats": selectors.match_seat_indices(match, request.user),
        "seats": seats,
        "seq": snapshot.seq,
        "decision": decision,
        "waiting_on": [seats[index] for index in sorted(decision.seats) if index < len(seats)],
        "view": view,
        "view_tree": view_html(view) if board == "play/generic.html" else "",
        "board_template": board,
        "to_act": to_act,
        "entropy": entropy,
        "entropy_step": entropy_step,
        "groups": action_groups(legal),
        "idempotency_key": _idempotency_key(request, match, seat, snapshot.seq) if to_act else "",
        "events": list(reversed(events)),
        "outcome": _outcome_lines(match, seats) if match.is_finished else [],
        **(_competition_links(match, request.user) if match.is_finished else {}),
        "headline": (
            result_headline(match.outcome or {}, [entry["label"] for entry in seats], seat)
            if match.is_finished
            else ""
        ),
        "error": error,
        "poll_ms": POLL_MILLISECONDS,
        "live_url": reverse("pages:play-live", args=[match.pk]) + _seat_query(seat),
        "head_url": reverse("pages:play-head", args=[match.pk]) + _seat_query(seat),
        # The page follows the match's event stream (api/streams.py) from what it was drawn at.
        "stream_url": reverse("match-stream", args=[match.pk])
        + f"?after={snapshot.seq}"
        + (f"&seat={seat}" if seat is not None else ""),
    }


def _seat_query(seat: int | None) -> str:
    return f"?seat={seat}" if seat is not None else ""


def _idempotency_key(request: HttpRequest, match: Match, seat: int, seq: int) -> str:
    """One key per person, seat and position: the page drawn twice at the same seq offers the same key
    (so a refreshed form stays the same form), and a form sent twice writes once."""
    return salted_hmac("snakepit.play", f"{request.user.pk}:{match.pk}:{seat}:{seq}").hexdigest()[:40]


def head_context(request: HttpRequest, match: Match) -> dict:
    """What the page polls for: the log's head and whose move it is, nothing else (no form, so an
    unchanged position answers the same text and the board is left alone)."""
    seat = selectors.match_viewer_seat(match, request.user, _requested_seat(request))
    snapshot = selectors.match_snapshot(match)
    match.refresh_from_db(fields=["status", "outcome", "finished_at"])
    decision = selectors.match_game(match).decision(snapshot.state)
    seats = _seats(match)
    entropy = selectors.match_entropy_status(match) if match.status == Match.Status.RUNNING else None
    entropy_step = entropy["phase"] if entropy and seat is not None and seat in entropy["awaited"] else ""
    return {
        "match": match,
        "seat": seat,
        "seq": snapshot.seq,
        "decision": decision,
        "waiting_on": [seats[index] for index in sorted(decision.seats) if index < len(seats)],
        "to_act": seat is not None and match.status == Match.Status.RUNNING and seat in decision.seats,
        "entropy_step": entropy_step,
    }


def _render(request: HttpRequest, match: Match, *, status: int = 200, error=None) -> HttpResponse:
    return render_page(
        request,
        page="play/match.html",
        fragment="play/_live.html",
        context=play_context(request, match, error=error),
        status=status,
    )


@require_http_methods(["GET", "POST"])
def play_match(request: HttpRequest, match_id: int) -> HttpResponse:
    """The match through the requester's seat; a POST is their action."""
    try:
        match = selectors.match_get(match_id=match_id)
        if request.method == "POST":
            return _act(request, match)
        return _render(request, match)
    except ApplicationError as error:
        return _refused(request, error)


@require_GET
def play_live(request: HttpRequest, match_id: int) -> HttpResponse:
    """The live part of the play page alone, for live.js's polling (and a plain link to it)."""
    try:
        match = selectors.match_get(match_id=match_id)
        return render_page(
            request, page="play/_live.html", fragment="play/_live.html", context=play_context(request, match)
        )
    except ApplicationError as error:
        return _refused(request, error)


@require_GET
def play_head(request: HttpRequest, match_id: int) -> HttpResponse:
    """The log's head and whose move it is: polled by the play page, which redraws the board when it
    changes (static/snakepit/play.js)."""
    try:
        match = selectors.match_get(match_id=match_id)
        return render_page(
            request, page="play/_head.html", fragment="play/_head.html", context=head_context(request, match)
        )
    except ApplicationError as error:
        return _refused(request, error)


def _refused(request: HttpRequest, error: ApplicationError) -> HttpResponse:
    return render_page(
        request,
        page="play/refused.html",
        context={"section": "play", "error": error},
        status=error.status,
    )


def _act(request: HttpRequest, match: Match) -> HttpResponse:
    if not request.user.is_authenticated:
        raise Forbidden("sign in to play", code="auth/not_signed_in")
    refused = throttled(request, ActionThrottle())
    if refused is not None:
        return _render(request, match, status=refused.status, error=refused)
    if request.POST.get("entropy_step"):
        return _entropy(request, match)
    expected = request.POST.get("expected_seq", "")
    key = request.POST.get("idempotency_key", "")
    if not expected.isdigit() or len(expected) > 10 or len(key) > MAX_IDEMPOTENCY_KEY:
        error = ActionFormError("this form is not one this page made; here is the match as it is now")
        return _render(request, match, status=400, error=error)
    try:
        action = action_from_form(request.POST)
    except ActionFormError as error:
        return _render(request, match, status=400, error=error)
    try:
        services.match_submit_action(
            match_id=match.pk,
            user=request.user,
            action=action,
            expected_seq=int(expected),
            seat=_requested_seat(request),
            idempotency_key=key or None,
        )
    except ApplicationError as error:
        return _render(request, match, status=error.status, error=error)
    if wants_fragment(request):
        return _render(request, match)
    return redirect(request.get_full_path(), permanent=False)  # GET after POST: a reload never resends


# --- the seat's part of the chance ----------------------------------------------------------------

HEX64 = re.compile(r"[0-9a-f]{64}")


def _entropy_session_key(match: Match, seat: int) -> str:
    return f"snakepit.entropy:{match.pk}:{seat}"


def _entropy(request: HttpRequest, match: Match) -> HttpResponse:
    """A seat's part of the chance (docs/fairness.md), in one click: the part is made in the browser
    (play.js, from crypto.getRandomValues) or, without script, here; its commitment is sent and the part
    kept in this session until the reveal, which follows at once when every other seat has committed
    (bots commit at the start) and otherwise on the next click. A part made in another browser cannot
    be revealed from this one: that seat lapses at the deadline and the match goes on."""
    seat = selectors.match_viewer_seat(match, request.user, _requested_seat(request))
    if seat is None:
        raise Forbidden("you hold no seat in this match", code="seat/not_yours")
    key = _entropy_session_key(match, seat)
    try:
        status = selectors.match_entropy_status(match)
        if status is None:
            raise ApplicationError(
                "this match draws chance from its seed alone", code="entropy/not_taken", status=422
            )
        if status["phase"] == "commit" and seat in status["awaited"]:
            value = request.POST.get("entropy_value", "").strip().lower()
            if not HEX64.fullmatch(value):
                value = secrets.token_hex(32)
            request.session[key] = value
            services.match_entropy_submit(
                match_id=match.pk, user=request.user, commitment=part_commitment(value), seat=seat
            )
            status = selectors.match_entropy_status(match)
        if status["phase"] == "reveal" and seat in status["awaited"]:
            value = request.session.get(key)
            if value is None:
                raise ApplicationError(
                    "your part was made in another browser, so it cannot be revealed from this one; "
                    "it lapses at the deadline and the match goes on",
                    code="entropy/part_elsewhere",
                    status=409,
                )
            services.match_entropy_submit(match_id=match.pk, user=request.user, value=value, seat=seat)
            request.session.pop(key, None)
    except ApplicationError as error:
        return _render(request, match, status=error.status, error=error)
    if wants_fragment(request):
        return _render(request, match)
    return redirect(request.get_full_path(), permanent=False)


# --- a new match against bots ----------------------------------------------------------------------


class NewMatchForm(forms.Form):
    """You and bots: the game, how many bots, which of the game's bots (its registry default first),
    for a game played with decks your deck, your seat, and the game's options.

    The options are drawn for one game from its `OptionSpec.describe()`, the description GET /api/games/
    answers, so the page and the API say the same thing about them. The form only reads what was sent;
    the engine judges every value (a number out of range is its `options/out_of_range`, as through the
    API), which is why the number fields carry min and max for the browser but no validators here."""

    OPTION_PREFIX = "option_"
    WHOLE_NUMBER = re.compile(r"-?[0-9]{1,18}")

    game = forms.ChoiceField()
    bots = forms.IntegerField(min_value=1, max_value=7, initial=1, label="Bots at the table")
    bot = forms.ChoiceField(label="Bot")
    deck = forms.ChoiceField(required=False)
    seat = forms.ChoiceField(label="Your seat", initial="first", required=False)  # not sent: first

    def __init__(self, *args, user, game_key: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.spec = get_game(game_key).spec
        self.fields["game"].choices = [(game.spec.key, game.spec.name) for game in all_games()]
        self.fields["deck"].label = deck_field_label()
        # The bots are the game's, so they belong to the part of the form drawn for the game.
        self.fields["bot"].choices = [(name, name) for name in bot_names(game_key)]
        self.fields["bot"].initial = default_bot(game_key)
        # live.js swaps the game's part of the form (#new-match-game) for the chosen game's, fetched with
        # the same plain GET ?game=<key> that a reload without script makes.
        self.fields["game"].widget.attrs["data-live-reload"] = "#new-match-game"
        decks = deck_list_for_owner(owner=user)[:100]
        self.fields["deck"].choices = [("", "—")] + [
            (deck.share_id, deck.name or deck.share_id) for deck in decks
        ]
        self.fields["seat"].choices = [("first", "first (seat 0)"), ("random", "random")] + [
            (str(index), f"seat {index}") for index in range(1, self.spec.max_players)
        ]
        self.described = [option.describe() for option in self.spec.options if not option.set_at_creation]
        for described in self.described:
            key = self.OPTION_PREFIX + described["name"]
            self.fields[key] = self._option_field(described)
            self.fields[key].widget.attrs["aria-describedby"] = f"{key}-help"

    @staticmethod
    def _option_field(described: dict[str, Any]) -> forms.Field:
        default = described["default"]
        common = {
            "label": described["name"].replace("_", " "),
            "help_text": described["doc"],
            "initial": default,
            "required": False,
        }
        if isinstance(default, bool):
            return forms.BooleanField(**common)
        if "choices" in described:
            choices = [(str(choice), str(choice)) for choice in described["choices"]]
            return forms.CharField(widget=forms.Select(choices=choices), **common)
        if isinstance(default, int):
            bounds = {key[:3]: described[key] for key in ("minimum", "maximum") if key in described}
            return forms.CharField(widget=forms.NumberInput(attrs=bounds), **common)
        return forms.CharField(**common)

    @property
    def table_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in ("game", "bots", "deck")]

    @property
    def game_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in ("bot", "seat")]

    @property
    def option_rows(self) -> list[dict[str, Any]]:
        rows = []
        for described in self.described:
            default = described["default"]
            shown = ("ticked" if default else "unticked") if isinstance(default, bool) else str(default)
            rows.append(
                {
                    "name": described["name"],
                    "field": self[self.OPTION_PREFIX + described["name"]],
                    "is_box": isinstance(default, bool),
                    "default": shown or "empty",
                }
            )
        return rows

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        game = get_game(data["game"])
        seats = data["bots"] + 1
        if not game.spec.min_players <= seats <= game.spec.max_players:
            self.add_error(
                "bots",
                f"{game.spec.name} seats {game.spec.min_players} to {game.spec.max_players}: "
                f"{game.spec.min_players - 1} to {game.spec.max_players - 1} bots beside you",
            )
        elif data["seat"].isdigit() and int(data["seat"]) >= seats:
            self.add_error("seat", f"a table of {seats} has seats 0 to {seats - 1}")
        if game.spec.needs_deck and not data.get("deck"):
            self.add_error(
                "deck",
                f"{game.spec.name} is played with one of your saved decks (build one on the Decks page)",
            )
        return data

    def your_seat(self) -> int:
        """Your seat index: first, one you named, or one drawn by `secrets` (not the seeded match
        random, which is not drawn until the match exists)."""
        seat = self.cleaned_data["seat"]
        if seat == "random":
            return secrets.randbelow(self.cleaned_data["bots"] + 1)
        return int(seat) if seat.isdigit() else 0

    def chosen_options(self) -> dict[str, Any]:
        """The options that differ from the game's defaults, each as the engine takes it; a value the
        engine will refuse is passed on as sent, for the engine to say why."""
        drawn = self.data.get("options_for") == self.spec.key
        chosen = {}
        for described in self.described:
            name, default = described["name"], described["default"]
            key = self.OPTION_PREFIX + name
            value = self.cleaned_data.get(key)
            if isinstance(default, bool):
                # An unticked box sends nothing: that means "off" only in a form drawn for this game;
                # a post made without the form (a script, a test) leaves what it does not send alone.
                value = value if drawn or key in self.data else default
            elif not value:
                value = default
            elif isinstance(default, int) and self.WHOLE_NUMBER.fullmatch(value):
                value = int(value)
            elif "choices" in described:
                value = {str(choice): choice for choice in described["choices"]}.get(value, value)
            if value != default:
                chosen[name] = value
        return chosen


@login_required
@require_http_methods(["GET", "POST"])
def play_new(request: HttpRequest) -> HttpResponse:
    """The form for one game (`?game=<key>`; live.js fetches the game's part alone when the game
    select changes). A post whose options were drawn for another game (the game changed without
    script) writes nothing and draws the form again for the game chosen; "Show its options", the
    button shown without script, reloads the page for the chosen game."""
    asked = (request.POST if request.method == "POST" else request.GET).get("game", "")
    game_key = asked if asked in game_keys() else DEFAULT_GAME
    if "show_options" in request.POST:
        return redirect(f"{reverse('pages:play-new')}?{urlencode({'game': game_key})}")
    form = NewMatchForm(
        request.POST or None, user=request.user, game_key=game_key, initial={"game": game_key}
    )
    error, notice = None, ""
    drawn_for = request.POST.get("options_for", "")
    if request.method == "POST" and drawn_for and asked == game_key and drawn_for != game_key:
        kept = {name: request.POST[name] for name in ("game", "bots", "bot", "deck") if name in request.POST}
        form = NewMatchForm(user=request.user, game_key=game_key, initial=kept)
        notice = (
            f"You chose {form.spec.name}: its options are below, at their defaults. Check them, then start."
        )
    elif request.method == "POST" and form.is_valid():
        error = throttled(request, CreateThrottle())
        if error is None:
            data = form.cleaned_data
            me: dict[str, Any] = {"user": request.user.get_username()}
            if get_game(data["game"]).spec.needs_deck:
                me["deck"] = data["deck"]
            seats: list[dict[str, Any]] = [{"bot": data["bot"]}] * (data["bots"] + 1)
            seats[form.your_seat()] = me
            try:
                match = match_create_with_decks(
                    game_key=data["game"],
                    options=form.chosen_options(),
                    seats=seats,
                    created_by=request.user,
                )
            except ApplicationError as refused:
                error = refused
            else:
                return redirect("pages:play", match_id=match.pk)
    status = error.status if error else (400 if form.errors else 200)
    return render_page(
        request,
        page="play/new.html",
        fragment="play/_new_game.html" if request.method == "GET" else None,
        context={"section": "play", "form": form, "error": error, "notice": notice},
        status=status,
    )


@login_required
def my_matches(request: HttpRequest) -> HttpResponse:
    """The matches the signed-in person holds a seat in, running ones first, with whose move it is and
    where the dice wait for the person's part of the chance (its commit or its reveal)."""
    matches = (
        Match.objects.filter(seats__user=request.user)
        .distinct()
        .annotate(last_event_at=Max("events__created_at"))
        .prefetch_related("seats__user")
        .order_by(Case(When(status=Match.Status.RUNNING, then=0), default=1), "-created_at", "-id")
    )
    status = request.GET.get("status", "")
    if status in Match.Status.values:
        matches = matches.filter(status=status)
    page_obj = paginate(request, matches)
    rows = []
    for match in page_obj:
        held = [seat.index for seat in match.seats.all() if seat.user_id == request.user.pk]
        your_move = False
        dice, dice_seats = "", []
        if match.status == Match.Status.RUNNING:
            your_move = bool(set(held) & selectors.match_decision(match).seats)
            entropy = selectors.match_entropy_status(match)  # None for a match drawing from its seed alone
            if entropy is not None:
                dice_seats = sorted(set(held) & set(entropy["awaited"]))
                dice = entropy["phase"] if dice_seats else ""
        rows.append(
            {
                "match": match,
                "held": held,
                "your_move": your_move,
                "dice": dice,
                # Holding several seats, the link opens the one the dice wait for.
                "dice_query": _seat_query(dice_seats[0]) if dice_seats and len(held) > 1 else "",
            }
        )
    return render_page(
        request,
        page="play/mine.html",
        context={"section": "play", "page_obj": page_obj, "rows": rows, "status": status},
    )
