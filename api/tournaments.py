"""Tournaments: thin views over tournaments.services; the pure lifecycle answers what the
log means (bracket, summary) from the current state, never from a replay; standings and tables are
read from their projections."""

from __future__ import annotations

import csv
import io
from datetime import datetime

import django_filters
from django.http import HttpResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    extend_schema_serializer,
)
from rest_framework import permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from api import read_caches
from api.games import GameKeyField
from api.limits import MAX_ENTRIES, MAX_SEATS, query_int
from api.negotiation import FormatFilterNegotiation
from api.schema import errors
from api.throttles import CreateThrottle, throttled_on
from core.errors import NotFound
from decks.selectors import deck_version_judged_now
from flows.tournament_start import tournament_start_with_ratings
from tournaments import exports, selectors, services, webhooks
from tournaments.formats import lifecycle
from tournaments.formats.common import FormatError
from tournaments.formats.tiebreaks import TIEBREAK_NAMES, TIEBREAK_TABLE
from tournaments.models import Tournament, TournamentEntry, TournamentTable, TournamentWebhook


class TournamentSerializer(serializers.ModelSerializer):
    # Names in any script keep their letters (a JSON Schema pattern's \w would be ASCII only).
    slug = serializers.CharField(read_only=True, help_text="Letters of any script, digits, - and _.")
    organiser = serializers.SlugRelatedField(slug_field="username", read_only=True)
    summary = serializers.SerializerMethodField()
    tiebreaks = serializers.SerializerMethodField(
        help_text="The tie-breaks in order, each with the name FIDE gives it and its source."
    )

    class Meta:
        model = Tournament
        fields = [
            "slug",
            "name",
            "game",
            "options",
            "format",
            "config",
            "seats_per_match",
            "result_mode",
            "rounds_start",
            "seeding",
            "registration_cap",
            "check_in_required",
            "check_in_opens_at",
            "check_in_closes_at",
            "seed_commitment",
            "status",
            "organiser",
            "summary",
            "tiebreaks",
            "created_at",
            "started_at",
            "finished_at",
        ]

    def get_summary(self, tournament: Tournament) -> dict:
        seq = getattr(tournament, "head_seq", None)  # selectors.tournaments_listed
        return lifecycle.summary(selectors.tournament_head(tournament, seq=seq).state)

    def get_tiebreaks(self, tournament: Tournament) -> list[dict]:
        codes = tournament.config.get("tiebreaks") or []
        return [
            {
                "code": code,
                "name": TIEBREAK_NAMES.get(code, code),
                "source": TIEBREAK_TABLE.get(code, ("", False))[0],
            }
            for code in codes
        ]


class TournamentCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=120)
    slug = serializers.SlugField(required=False, max_length=50, allow_unicode=True)
    game = GameKeyField()
    format = serializers.ChoiceField(choices=list(lifecycle.FORMATS))
    options = serializers.DictField(required=False, default=dict, help_text="The game's rule options.")
    config = serializers.DictField(
        required=False, default=dict, help_text="Format options: /api/tournament-formats/."
    )
    seats_per_match = serializers.IntegerField(required=False, min_value=2, max_value=MAX_SEATS)
    result_mode = serializers.ChoiceField(
        choices=Tournament.ResultMode.choices, default=Tournament.ResultMode.SNAKEPIT
    )
    seeding = serializers.ChoiceField(choices=Tournament.Seeding.choices, default=Tournament.Seeding.RANDOM)
    registration_cap = serializers.IntegerField(
        required=False, allow_null=True, min_value=2, max_value=MAX_ENTRIES
    )
    check_in_required = serializers.BooleanField(default=False)
    rounds_start = serializers.ChoiceField(
        choices=Tournament.RoundsStart.choices,
        default=Tournament.RoundsStart.AT_ONCE,
        help_text='Snakepit play: "on_organiser" holds each paired round until the organiser starts it, '
        "so it can be re-paired.",
    )


class TournamentConfigureSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=120, required=False)
    options = serializers.DictField(required=False)
    config = serializers.DictField(required=False)
    seats_per_match = serializers.IntegerField(required=False, min_value=2, max_value=MAX_SEATS)
    result_mode = serializers.ChoiceField(choices=Tournament.ResultMode.choices, required=False)
    seeding = serializers.ChoiceField(choices=Tournament.Seeding.choices, required=False)
    registration_cap = serializers.IntegerField(
        required=False, allow_null=True, min_value=2, max_value=MAX_ENTRIES
    )
    check_in_required = serializers.BooleanField(required=False)
    check_in_opens_at = serializers.DateTimeField(required=False, allow_null=True)
    check_in_closes_at = serializers.DateTimeField(required=False, allow_null=True)
    rounds_start = serializers.ChoiceField(choices=Tournament.RoundsStart.choices, required=False)


