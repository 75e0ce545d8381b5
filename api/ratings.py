"""Ladders, leaderboards and rating histories: thin views over ratings.services and ratings.selectors."""

from __future__ import annotations

import django_filters
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from api.games import GameKeyField
from api.limits import MAX_SEATS
from api.matches import MatchSerializer
from api.throttles import CreateThrottle, throttled_on
from core.errors import Forbidden, NotFound
from matches import selectors as match_selectors
from ratings import selectors, services, skill
from ratings.models import Ladder, LadderEntry, LadderSeason, RatingChange


class LadderSerializer(serializers.ModelSerializer):
    # Names in any script keep their letters (a JSON Schema pattern's \w would be ASCII only).
    slug = serializers.CharField(read_only=True, help_text="Letters of any script, digits, - and _.")
    entries = serializers.SerializerMethodField()

    class Meta:
        model = Ladder
        fields = [
            "slug", "name", "game", "options", "seats_per_match", "rating_model", "entry_policy", "season",
            "season_started_at", "season_ends_at", "carry_over", "round_interval_seconds",
            "move_deadline_seconds", "match_deadline_seconds", "is_active", "entries", "created_at",
        ]

    def get_entries(self, ladder: Ladder) -> int:
        return ladder.entries.filter(left_at__isnull=True).count()


class LadderCreateSerializer(serializers.Serializer):
    game = GameKeyField()
    name = serializers.CharField(max_length=100)
    slug = serializers.SlugField(required=False, max_length=50, allow_unicode=True)
    options = serializers.DictField(required=False, default=dict)
    seats_per_match = serializers.IntegerField(required=False, min_value=2, max_value=MAX_SEATS)
    rating_model = serializers.ChoiceField(choices=list(skill.MODELS), default="plackett_luce")
    entry_policy = serializers.ChoiceField(choices=Ladder.Entry.choices, default=Ladder.Entry.USERS_AND_BOTS)
    round_interval_seconds = serializers.IntegerField(required=False, default=600, min_value=5, max_value=30 * 24 * 3600)


class JoinSerializer(serializers.Serializer):
    bot = serializers.CharField(required=False, help_text="Enter one of the game's built-in bots instead of yourself.")
    deck = serializers.CharField(required=False, help_text="Rag'n'Guns: the share id of your legal saved deck.")


class LeaderboardEntrySerializer(serializers.Serializer):
    position = serializers.IntegerField()
    entry = serializers.IntegerField()
    competitor = serializers.CharField()
    user = serializers.CharField(allow_null=True)
    bot = serializers.CharField(allow_null=True)
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    ordinal = serializers.FloatField()
    games = serializers.IntegerField()
    provisional = serializers.BooleanField()
    active = serializers.BooleanField()


class RatingChangeSerializer(serializers.ModelSerializer):
    match = serializers.IntegerField(source="rated_match.match_id")
    season = serializers.IntegerField(source="rated_match.season")
    rated_at = serializers.DateTimeField(source="rated_match.rated_at")

    class Meta:
        model = RatingChange
        fields = [
            "match", "season", "rated_at", "rank", "mu_before", "sigma_before", "ordinal_before",
            "mu_after", "sigma_after", "ordinal_after",
        ]


class SeasonSerializer(serializers.ModelSerializer):
    class Meta:
        model = LadderSeason
        fields = ["number", "started_at", "ended_at", "standings"]


class LadderRoundSerializer(serializers.Serializer):
    round = serializers.IntegerField(allow_null=True, help_text="null: too few entries to pair a round.")
    matches = serializers.ListField(child=serializers.IntegerField(), help_text="The round's match ids.")


class LadderFilter(django_filters.FilterSet):
    game = django_filters.CharFilter()
    is_active = django_filters.BooleanFilter()

    class Meta:
        model = Ladder
        fields = ["game", "is_active"]


def _may_manage(user, ladder: Ladder) -> bool:
    return user.is_staff or (ladder.created_by_id is not None and ladder.created_by_id == user.pk)


