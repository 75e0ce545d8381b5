"""Tournaments: thin views over tournaments.services; the pure lifecycle answers what the
log means (bracket, summary) from the current state, never from a replay; standings and tables are
read from their projections."""

from __future__ import annotations

import csv
import io

import django_filters
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from api.games import GameKeyField
from api.limits import MAX_ENTRIES, MAX_SEATS, query_int
from api.negotiation import FormatFilterNegotiation
from api.throttles import CreateThrottle, throttled_on
from tournaments import selectors, services
from tournaments.formats import lifecycle
from tournaments.models import Tournament, TournamentEntry, TournamentTable


class TournamentSerializer(serializers.ModelSerializer):
    # Names in any script keep their letters (a JSON Schema pattern's \w would be ASCII only).
    slug = serializers.CharField(read_only=True, help_text="Letters of any script, digits, - and _.")
    organiser = serializers.SlugRelatedField(slug_field="username", read_only=True)
    summary = serializers.SerializerMethodField()

    class Meta:
        model = Tournament
        fields = [
            "slug", "name", "game", "options", "format", "config", "seats_per_match", "result_mode", "seeding",
            "registration_cap", "check_in_required", "check_in_opens_at", "status", "organiser", "summary",
            "created_at", "started_at", "finished_at",
        ]

    def get_summary(self, tournament: Tournament) -> dict:
        return lifecycle.summary(selectors.tournament_head(tournament).state)


class TournamentCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=120)
    slug = serializers.SlugField(required=False, max_length=50, allow_unicode=True)
    game = GameKeyField()
    format = serializers.ChoiceField(choices=list(lifecycle.FORMATS))
    options = serializers.DictField(required=False, default=dict, help_text="The game's rule options.")
    config = serializers.DictField(required=False, default=dict, help_text="Format options: /api/tournament-formats/.")
    seats_per_match = serializers.IntegerField(required=False, min_value=2, max_value=MAX_SEATS)
    result_mode = serializers.ChoiceField(choices=Tournament.ResultMode.choices, default=Tournament.ResultMode.SNAKEPIT)
    seeding = serializers.ChoiceField(choices=Tournament.Seeding.choices, default=Tournament.Seeding.RANDOM)
    registration_cap = serializers.IntegerField(required=False, allow_null=True, min_value=2, max_value=MAX_ENTRIES)
    check_in_required = serializers.BooleanField(default=False)


class TournamentConfigureSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=120, required=False)
    options = serializers.DictField(required=False)
    config = serializers.DictField(required=False)
    seats_per_match = serializers.IntegerField(required=False, min_value=2, max_value=MAX_SEATS)
    result_mode = serializers.ChoiceField(choices=Tournament.ResultMode.choices, required=False)
    seeding = serializers.ChoiceField(choices=Tournament.Seeding.choices, required=False)
    registration_cap = serializers.IntegerField(required=False, allow_null=True, min_value=2, max_value=MAX_ENTRIES)
    check_in_required = serializers.BooleanField(required=False)
    check_in_opens_at = serializers.DateTimeField(required=False, allow_null=True)


class RegisterSerializer(serializers.Serializer):
    bot = serializers.CharField(required=False, help_text="Organisers: register one of the game's bots.")
    deck = serializers.CharField(required=False, help_text="Rag'n'Guns: your legal saved deck's share id.")
    seed = serializers.IntegerField(required=False, min_value=1, max_value=MAX_ENTRIES, help_text="Organisers: a manual seed.")


class PlayerSerializer(serializers.Serializer):
    player = serializers.CharField(required=False, help_text="Organisers: act for this player id.")


class ReportSerializer(PlayerSerializer):
    ranks = serializers.ListField(child=serializers.IntegerField(min_value=1, max_value=MAX_SEATS), max_length=MAX_SEATS, help_text="Per player in table order; 1 is best.")
    games = serializers.ListField(child=serializers.ListField(child=serializers.IntegerField(min_value=1, max_value=MAX_SEATS), max_length=MAX_SEATS), max_length=99, required=False, allow_null=True)


class DisputeSerializer(PlayerSerializer):
    reason = serializers.CharField(max_length=500)


class CorrectSerializer(serializers.Serializer):
    ranks = serializers.ListField(child=serializers.IntegerField(min_value=1, max_value=MAX_SEATS), max_length=MAX_SEATS)
    games = serializers.ListField(child=serializers.ListField(child=serializers.IntegerField(min_value=1, max_value=MAX_SEATS), max_length=MAX_SEATS), max_length=99, required=False, allow_null=True)
    reason = serializers.CharField(max_length=500)


class TournamentEntrySerializer(serializers.ModelSerializer):
    user = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True, help_text="null: a bot.")
    deck = serializers.SerializerMethodField()

    class Meta:
        model = TournamentEntry
        fields = ["player", "user", "bot", "seed", "status", "deck"]

    def get_deck(self, entry: TournamentEntry) -> dict | None:
        if entry.deck_version_id is None:
            return None
        version = entry.deck_version
        return {"share_id": version.deck.share_id, "version": version.number}


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
            table.tournament.matches.filter(match_key=table.match_key).order_by("game_number").values_list("match_id", flat=True)
        )