class RegisterSerializer(serializers.Serializer):
    username = serializers.CharField(
        required=False, max_length=150, help_text="Organisers: register this person."
    )
    bot = serializers.CharField(
        required=False, max_length=40, help_text="Organisers: register one of the game's bots."
    )
    deck = serializers.CharField(
        required=False, max_length=40, help_text="Rag'n'Guns: your legal saved deck's share id."
    )
    seed = serializers.IntegerField(
        required=False, min_value=1, max_value=MAX_ENTRIES, help_text="Organisers: a manual seed."
    )


class PlayerSerializer(serializers.Serializer):
    """A body that may name the player the caller acts for: by player id or, as `register` takes it,
    by username. Either way only an organiser may name someone else (a 403 otherwise): a name the
    endpoint ignored once let bob's drop naming alice drop bob."""

    player = serializers.CharField(required=False, help_text="Organisers: act for this player id.")
    username = serializers.CharField(
        required=False, max_length=150, help_text="Organisers: act for this person (their username)."
    )


class DeckChangeSerializer(PlayerSerializer):
    deck = serializers.CharField(
        max_length=40, help_text="The share id of a saved deck legal in the tournament's format now."
    )


class ReportSerializer(PlayerSerializer):
    ranks = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_SEATS),
        max_length=MAX_SEATS,
        help_text="Per player in table order; 1 is best.",
    )
    games = serializers.ListField(
        child=serializers.ListField(
            child=serializers.IntegerField(min_value=1, max_value=MAX_SEATS), max_length=MAX_SEATS
        ),
        max_length=99,
        required=False,
        allow_null=True,
    )


class DisputeSerializer(PlayerSerializer):
    reason = serializers.CharField(max_length=500)


class CorrectSerializer(serializers.Serializer):
    ranks = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_SEATS), max_length=MAX_SEATS
    )
    games = serializers.ListField(
        child=serializers.ListField(
            child=serializers.IntegerField(min_value=1, max_value=MAX_SEATS), max_length=MAX_SEATS
        ),
        max_length=99,
        required=False,
        allow_null=True,
    )
    reason = serializers.CharField(max_length=500)
    forfeit = serializers.BooleanField(
        default=False, help_text="The result is a forfeit (FIDE tie-breaks count it as unplayed)."
    )


class RoundTimeSerializer(serializers.Serializer):
    ends_at = serializers.DateTimeField(
        required=False, allow_null=True, help_text="When the round's time is up."
    )
    starts_at = serializers.DateTimeField(
        required=False,
        allow_null=True,
        help_text='A held round (rounds_start "on_organiser") starts by itself at this time '
        "unless the organiser starts it first.",
    )


class ReasonSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=500)


class SeedsSerializer(serializers.Serializer):
    order = serializers.ListField(
        child=serializers.CharField(max_length=150),
        max_length=MAX_ENTRIES,
        help_text="Usernames (or player ids), seed 1 first.",
    )


class ForbiddenPairsSerializer(serializers.Serializer):
    pairs = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField(max_length=150), min_length=2, max_length=2),
        max_length=1000,
        help_text="Pairs of usernames who never meet.",
    )


class RepairSerializer(serializers.Serializer):
    tables = serializers.ListField(
        child=serializers.ListField(
            child=serializers.CharField(max_length=150), min_length=2, max_length=MAX_SEATS
        ),
        max_length=MAX_ENTRIES,
        help_text="Players of each table (usernames or player ids), in the round's table order.",
    )
    byes = serializers.ListField(
        child=serializers.CharField(max_length=150), max_length=MAX_ENTRIES, required=False, default=list
    )
    reason = serializers.CharField(max_length=500)


class CloseRoundSerializer(serializers.Serializer):
    rule = serializers.ChoiceField(choices=["draw", "both_lose"])


class WebhookSerializer(serializers.ModelSerializer):
    events = serializers.ListField(
        child=serializers.ChoiceField(choices=webhooks.EVENTS),
        max_length=len(webhooks.EVENTS),
        required=False,
        default=list,
    )
    url = serializers.URLField(max_length=500)
    deliveries = serializers.SerializerMethodField()

    class Meta:
        model = TournamentWebhook
        fields = ["id", "url", "events", "created_at", "deliveries"]
        read_only_fields = ["id", "created_at", "deliveries"]

    def get_deliveries(self, webhook: TournamentWebhook) -> list[dict]:
        return [
            {
                "id": d.pk,
                "event": d.event,
                "status": d.status,
                "attempts": d.attempts,
                "response_status": d.response_status,
                "last_error": d.last_error,
                "created_at": d.created_at,
                "delivered_at": d.delivered_at,
            }
            for d in webhook.deliveries.order_by("-pk")[:50]
        ]