class LadderViewSet(viewsets.GenericViewSet):
    """Ladders: bots and people play continuously; every finished match is rated once."""

    get_throttles = throttled_on(create=CreateThrottle)

    lookup_field = "slug"
    filterset_class = LadderFilter
    queryset = Ladder.objects.all()
    serializer_class = LadderSerializer

    def get_serializer_class(self):
        return {"create": LadderCreateSerializer, "join": JoinSerializer}.get(self.action, LadderSerializer)

    def list(self, request):
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        return self.get_paginated_response(LadderSerializer(page, many=True).data)

    def retrieve(self, request, slug=None):
        return Response(LadderSerializer(services.ladder_get(slug=slug)).data)

    @extend_schema(request=LadderCreateSerializer, responses={201: LadderSerializer})
    def create(self, request):
        body = LadderCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = dict(body.validated_data)
        ladder = services.ladder_create(game_key=data.pop("game"), created_by=request.user, **data)
        return Response(LadderSerializer(ladder).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=JoinSerializer, responses={201: LeaderboardEntrySerializer})
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def join(self, request, slug=None):
        """Enter yourself, or (as the ladder's organiser) one of the game's bots."""
        ladder = services.ladder_get(slug=slug)
        body = JoinSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        bot = body.validated_data.get("bot", "")
        if bot and not _may_manage(request.user, ladder):
            raise Forbidden("only the ladder's organiser enters bots", code="ladder/not_organiser")
        entry = services.ladder_join(
            ladder=ladder, user=None if bot else request.user, bot=bot, deck_share_id=body.validated_data.get("deck")
        )
        row = next(row for row in selectors.leaderboard(ladder=ladder) if row["entry"] == entry.pk)
        return Response(LeaderboardEntrySerializer(row).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={204: OpenApiResponse(description="Left.")})
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def leave(self, request, slug=None):
        """Leave the ladder; your rating and history stay, and come back if you rejoin."""
        services.ladder_leave(ladder=services.ladder_get(slug=slug), user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(responses=LeaderboardEntrySerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=None)
    def leaderboard(self, request, slug=None):
        """Ordered by the conservative ordinal (mu - 3 sigma); `provisional` marks unsettled ratings."""
        ladder = services.ladder_get(slug=slug)
        rows = selectors.leaderboard(ladder=ladder, include_left=request.query_params.get("include_left") == "true")
        return Response(LeaderboardEntrySerializer(rows, many=True).data)

    @extend_schema(responses=RatingChangeSerializer(many=True))
    @action(detail=True, methods=["get"], url_path=r"entries/(?P<entry_id>\d+)/history")
    def history(self, request, slug=None, entry_id=None):
        """One competitor's rating before and after each of its rated matches, newest first."""
        ladder = services.ladder_get(slug=slug)
        entry = LadderEntry.objects.filter(ladder=ladder, pk=entry_id).first()
        if entry is None:
            raise NotFound(f"no entry {entry_id} on {slug}", code="entry/not_found")
        page = self.paginate_queryset(selectors.entry_history(entry=entry))
        return self.get_paginated_response(RatingChangeSerializer(page, many=True).data)

    @extend_schema(responses=MatchSerializer(many=True))
    @action(detail=True, methods=["get"])
    def matches(self, request, slug=None):
        """The ladder's matches, newest first; `?status=running|finished`."""
        ladder = services.ladder_get(slug=slug)
        queryset = selectors.ladder_matches(ladder=ladder)
        if request.query_params.get("status"):
            queryset = queryset.filter(match__status=request.query_params["status"])
        page = self.paginate_queryset(queryset)
        # Read through the match list, which carries each match's seq and seats (the schema's Match).
        matches = match_selectors.match_list().in_bulk([ladder_match.match_id for ladder_match in page])
        rows = [matches[ladder_match.match_id] for ladder_match in page]
        return self.get_paginated_response(MatchSerializer(rows, many=True).data)

    @extend_schema(responses=SeasonSerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=None)
    def seasons(self, request, slug=None):
        """The archive of closed seasons and their final leaderboards."""
        ladder = services.ladder_get(slug=slug)
        return Response(SeasonSerializer(ladder.seasons.all(), many=True).data)

    @extend_schema(request=None, responses={201: SeasonSerializer})
    @action(detail=True, methods=["post"], url_path="seasons/close", permission_classes=[permissions.IsAuthenticated])
    def close_season(self, request, slug=None):
        ladder = services.ladder_get(slug=slug)
        if not _may_manage(request.user, ladder):
            raise Forbidden("only the ladder's organiser closes a season", code="ladder/not_organiser")
        archived = services.ladder_season_close(ladder_id=ladder.pk)
        return Response(SeasonSerializer(archived).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={201: LadderRoundSerializer})
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def rounds(self, request, slug=None):
        """Pair and start a round now, without waiting for the schedule (organisers)."""
        ladder = services.ladder_get(slug=slug)
        if not _may_manage(request.user, ladder):
            raise Forbidden("only the ladder's organiser starts rounds", code="ladder/not_organiser")
        result = services.ladder_round_create(ladder_id=ladder.pk)
        return Response(
            {"round": result.round.number if result.round else None, "matches": [match.pk for match in result.matches]},
            status=status.HTTP_201_CREATED,
        )


class LadderEntryFilter(django_filters.FilterSet):
    game = django_filters.CharFilter(field_name="ladder__game")
    ladder = django_filters.CharFilter(field_name="ladder__slug")
    user = django_filters.CharFilter(field_name="user__username")
    bot = django_filters.CharFilter()
    active = django_filters.BooleanFilter(field_name="left_at", lookup_expr="isnull")

    class Meta:
        model = LadderEntry
        fields = ["game", "ladder", "user", "bot", "active"]


class LadderEntryRowSerializer(serializers.ModelSerializer):
    ladder = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    game = serializers.CharField(source="ladder.game", read_only=True)
    competitor = serializers.CharField(source="label", read_only=True)
    provisional = serializers.SerializerMethodField()

    class Meta:
        model = LadderEntry
        fields = ["id", "ladder", "game", "competitor", "mu", "sigma", "ordinal", "games", "provisional", "joined_at", "left_at"]

    def get_provisional(self, entry: LadderEntry) -> bool:
        return skill.is_provisional(skill.Skill(entry.mu, entry.sigma), entry.games)


class LadderEntryViewSet(viewsets.ReadOnlyModelViewSet):
    """Ratings across ladders, best ordinal first: filter by game, ladder, user or bot."""

    queryset = LadderEntry.objects.select_related("ladder", "user").order_by("-ordinal", "pk")
    serializer_class = LadderEntryRowSerializer
    filterset_class = LadderEntryFilter
    permission_classes = [permissions.AllowAny]


routes = [
    ("ladders", LadderViewSet, "ladder"),
    ("ladder-entries", LadderEntryViewSet, "ladder-entry"),
]