class TournamentFilter(django_filters.FilterSet):
    game = django_filters.CharFilter()
    tournament_format = django_filters.CharFilter(field_name="format", label="swiss, pods, ... (/api/tournament-formats/)")
    format = django_filters.CharFilter(label="Deprecated spelling of tournament_format")
    status = django_filters.ChoiceFilter(choices=Tournament.Status.choices)
    organiser = django_filters.CharFilter(field_name="organiser__username")
    player = django_filters.CharFilter(field_name="entries__user__username", label="Username of a registered player")

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
            "create": TournamentCreateSerializer, "partial_update": TournamentConfigureSerializer,
            "register": RegisterSerializer, "report": ReportSerializer,
            "confirm": PlayerSerializer, "dispute": DisputeSerializer, "correct": CorrectSerializer,
            "check_in": PlayerSerializer, "drop": PlayerSerializer,
        }.get(self.action, TournamentSerializer)

    def _body(self, serializer_class):
        body = serializer_class(data=self.request.data)
        body.is_valid(raise_exception=True)
        return body.validated_data

    def _tournament(self, slug) -> Tournament:
        return selectors.tournament_get(slug=slug)

    def list(self, request):
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()).distinct())
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
        return Response(TournamentSerializer(services.tournament_configure(slug=slug, user=request.user, **changes)).data)

    @extend_schema(request=None, responses=TournamentSerializer)
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def open(self, request, slug=None):
        """Open registration (draft -> registration)."""
        return Response(TournamentSerializer(services.tournament_open(slug=slug, user=request.user)).data)

    @extend_schema(request=None, responses=TournamentSerializer)
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def start(self, request, slug=None):
        """Seed the players and pair the first round (registration -> running)."""
        return Response(TournamentSerializer(services.tournament_start(slug=slug, user=request.user)).data)

    @extend_schema(request=None, responses=TournamentSerializer)
    @action(detail=True, methods=["post"], url_path="next-round", permission_classes=[permissions.IsAuthenticated])
    def next_round(self, request, slug=None):
        """Pair the next round once every table of this one is decided; finishes the tournament when
        nothing is left. 409 `round/not_complete` otherwise."""
        return Response(TournamentSerializer(services.tournament_next_round(slug=slug, user=request.user)).data)

    @extend_schema(request=RegisterSerializer, responses={201: TournamentEntrySerializer})
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def register(self, request, slug=None):
        data = self._body(RegisterSerializer)
        entry = services.tournament_register(
            slug=slug, user=request.user, bot=data.get("bot", ""), deck_share_id=data.get("deck"), seed=data.get("seed")
        )
        return Response(TournamentEntrySerializer(entry).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=PlayerSerializer, responses=TournamentEntrySerializer)
    @action(detail=True, methods=["post"], url_path="check-in", permission_classes=[permissions.IsAuthenticated])
    def check_in(self, request, slug=None):
        entry = services.tournament_check_in(slug=slug, user=request.user, player=self._body(PlayerSerializer).get("player"))
        entry.refresh_from_db()
        return Response(TournamentEntrySerializer(entry).data)

    @extend_schema(request=PlayerSerializer, responses=TournamentEntrySerializer)
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def drop(self, request, slug=None):
        entry = services.tournament_drop(slug=slug, user=request.user, player=self._body(PlayerSerializer).get("player"))
        entry.refresh_from_db()
        return Response(TournamentEntrySerializer(entry).data)

    @extend_schema(responses=TournamentEntrySerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=None)
    def entries(self, request, slug=None):
        return Response(TournamentEntrySerializer(self._tournament(slug).entries.select_related("user", "deck_version__deck"), many=True).data)

    @extend_schema(
        parameters=[OpenApiParameter("round", int), OpenApiParameter("status", str)], responses=TableSerializer(many=True)
    )
    @action(detail=True, methods=["get"], pagination_class=None)
    def tables(self, request, slug=None):
        """Rounds and pairings: every table with its players, status, result and Snakepit matches."""
        tournament = self._tournament(slug)
        tables = tournament.tables.all()
        round_number = query_int(request, "round", minimum=1)
        if round_number is not None:
            tables = tables.filter(round=round_number)
        if request.query_params.get("status"):
            tables = tables.filter(status=request.query_params["status"])
        matches: dict[str, list[int]] = {}
        for key, match_id in tournament.matches.order_by("match_key", "game_number").values_list("match_key", "match_id"):
            matches.setdefault(key, []).append(match_id)
        return Response(TableSerializer(tables, many=True, context={"matches": matches}).data)

    @extend_schema(responses={200: ANY_OBJECTS})
    @action(detail=True, methods=["get"], pagination_class=None)
    def rounds(self, request, slug=None):
        """Each round's pairing as it was made, with its explanation (score groups, floaters, byes)."""
        tournament = self._tournament(slug)
        return Response(
            [event.payload for event in tournament.events.filter(kind="round_paired").order_by("seq")]
        )

    @extend_schema(responses=OpenApiTypes.OBJECT)
    @action(detail=True, methods=["get"])
    def bracket(self, request, slug=None):
        """The elimination stage as a tree: matches, slots, and who feeds which slot."""
        tree = lifecycle.bracket(selectors.tournament_head(self._tournament(slug)).state)
        if tree is None:
            return Response({"code": "tournament/no_bracket", "detail": "this tournament has no bracket stage (yet)"}, status=404)
        return Response(tree)

    def _standing_rows(self, slug) -> tuple[Tournament, list[dict]]:
        tournament = self._tournament(slug)
        # The rank column is the rank (the JSON holds the rest of the row).
        rows = [
            {"rank": row.rank, **{key: value for key, value in row.row.items() if key != "rank"}}
            for row in tournament.standings.order_by("rank", "player")
        ]
        names = {entry.player: entry.label for entry in tournament.entries.select_related("user")}
        for row in rows:
            row["name"] = names.get(row["player"], row["player"])
        return tournament, rows

    @extend_schema(responses={200: STANDING_ROWS})
    @action(detail=True, methods=["get"], pagination_class=None)
    def standings(self, request, slug=None):
        """Standings with every tiebreak column, each row explaining its numbers."""
        return Response(self._standing_rows(slug)[1])

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
                {"seq": event.seq, "kind": event.kind, "payload": event.payload, "created_at": event.created_at,
                 "actor": event.actor.get_username() if event.actor_id else None}
                for event in tournament.events.select_related("actor").order_by("seq")
            ]
        )

    @extend_schema(request=ReportSerializer, responses={201: RecordedEventSerializer})
    @action(detail=True, methods=["post"], url_path=r"tables/(?P<match_key>[A-Za-z0-9_-]+)/report", permission_classes=[permissions.IsAuthenticated])
    def report(self, request, slug=None, match_key=None):
        """A player reports a table's result; another player of the table confirms or disputes it."""
        data = self._body(ReportSerializer)
        event = services.tournament_report(
            slug=slug, user=request.user, match_key=match_key, ranks=data["ranks"], games=data.get("games"), player=data.get("player")
        )
        return Response({"seq": event.seq, "kind": event.kind, "payload": event.payload}, status=status.HTTP_201_CREATED)

    @extend_schema(request=PlayerSerializer, responses={201: RecordedEventSerializer})
    @action(detail=True, methods=["post"], url_path=r"tables/(?P<match_key>[A-Za-z0-9_-]+)/confirm", permission_classes=[permissions.IsAuthenticated])
    def confirm(self, request, slug=None, match_key=None):
        event = services.tournament_confirm(slug=slug, user=request.user, match_key=match_key, player=self._body(PlayerSerializer).get("player"))
        return Response({"seq": event.seq, "kind": event.kind, "payload": event.payload}, status=status.HTTP_201_CREATED)

    @extend_schema(request=DisputeSerializer, responses={201: RecordedEventSerializer})
    @action(detail=True, methods=["post"], url_path=r"tables/(?P<match_key>[A-Za-z0-9_-]+)/dispute", permission_classes=[permissions.IsAuthenticated])
    def dispute(self, request, slug=None, match_key=None):
        data = self._body(DisputeSerializer)
        event = services.tournament_dispute(slug=slug, user=request.user, match_key=match_key, reason=data["reason"], player=data.get("player"))
        return Response({"seq": event.seq, "kind": event.kind, "payload": event.payload}, status=status.HTTP_201_CREATED)

    @extend_schema(request=CorrectSerializer, responses={201: RecordedEventSerializer})
    @action(detail=True, methods=["post"], url_path=r"tables/(?P<match_key>[A-Za-z0-9_-]+)/correct", permission_classes=[permissions.IsAuthenticated])
    def correct(self, request, slug=None, match_key=None):
        """The organiser settles a dispute or corrects any result; earlier reports stay in the log."""
        data = self._body(CorrectSerializer)
        event = services.tournament_correct(
            slug=slug, user=request.user, match_key=match_key, ranks=data["ranks"], games=data.get("games"), reason=data["reason"]
        )
        return Response({"seq": event.seq, "kind": event.kind, "payload": event.payload}, status=status.HTTP_201_CREATED)


def _standings_csv(tournament: Tournament, rows: list[dict]) -> HttpResponse:
    codes = sorted({code for row in rows for code in row.get("tiebreaks", {})})
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["rank", "player", "name", "points", *codes, "dropped"])
    for row in rows:
        writer.writerow(
            [row["rank"], row["player"], row["name"], row.get("points"), *(row.get("tiebreaks", {}).get(code) for code in codes), row.get("dropped", False)]
        )
    response = HttpResponse(buffer.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{tournament.slug}-standings.csv"'
    return response


routes = [
    ("tournaments", TournamentViewSet, "tournament"),
    ("tournament-formats", TournamentFormatViewSet, "tournament-format"),
]