class EntryDeckSerializer(serializers.Serializer):
    share_id = serializers.CharField()
    version = serializers.IntegerField()
    legal = serializers.BooleanField(
        required=False,
        help_text="Before the start: legal in the tournament's format under the ban list in effect.",
    )
    violations = serializers.ListField(
        child=serializers.DictField(),
        required=False,
        help_text="Before the start: what to change, if not legal.",
    )


class TournamentEntrySerializer(serializers.ModelSerializer):
    user = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True, help_text="null: a bot."
    )
    deck = serializers.SerializerMethodField()

    class Meta:
        model = TournamentEntry
        fields = ["player", "user", "bot", "seed", "status", "deck"]

    @extend_schema_field(EntryDeckSerializer(allow_null=True))
    def get_deck(self, entry: TournamentEntry) -> dict | None:
        if entry.deck_version_id is None:
            return None
        version = entry.deck_version
        deck = {"share_id": version.deck.share_id, "version": version.number}
        if (
            entry.tournament.status == Tournament.Status.REGISTRATION
        ):  # still to play: judged under today's list
            judged = deck_version_judged_now(version, format_key=entry.tournament.options.get("format"))
            deck.update(legal=judged.legal, violations=judged.violations)
        return deck


class TableSerializer(serializers.ModelSerializer):
    matches = serializers.SerializerMethodField()

    class Meta:
        model = TournamentTable
        fields = ["match_key", "round", "stage", "players", "best_of", "status", "result", "matches"]

    def get_matches(self, table: TournamentTable) -> list[int]:
        by_key = self.context.get("matches")  # {match_key: [match ids]}, read once for a listing
        if by_key is not None:
            return by_key.get(table.match_key, [])
        return list(
            table.tournament.matches.filter(match_key=table.match_key)
            .order_by("game_number")
            .values_list("match_id", flat=True)
        )


class TournamentFilter(django_filters.FilterSet):
    game = django_filters.CharFilter()
    tournament_format = django_filters.CharFilter(
        field_name="format", label="swiss, pods, ... (/api/tournament-formats/)"
    )
    format = django_filters.CharFilter(label="Deprecated spelling of tournament_format")
    status = django_filters.ChoiceFilter(choices=Tournament.Status.choices)
    organiser = django_filters.CharFilter(field_name="organiser__username")
    player = django_filters.CharFilter(
        field_name="entries__user__username", label="Username of a registered player"
    )

    class Meta:
        model = Tournament
        fields = ["game", "tournament_format", "format", "status", "organiser", "player"]


class RecordedEventSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    kind = serializers.CharField()
    payload = serializers.JSONField()


class TournamentEventSerializer(RecordedEventSerializer):
    created_at = serializers.DateTimeField()
    actor = serializers.CharField(allow_null=True)


ANY_OBJECTS = {"type": "array", "items": {"type": "object", "additionalProperties": {}}}
STANDING_ROWS = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {"rank": {"type": "integer"}, "player": {"type": "string"}, "name": {"type": "string"}},
        "required": ["rank", "player", "name"],
        "additionalProperties": {},
    },
}


class TournamentFormatSpecSerializer(serializers.Serializer):
    seats_per_match = serializers.DictField(help_text="default, allowed, and a doc where it means more.")
    options = serializers.DictField(child=serializers.DictField(), help_text="Name -> its default and doc.")


@extend_schema_serializer(many=False)  # one object keyed by format, not a list
class TournamentFormatsSerializer(serializers.Serializer):
    def get_fields(self):
        return {key: TournamentFormatSpecSerializer() for key in lifecycle.FORMATS}


class TournamentFormatViewSet(viewsets.ViewSet):
    """Every tournament format with its options, defaults and docs."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(responses=TournamentFormatsSerializer)
    def list(self, request):
        return Response(lifecycle.spec_describe())


def tournament_table_rows(
    tournament: Tournament, *, round_number: int | None = None, status: str | None = None
) -> list[dict]:
    """The JSON of `/tables/`: every table (of one round, or of one status) with its players,
    status, result and Snakepit matches, and whether it is open past its round's end time."""
    tables = tournament.tables.all()
    if round_number is not None:
        tables = tables.filter(round=round_number)
    if status:
        tables = tables.filter(status=status)
    matches: dict[str, list[int]] = {}
    for key, match_id in tournament.matches.order_by("match_key", "game_number").values_list(
        "match_key", "match_id"
    ):
        matches.setdefault(key, []).append(match_id)
    tables = sorted(tables, key=lambda t: (t.round, exports.natural_key(t.match_key)))
    rows = TableSerializer(tables, many=True, context={"matches": matches}).data
    # A table still open past its round's end time is flagged for the organiser.
    ends = {
        number: ends_at
        for number, ends_at in tournament.events.filter(kind="round_paired").values_list(
            "payload__round", "payload__ends_at"
        )
        if ends_at
    }
    now = timezone.now()
    for row in rows:
        ends_at = ends.get(row["round"])
        row["ends_at"] = ends_at
        row["overdue"] = bool(
            ends_at and row["status"] != "decided" and now >= datetime.fromisoformat(ends_at)
        )
    return rows


def tournament_standing_rows(tournament: Tournament) -> list[dict]:
    """The JSON of `/standings/`: every tiebreak column, each row explaining its numbers."""
    # The rank column is the rank (the JSON holds the rest of the row).
    rows = [
        {"rank": row.rank, **{key: value for key, value in row.row.items() if key != "rank"}}
        for row in tournament.standings.order_by("rank", "player")
    ]
    names = {entry.player: entry.label for entry in tournament.entries.select_related("user")}
    for row in rows:
        row["name"] = names.get(row["player"], row["player"])
    return rows


class TournamentViewSet(viewsets.GenericViewSet):
    """Tournaments of any registered game: leagues, brackets, Swiss, pods, groups with playoffs."""

    get_throttles = throttled_on(create=CreateThrottle)
    content_negotiation_class = FormatFilterNegotiation

    lookup_field = "slug"
    queryset = Tournament.objects.all()
    filterset_class = TournamentFilter
    serializer_class = TournamentSerializer

    def get_serializer_class(self):
        return {
            "create": TournamentCreateSerializer,
            "partial_update": TournamentConfigureSerializer,
            "register": RegisterSerializer,
            "report": ReportSerializer,
            "confirm": PlayerSerializer,
            "dispute": DisputeSerializer,
            "correct": CorrectSerializer,
            "check_in": PlayerSerializer,
            "deck": DeckChangeSerializer,
            "drop": PlayerSerializer,
            "cancel": ReasonSerializer,
            "seeds": SeedsSerializer,
            "forbidden_pairs": ForbiddenPairsSerializer,
            "repair": RepairSerializer,
            "close_round": CloseRoundSerializer,
            "webhooks": WebhookSerializer,
            "start": RoundTimeSerializer,
            "next_round": RoundTimeSerializer,
        }.get(self.action, TournamentSerializer)

    def _body(self, serializer_class):
        body = serializer_class(data=self.request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        if issubclass(serializer_class, PlayerSerializer) and "username" in data:
            data["player"] = self._player_named(data.pop("username"), data.get("player"))
        return data

    def _player_named(self, username: str, player: str | None) -> str:
        """The player id of the entry `username` holds here; the service then judges whether the
        caller may act for it."""
        tournament = self._tournament(self.kwargs["slug"])
        entry = tournament.entries.filter(user__username=username).first()
        if entry is None:
            raise NotFound(f"{username!r} is not registered in this tournament", code="player/not_found")
        if player is not None and player != entry.player:
            raise serializers.ValidationError({"username": f"{username!r} is not player {player!r}"})
        return entry.player

    def _tournament(self, slug) -> Tournament:
        return selectors.tournament_get(slug=slug)

    def list(self, request):
        page = self.paginate_queryset(self.filter_queryset(selectors.tournaments_listed()).distinct())
        return self.get_paginated_response(TournamentSerializer(page, many=True).data)

    def retrieve(self, request, slug=None):
        return Response(TournamentSerializer(self._tournament(slug)).data)

    @extend_schema(request=TournamentCreateSerializer, responses={201: TournamentSerializer})
    def create(self, request):
        data = dict(self._body(TournamentCreateSerializer))
        tournament = services.tournament_create(organiser=request.user, game_key=data.pop("game"), **data)
        return Response(TournamentSerializer(tournament).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=TournamentConfigureSerializer, responses=TournamentSerializer)
    def partial_update(self, request, slug=None):
        """Configure a draft (or, once registration is open, only its cap and check-in)."""
        changes = self._body(TournamentConfigureSerializer)
        return Response(
            TournamentSerializer(services.tournament_configure(slug=slug, user=request.user, **changes)).data
        )

    @extend_schema(request=None, responses=TournamentSerializer)
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def open(self, request, slug=None):
        """Open registration (draft -> registration)."""
        return Response(TournamentSerializer(services.tournament_open(slug=slug, user=request.user)).data)

    def destroy(self, request, slug=None):
        """Delete a draft that never opened (409 `tournament/not_deletable` otherwise: cancel it)."""
        services.tournament_delete(slug=slug, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(request=ReasonSerializer, responses=TournamentSerializer)
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def cancel(self, request, slug=None):
        """Cancel at any point before the end; the log stays."""
        reason = self._body(ReasonSerializer)["reason"]
        return Response(
            TournamentSerializer(services.tournament_cancel(slug=slug, user=request.user, reason=reason)).data
        )

    @extend_schema(request=RoundTimeSerializer, responses=TournamentSerializer)
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def start(self, request, slug=None):
        """Seed the players and pair the first round (registration -> running); `ends_at` times it."""
        times = self._body(RoundTimeSerializer)
        tournament = tournament_start_with_ratings(
            slug=slug, user=request.user, ends_at=times.get("ends_at"), starts_at=times.get("starts_at")
        )
        return Response(TournamentSerializer(tournament).data)

    @extend_schema(request=RoundTimeSerializer, responses=TournamentSerializer)
    @action(
        detail=True, methods=["post"], url_path="next-round", permission_classes=[permissions.IsAuthenticated]
    )
    def next_round(self, request, slug=None):
        """Pair the next round once every table of this one is decided; finishes the tournament when
        nothing is left. 409 `round/not_complete` otherwise. `ends_at` times the round."""
        times = self._body(RoundTimeSerializer)
        tournament = services.tournament_next_round(
            slug=slug, user=request.user, ends_at=times.get("ends_at"), starts_at=times.get("starts_at")
        )
        return Response(TournamentSerializer(tournament).data)

    @extend_schema(request=SeedsSerializer, responses=TournamentEntrySerializer(many=True))
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def seeds(self, request, slug=None):
        """Manual seeding: the organiser orders the players, rated or not (seeding "manual")."""
        entries = services.tournament_seeds_set(
            slug=slug, user=request.user, order=self._body(SeedsSerializer)["order"]
        )
        return Response(TournamentEntrySerializer(entries, many=True).data)

    @extend_schema(request=ForbiddenPairsSerializer, responses=ForbiddenPairsSerializer)
    @action(
        detail=True,
        methods=["get", "put"],
        url_path="forbidden-pairs",
        permission_classes=[permissions.IsAuthenticatedOrReadOnly],
    )
    def forbidden_pairs(self, request, slug=None):
        """Pairs who never meet (Swiss), by username; a PUT replaces them for every round paired after it."""
        tournament = self._tournament(slug)
        if request.method == "PUT":
            services.tournament_forbidden_pairs_set(
                slug=slug, user=request.user, pairs=self._body(ForbiddenPairsSerializer)["pairs"]
            )
        state = selectors.tournament_head(tournament).state
        names = exports.player_names(tournament)
        return Response({"pairs": [[names.get(p, p) for p in pair] for pair in state.forbidden]})

    @extend_schema(request=RepairSerializer, responses={201: RecordedEventSerializer})
    @action(
        detail=True,
        methods=["post"],
        url_path=r"rounds/(?P<round_number>[0-9]{1,6})/repair",
        permission_classes=[permissions.IsAuthenticated],
    )
    def repair(self, request, slug=None, round_number=None):
        """Re-pair or swap players of the latest round before it starts, with a reason (Swiss and pods;
        on Snakepit only while a round of an "on_organiser" tournament waits for its start)."""
        data = self._body(RepairSerializer)
        event = services.tournament_round_repair(
            slug=slug,
            user=request.user,
            round_number=int(round_number),
            tables=data["tables"],
            byes=data["byes"],
            reason=data["reason"],
        )
        return Response(
            {"seq": event.seq, "kind": event.kind, "payload": event.payload}, status=status.HTTP_201_CREATED
        )

    @extend_schema(request=None, responses=OpenApiTypes.OBJECT)
    @action(
        detail=True,
        methods=["post"],
        url_path=r"rounds/(?P<round_number>[0-9]{1,6})/start",
        permission_classes=[permissions.IsAuthenticated],
    )
    def start_round(self, request, slug=None, round_number=None):
        """Start a paired round's Snakepit matches (tournaments whose `rounds_start` is "on_organiser")."""
        started = services.tournament_round_start(
            slug=slug, user=request.user, round_number=int(round_number)
        )
        return Response({"started": started})

    @extend_schema(request=CloseRoundSerializer, responses=OpenApiTypes.OBJECT)
    @action(
        detail=True,
        methods=["post"],
        url_path=r"rounds/(?P<round_number>[0-9]{1,6})/close",
        permission_classes=[permissions.IsAuthenticated],
    )
    def close_round(self, request, slug=None, round_number=None):
        """Past the round's end time, close its open tables by rule: "draw" or "both_lose"."""
        closed = services.tournament_round_close(
            slug=slug,
            user=request.user,
            round_number=int(round_number),
            rule=self._body(CloseRoundSerializer)["rule"],
        )
        return Response({"closed": closed})

    @extend_schema(
        request=WebhookSerializer,
        responses={200: WebhookSerializer(many=True), 201: WebhookSerializer},
        extensions=errors(403),
    )
    @action(
        detail=True,
        methods=["get", "post"],
        pagination_class=None,
        permission_classes=[permissions.IsAuthenticated],
    )
    def webhooks(self, request, slug=None):
        """The organiser's webhooks with their latest deliveries; POST registers one and shows its
        signing secret, once."""
        tournament = self._tournament(slug)
        if not (request.user.is_staff or tournament.organiser_id == request.user.pk):
            return Response(
                {
                    "code": "tournament/not_organiser",
                    "detail": "only the organiser (or staff) sees the webhooks",
                },
                status=403,
            )
        if request.method == "POST":
            data = self._body(WebhookSerializer)
            webhook = webhooks.tournament_webhook_add(
                slug=slug, user=request.user, url=data["url"], events=data["events"]
            )
            return Response(
                {**WebhookSerializer(webhook).data, "secret": webhook.secret}, status=status.HTTP_201_CREATED
            )
        return Response(WebhookSerializer(tournament.webhooks.all(), many=True).data)

    @extend_schema(request=OpenApiTypes.OBJECT, responses={201: TournamentSerializer})
    @action(
        detail=False, methods=["post"], url_path="import", permission_classes=[permissions.IsAuthenticated]
    )
    def import_log(self, request):
        """Import another instance's JSON export; its log replays here to the same standings."""
        tournament = services.tournament_import(user=request.user, data=request.data)
        return Response(TournamentSerializer(tournament).data, status=status.HTTP_201_CREATED)

    @extend_schema(responses={(200, "text/csv"): str})
    @action(detail=True, methods=["get"], url_path="tables/csv")
    def tables_csv(self, request, slug=None):
        """Every pairing as CSV: round, table, seats, status, result."""
        tournament = self._tournament(slug)
        return _download(
            exports.pairings_csv(tournament), "text/csv; charset=utf-8", f"{tournament.slug}-pairings.csv"
        )

    @extend_schema(responses={(200, "text/plain"): str}, extensions=errors(409))
    @action(detail=True, methods=["get"], url_path="export/trf")
    def export_trf(self, request, slug=None):
        """A Swiss in FIDE's TRF16 format."""
        tournament, rows = self._standing_rows(slug)
        if tournament.format != "swiss":
            return Response(
                {"code": "export/not_swiss", "detail": "TRF describes Swiss tournaments"}, status=409
            )
        return _download(
            exports.tournament_trf(tournament, rows), "text/plain; charset=utf-8", f"{tournament.slug}.trf"
        )

    @extend_schema(responses=OpenApiTypes.OBJECT)
    @action(detail=True, methods=["get"], url_path="export/json")
    def export_json(self, request, slug=None):
        """The whole tournament as JSON: set-up, players' names, log and standings (importable)."""
        tournament, rows = self._standing_rows(slug)
        return Response(exports.tournament_export(tournament, rows))

    @extend_schema(responses=OpenApiTypes.OBJECT)
    @action(detail=True, methods=["get"], url_path=r"tables/(?P<match_key>[A-Za-z0-9_-]{1,30})")
    def tables_detail(self, request, slug=None, match_key=None):  # named to route after tables/csv
        """One table: its players, status, result, pending reports and every step of its history
        with its author, from the log."""
        tournament = self._tournament(slug)
        try:
            view = lifecycle.table(selectors.tournament_head(tournament).state, match_key)
        except FormatError:
            return Response({"code": "table/unknown", "detail": f"no table {match_key!r}"}, status=404)
        names = exports.player_names(tournament)
        view["names"] = {p: names.get(p, p) for p in view["players"]}
        view["events"] = [
            {
                "seq": e.seq,
                "kind": e.kind,
                "payload": e.payload,
                "created_at": e.created_at,
                "actor": e.actor.get_username() if e.actor_id else None,
            }
            for e in tournament.events.filter(payload__match_key=match_key)
            .select_related("actor")
            .order_by("seq")
        ]
        view["matches"] = list(
            tournament.matches.filter(match_key=match_key)
            .order_by("game_number")
            .values_list("match_id", flat=True)
        )
        return Response(view)

    @extend_schema(request=RegisterSerializer, responses={201: TournamentEntrySerializer})
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def register(self, request, slug=None):
        data = self._body(RegisterSerializer)
        entry = services.tournament_register(
            slug=slug,
            user=request.user,
            bot=data.get("bot", ""),
            deck_share_id=data.get("deck"),
            seed=data.get("seed"),
            username=data.get("username"),
        )
        return Response(TournamentEntrySerializer(entry).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=PlayerSerializer, responses=TournamentEntrySerializer)
    @action(
        detail=True, methods=["post"], url_path="check-in", permission_classes=[permissions.IsAuthenticated]
    )
    def check_in(self, request, slug=None):
        entry = services.tournament_check_in(
            slug=slug, user=request.user, player=self._body(PlayerSerializer).get("player")
        )
        entry.refresh_from_db()
        return Response(TournamentEntrySerializer(entry).data)

    @extend_schema(request=DeckChangeSerializer, responses=TournamentEntrySerializer)
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def deck(self, request, slug=None):
        """Before the start: bring another saved deck (legal in the tournament's format under the ban
        list in effect), e.g. when a new ban list made yours illegal and check-in refuses it."""
        data = self._body(DeckChangeSerializer)
        entry = services.tournament_deck_change(
            slug=slug, user=request.user, deck_share_id=data["deck"], player=data.get("player")
        )
        return Response(TournamentEntrySerializer(entry).data)

    @extend_schema(request=PlayerSerializer, responses=TournamentEntrySerializer)
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def drop(self, request, slug=None):
        entry = services.tournament_drop(
            slug=slug, user=request.user, player=self._body(PlayerSerializer).get("player")
        )
        entry.refresh_from_db()
        return Response(TournamentEntrySerializer(entry).data)

    @extend_schema(responses=TournamentEntrySerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=None)
    def entries(self, request, slug=None):
        return Response(
            TournamentEntrySerializer(
                self._tournament(slug).entries.select_related("user", "tournament", "deck_version__deck"),
                many=True,
            ).data
        )

    @extend_schema(
        parameters=[OpenApiParameter("round", int), OpenApiParameter("status", str)],
        responses=TableSerializer(many=True),
    )
    @action(detail=True, methods=["get"], pagination_class=None)
    def tables(self, request, slug=None):
        """Rounds and pairings: every table with its players, status, result and Snakepit matches."""
        return Response(
            tournament_table_rows(
                self._tournament(slug),
                round_number=query_int(request, "round", minimum=1),
                status=request.query_params.get("status") or None,
            )
        )

    @extend_schema(responses={200: ANY_OBJECTS})
    @action(detail=True, methods=["get"], pagination_class=None)
    def rounds(self, request, slug=None):
        """Each round's pairing as it was made, with its explanation (score groups, floaters, byes);
        a held round (rounds_start "on_organiser") also shows `started_at`, null until it starts."""
        tournament = self._tournament(slug)
        rounds = [event.payload for event in tournament.events.filter(kind="round_paired").order_by("seq")]
        if (
            tournament.rounds_start == Tournament.RoundsStart.ON_ORGANISER
            and tournament.result_mode == Tournament.ResultMode.SNAKEPIT
        ):
            # A held round shows whether it has started: until then it can be re-paired.
            started = dict(
                tournament.events.filter(kind="round_started").values_list("payload__round", "created_at")
            )
            rounds = [{**payload, "started_at": started.get(payload["round"])} for payload in rounds]
        return Response(rounds)

    @extend_schema(responses=OpenApiTypes.OBJECT)
    @action(detail=True, methods=["get"])
    def bracket(self, request, slug=None):
        """The elimination stage as a tree: matches, slots, and who feeds which slot."""
        tree = lifecycle.bracket(selectors.tournament_head(self._tournament(slug)).state)
        if tree is None:
            return Response(
                {"code": "tournament/no_bracket", "detail": "this tournament has no bracket stage (yet)"},
                status=404,
            )
        return Response(tree)

    def _standing_rows(self, slug) -> tuple[Tournament, list[dict]]:
        tournament = self._tournament(slug)
        return tournament, tournament_standing_rows(tournament)

    @extend_schema(responses={200: STANDING_ROWS})
    @action(detail=True, methods=["get"], pagination_class=None)
    def standings(self, request, slug=None):
        """Standings with every tiebreak column, each row explaining its numbers."""
        tournament = self._tournament(slug)
        # Every change of the standings or of an entry is an event appended in the same transaction.
        version = (tournament.pk, selectors.tournament_head_seq(tournament))
        return Response(
            read_caches.STANDINGS.get_or_build(
                version, lambda: read_caches.json_built(tournament_standing_rows(tournament))
            )
        )

    @extend_schema(responses={(200, "text/csv"): str})
    @action(detail=True, methods=["get"], url_path="standings/csv")
    def standings_csv(self, request, slug=None):
        """The standings as a CSV file, one column per tiebreak."""
        return _standings_csv(*self._standing_rows(slug))

    @extend_schema(responses=TournamentEventSerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=None)
    def events(self, request, slug=None):
        """The tournament's own log, from registration to the last correction."""
        tournament = self._tournament(slug)
        return Response(
            [
                {
                    "seq": event.seq,
                    "kind": event.kind,
                    "payload": event.payload,
                    "created_at": event.created_at,
                    "actor": event.actor.get_username() if event.actor_id else None,
                }
                for event in tournament.events.select_related("actor").order_by("seq")
            ]
        )

    @extend_schema(request=ReportSerializer, responses={201: RecordedEventSerializer})
    @action(
        detail=True,
        methods=["post"],
        url_path=r"tables/(?P<match_key>[A-Za-z0-9_-]+)/report",
        permission_classes=[permissions.IsAuthenticated],
    )
    def report(self, request, slug=None, match_key=None):
        """A player reports a table's result; another player of the table confirms or disputes it."""
        data = self._body(ReportSerializer)
        event = services.tournament_report(
            slug=slug,
            user=request.user,
            match_key=match_key,
            ranks=data["ranks"],
            games=data.get("games"),
            player=data.get("player"),
        )
        return Response(
            {"seq": event.seq, "kind": event.kind, "payload": event.payload}, status=status.HTTP_201_CREATED
        )

    @extend_schema(request=PlayerSerializer, responses={201: RecordedEventSerializer})
    @action(
        detail=True,
        methods=["post"],
        url_path=r"tables/(?P<match_key>[A-Za-z0-9_-]+)/confirm",
        permission_classes=[permissions.IsAuthenticated],
    )
    def confirm(self, request, slug=None, match_key=None):
        event = services.tournament_confirm(
            slug=slug,
            user=request.user,
            match_key=match_key,
            player=self._body(PlayerSerializer).get("player"),
        )
        return Response(
            {"seq": event.seq, "kind": event.kind, "payload": event.payload}, status=status.HTTP_201_CREATED
        )

    @extend_schema(request=DisputeSerializer, responses={201: RecordedEventSerializer})
    @action(
        detail=True,
        methods=["post"],
        url_path=r"tables/(?P<match_key>[A-Za-z0-9_-]+)/dispute",
        permission_classes=[permissions.IsAuthenticated],
    )
    def dispute(self, request, slug=None, match_key=None):
        data = self._body(DisputeSerializer)
        event = services.tournament_dispute(
            slug=slug,
            user=request.user,
            match_key=match_key,
            reason=data["reason"],
            player=data.get("player"),
        )
        return Response(
            {"seq": event.seq, "kind": event.kind, "payload": event.payload}, status=status.HTTP_201_CREATED
        )

    @extend_schema(request=CorrectSerializer, responses={201: RecordedEventSerializer})
    @action(
        detail=True,
        methods=["post"],
        url_path=r"tables/(?P<match_key>[A-Za-z0-9_-]+)/correct",
        permission_classes=[permissions.IsAuthenticated],
    )
    def correct(self, request, slug=None, match_key=None):
        """The organiser settles a dispute or corrects any result; earlier reports stay in the log."""
        data = self._body(CorrectSerializer)
        event = services.tournament_correct(
            slug=slug,
            user=request.user,
            match_key=match_key,
            ranks=data["ranks"],
            games=data.get("games"),
            reason=data["reason"],
            forfeit=data["forfeit"],
        )
        return Response(
            {"seq": event.seq, "kind": event.kind, "payload": event.payload}, status=status.HTTP_201_CREATED
        )


def _download(text: str, content_type: str, filename: str) -> HttpResponse:
    response = HttpResponse(text, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _standings_csv(tournament: Tournament, rows: list[dict]) -> HttpResponse:
    codes = sorted({code for row in rows for code in row.get("tiebreaks", {})})
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["rank", "player", "name", "points", *codes, "dropped"])
    for row in rows:
        writer.writerow(
            [
                row["rank"],
                row["player"],
                row["name"],
                row.get("points"),
                *(row.get("tiebreaks", {}).get(code) for code in codes),
                row.get("dropped", False),
            ]
        )
    response = HttpResponse(buffer.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{tournament.slug}-standings.csv"'
    return response


routes = [
    ("tournaments", TournamentViewSet, "tournament"),
    ("tournament-formats", TournamentFormatViewSet, "tournament-format"),
]
