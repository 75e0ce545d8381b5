"""Ladders, leaderboards and rating histories: thin views over the ratings services and selectors."""

from __future__ import annotations

import django_filters
from django.core.exceptions import ValidationError as DjangoValidationError
from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from api import read_caches
from api.games import GameKeyField
from api.limits import INT_MAX, MAX_SEATS, BoundedIsoDateTimeField
from api.matches import MatchSerializer
from api.throttles import CreateThrottle, throttled_on
from core.errors import ApplicationError, Forbidden, NotFound
from core.read_cache import Built
from matches import selectors as match_selectors
from ratings import selectors, services, skill
from ratings.models import Ladder, LadderEntry, LadderSeason, RatingChange
from ratings.rounds import ladder_round_create
from ratings.seasons import ladder_season_close


class BoundedDateTimeField(serializers.DateTimeField):
    """A moment whose time-zone offset PostgreSQL can store (api.limits)."""

    def to_internal_value(self, value):
        if isinstance(value, str):
            try:
                BoundedIsoDateTimeField().to_python(value)
            except DjangoValidationError as error:
                raise serializers.ValidationError(error.messages) from None
        return super().to_internal_value(value)


class LadderSerializer(serializers.ModelSerializer):
    # Names in any script keep their letters (a JSON Schema pattern's \w would be ASCII only).
    slug = serializers.CharField(read_only=True, help_text="Letters of any script, digits, - and _.")
    entries = serializers.SerializerMethodField()
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)

    class Meta:
        model = Ladder
        fields = [
            "slug",
            "name",
            "game",
            "options",
            "seats_per_match",
            "rating_model",
            "entry_policy",
            "season",
            "season_started_at",
            "season_ends_at",
            "season_length_days",
            "carry_over",
            "round_interval_seconds",
            "move_deadline_seconds",
            "match_deadline_seconds",
            "provisional_sigma",
            "inactive_after_days",
            "no_show_limit",
            "is_active",
            "archived_at",
            "created_by",
            "entries",
            "created_at",
        ]

    def get_entries(self, ladder: Ladder) -> int:
        counted = getattr(ladder, "active_entries", None)  # ratings.selectors.ladders_with_entry_counts
        return ladder.entries.filter(left_at__isnull=True).count() if counted is None else counted


class LadderCreateSerializer(serializers.Serializer):
    game = GameKeyField()
    name = serializers.CharField(max_length=100)
    slug = serializers.SlugField(required=False, max_length=50, allow_unicode=True)
    options = serializers.DictField(required=False, default=dict)
    seats_per_match = serializers.IntegerField(required=False, min_value=2, max_value=MAX_SEATS)
    rating_model = serializers.ChoiceField(choices=list(skill.MODELS), default="plackett_luce")
    entry_policy = serializers.ChoiceField(choices=Ladder.Entry.choices, default=Ladder.Entry.USERS_AND_BOTS)
    round_interval_seconds = serializers.IntegerField(
        required=False, default=600, min_value=5, max_value=30 * 24 * 3600
    )
    carry_over = serializers.BooleanField(required=False, default=False)
    season_ends_at = BoundedDateTimeField(required=False, allow_null=True, default=None)
    season_length_days = serializers.IntegerField(
        required=False, allow_null=True, default=None, min_value=1, max_value=3660
    )
    provisional_sigma = serializers.FloatField(
        required=False, default=skill.PROVISIONAL_MAX_SIGMA, min_value=0.1, max_value=100
    )
    inactive_after_days = serializers.IntegerField(
        required=False, allow_null=True, default=30, min_value=1, max_value=3660
    )
    no_show_limit = serializers.IntegerField(required=False, default=2, min_value=1, max_value=100)
    move_deadline_seconds = serializers.IntegerField(
        required=False, default=300, min_value=10, max_value=30 * 24 * 3600
    )
    match_deadline_seconds = serializers.IntegerField(
        required=False, default=3600, min_value=10, max_value=365 * 24 * 3600
    )


class LadderUpdateSerializer(serializers.Serializer):
    """Every field optional: what is sent changes, from the next round on."""

    name = serializers.CharField(required=False, max_length=100)
    round_interval_seconds = serializers.IntegerField(required=False, min_value=5, max_value=30 * 24 * 3600)
    seats_per_match = serializers.IntegerField(
        required=False, min_value=2, max_value=MAX_SEATS, help_text="The pod size."
    )
    deck_format = serializers.CharField(
        required=False, max_length=40, help_text="Rag'n'Guns: the deck format entries play."
    )
    move_deadline_seconds = serializers.IntegerField(required=False, min_value=10, max_value=30 * 24 * 3600)
    match_deadline_seconds = serializers.IntegerField(required=False, min_value=10, max_value=365 * 24 * 3600)
    season_ends_at = BoundedDateTimeField(required=False, allow_null=True)
    season_length_days = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, max_value=3660
    )
    provisional_sigma = serializers.FloatField(required=False, min_value=0.1, max_value=100)
    inactive_after_days = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, max_value=3660
    )
    no_show_limit = serializers.IntegerField(required=False, min_value=1, max_value=100)
    carry_over = serializers.BooleanField(required=False)

    def validate(self, attrs):
        unknown = (
            sorted(set(self.initial_data) - set(self.fields)) if isinstance(self.initial_data, dict) else []
        )
        if unknown:
            raise serializers.ValidationError({name: "cannot be changed" for name in unknown})
        return attrs


class JoinSerializer(serializers.Serializer):
    bot = serializers.CharField(
        required=False, help_text="Enter one of the game's built-in bots instead of yourself."
    )
    deck = serializers.CharField(
        required=False, help_text="Rag'n'Guns: the share id of your legal saved deck."
    )


class LeaderboardEntrySerializer(serializers.Serializer):
    position = serializers.IntegerField(
        allow_null=True, help_text="Its place on the leaderboard page; null outside one."
    )
    entry = serializers.IntegerField()
    competitor = serializers.CharField()
    user = serializers.CharField(allow_null=True)
    bot = serializers.CharField(allow_null=True)
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    ordinal = serializers.FloatField()
    games = serializers.IntegerField()
    provisional = serializers.BooleanField()
    active = serializers.BooleanField(help_text="false: the entry left the ladder.")
    inactive = serializers.BooleanField(
        help_text="Not played for the ladder's inactive_after_days: off the leaderboard."
    )
    paused = serializers.CharField(
        allow_null=True, help_text="Why the entry is left out of matchmaking, if it is."
    )
    last_played_at = serializers.DateTimeField(allow_null=True)


class ForfeitCountSerializer(serializers.Serializer):
    reason = serializers.CharField()
    count = serializers.IntegerField()


class LadderEntryDetailSerializer(LeaderboardEntrySerializer):
    season = serializers.IntegerField(help_text="The season its rating belongs to.")
    no_shows = serializers.IntegerField(help_text="Ladder matches missed in a row.")
    paused_at = serializers.DateTimeField(allow_null=True)
    joined_at = serializers.DateTimeField()
    forfeits = ForfeitCountSerializer(many=True, help_text="Its forfeits by reason, most frequent first.")
    deck_violations = serializers.ListField(
        child=serializers.DictField(),
        help_text="Paused for an illegal deck: what to change (its violations under the ban list in effect).",
    )


class HeadToHeadSerializer(serializers.Serializer):
    opponent = serializers.IntegerField(source="entry", help_text="The opponent's entry id.")
    competitor = serializers.CharField(help_text="The opponent's name.")
    games = serializers.IntegerField()
    wins = serializers.IntegerField(help_text="Matches this entry finished ahead of the opponent.")
    losses = serializers.IntegerField()
    draws = serializers.IntegerField()
    last_match = serializers.IntegerField(help_text="The id of their latest rated match together.")


class RatingChangeSerializer(serializers.ModelSerializer):
    match = serializers.IntegerField(source="rated_match.match_id")
    match_url = serializers.SerializerMethodField(help_text="The match, its seats and its outcome.")
    season = serializers.IntegerField(source="rated_match.season")
    rated_at = serializers.DateTimeField(source="rated_match.rated_at")

    class Meta:
        model = RatingChange
        fields = [
            "match",
            "match_url",
            "season",
            "rated_at",
            "rank",
            "mu_before",
            "sigma_before",
            "ordinal_before",
            "mu_after",
            "sigma_after",
            "ordinal_after",
        ]

    def get_match_url(self, change: RatingChange) -> str:
        return f"/api/matches/{change.rated_match.match_id}/"


class SeasonSerializer(serializers.ModelSerializer):
    class Meta:
        model = LadderSeason
        fields = ["number", "started_at", "ended_at", "standings"]


class LadderRoundSerializer(serializers.Serializer):
    round = serializers.IntegerField(allow_null=True, help_text="null: too few entries to pair a round.")
    matches = serializers.ListField(child=serializers.IntegerField(), help_text="The round's match ids.")


class LadderRoundRowSerializer(serializers.Serializer):
    season = serializers.IntegerField()
    number = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    matches = serializers.IntegerField(source="match_count")
    explanation = serializers.JSONField(help_text="How matchmaking formed the pods, and who sat out why.")


class SeatEntrySerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    entry = serializers.IntegerField()
    competitor = serializers.CharField()


class LadderMatchSerializer(serializers.Serializer):
    match = MatchSerializer()
    season = serializers.IntegerField()
    round = serializers.IntegerField(help_text="The round's number in its season.")
    entries = SeatEntrySerializer(many=True, help_text="Every seat's ladder entry, in seat order.")
    rated = serializers.BooleanField()


class LadderFilter(django_filters.FilterSet):
    game = django_filters.CharFilter()
    is_active = django_filters.BooleanFilter()

    class Meta:
        model = Ladder
        fields = ["game", "is_active"]


def _may_manage(user, ladder: Ladder) -> bool:
    return user.is_staff or (ladder.created_by_id is not None and ladder.created_by_id == user.pk)


def _ladder_match_rows(ladder_matches) -> list[dict]:
    """Each ladder match with its match (read through the match list, which carries seq and seats)
    and every seat's entry."""
    ladder_matches = list(ladder_matches)
    matches = match_selectors.match_list().in_bulk([ladder_match.match_id for ladder_match in ladder_matches])
    entry_ids = {entry_id for ladder_match in ladder_matches for entry_id in ladder_match.entries}
    entries = LadderEntry.objects.select_related("user").in_bulk(entry_ids)
    return [
        {
            "match": matches[ladder_match.match_id],
            "season": ladder_match.round.season,
            "round": ladder_match.round.number,
            "entries": [
                {"seat": seat, "entry": entry_id, "competitor": entries[entry_id].label}
                for seat, entry_id in enumerate(ladder_match.entries)
            ],
            "rated": ladder_match.rated,
        }
        for ladder_match in ladder_matches
    ]


def leaderboard_rows(ladder: Ladder, entries, *, first: int) -> list[dict]:
    """The JSON of a page of `/leaderboard/`, its first entry at position `first`."""
    rows = [
        selectors.leaderboard_row(entry=entry, ladder=ladder, position=first + index)
        for index, entry in enumerate(entries)
    ]
    return LeaderboardEntrySerializer(rows, many=True).data


def _query_flag(request, name: str) -> bool:
    value = request.query_params.get(name, "false")
    if value not in ("true", "false"):
        raise ApplicationError(f"{name} is true or false", code="request/invalid_query")
    return value == "true"


class LadderViewSet(viewsets.GenericViewSet):
    """Ladders: bots and people play continuously; every finished match is rated once."""

    get_throttles = throttled_on(create=CreateThrottle)

    lookup_field = "slug"
    filterset_class = LadderFilter
    queryset = Ladder.objects.all()
    serializer_class = LadderSerializer

    def get_serializer_class(self):
        return {
            "create": LadderCreateSerializer,
            "join": JoinSerializer,
            "partial_update": LadderUpdateSerializer,
        }.get(self.action, LadderSerializer)

    def get_permissions(self):
        if self.action in ("partial_update", "destroy", "pause", "resume", "archive"):
            return [permissions.IsAuthenticated()]
        return super().get_permissions()

    def list(self, request):
        # The URI carries the filters and the page, and the host of the page links.
        key = (selectors.ladders_version(), request.build_absolute_uri())
        return Response(read_caches.LADDER_LISTINGS.get_or_build(key, self._listing_built))

    def _listing_built(self) -> Built:
        listed = self.filter_queryset(selectors.ladders_with_entry_counts()).order_by("game", "slug")
        page = self.paginate_queryset(listed)
        return read_caches.json_built(
            self.get_paginated_response(LadderSerializer(page, many=True).data).data
        )

    def retrieve(self, request, slug=None):
        return Response(LadderSerializer(services.ladder_get(slug=slug)).data)

    @extend_schema(request=LadderCreateSerializer, responses={201: LadderSerializer})
    def create(self, request):
        body = LadderCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = dict(body.validated_data)
        ladder = services.ladder_create(game_key=data.pop("game"), created_by=request.user, **data)
        return Response(LadderSerializer(ladder).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=LadderUpdateSerializer, responses={200: LadderSerializer})
    def partial_update(self, request, slug=None):
        """Organiser or staff: change the name, round interval, pod size, deck format, deadlines or
        season settings; pod size and format apply from the next round."""
        ladder = services.ladder_get(slug=slug)
        body = LadderUpdateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        updated = services.ladder_update(
            ladder_id=ladder.pk, by=request.user, changes=dict(body.validated_data)
        )
        return Response(LadderSerializer(updated).data)

    @extend_schema(request=None, responses={204: OpenApiResponse(description="Deleted.")})
    def destroy(self, request, slug=None):
        """Organiser or staff: delete a ladder that never played; one with matches is refused
        (`ladder/has_matches`): archive it instead."""
        services.ladder_delete(ladder_id=services.ladder_get(slug=slug).pk, by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(request=None, responses={200: LadderSerializer})
    @action(detail=True, methods=["post"])
    def pause(self, request, slug=None):
        """Organiser or staff: start no more rounds; running matches play on and are rated."""
        ladder = services.ladder_pause(ladder_id=services.ladder_get(slug=slug).pk, by=request.user)
        return Response(LadderSerializer(ladder).data)

    @extend_schema(request=None, responses={200: LadderSerializer})
    @action(detail=True, methods=["post"])
    def resume(self, request, slug=None):
        """Organiser or staff: start rounds again on the ladder's schedule."""
        ladder = services.ladder_resume(ladder_id=services.ladder_get(slug=slug).pk, by=request.user)
        return Response(LadderSerializer(ladder).data)

    @extend_schema(request=None, responses={200: LadderSerializer})
    @action(detail=True, methods=["post"])
    def archive(self, request, slug=None):
        """Organiser or staff: close the ladder for good; its matches, ratings and seasons stay readable."""
        ladder = services.ladder_archive(ladder_id=services.ladder_get(slug=slug).pk, by=request.user)
        return Response(LadderSerializer(ladder).data)

    @extend_schema(request=JoinSerializer, responses={201: LeaderboardEntrySerializer})
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def join(self, request, slug=None):
        """Enter yourself, or (as the ladder's organiser) one of the game's bots. Joining again after
        missed matches paused your entry brings it back."""
        ladder = services.ladder_get(slug=slug)
        body = JoinSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        bot = body.validated_data.get("bot", "")
        if bot and not _may_manage(request.user, ladder):
            raise Forbidden("only the ladder's organiser enters bots", code="ladder/not_organiser")
        entry = services.ladder_join(
            ladder=ladder,
            user=None if bot else request.user,
            bot=bot,
            deck_share_id=body.validated_data.get("deck"),
        )
        row = selectors.leaderboard_row(entry=entry, ladder=ladder, position=None)
        return Response(LeaderboardEntrySerializer(row).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={204: OpenApiResponse(description="Left.")})
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def leave(self, request, slug=None):
        """Leave the ladder; your rating and history stay, and come back if you rejoin."""
        services.ladder_leave(ladder=services.ladder_get(slug=slug), user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        responses=LeaderboardEntrySerializer(many=True),
        parameters=[
            OpenApiParameter("include_left", bool, description="Also the entries that left."),
            OpenApiParameter(
                "include_inactive", bool, description="Also the entries that have not played lately."
            ),
        ],
    )
    @action(detail=True, methods=["get"])
    def leaderboard(self, request, slug=None):
        """Ordered by the conservative ordinal (mu - 3 sigma), then entry id; `provisional` marks
        unsettled ratings by the ladder's rule. Entries that left or have not played for the ladder's
        `inactive_after_days` are left out unless asked for."""
        ladder = services.ladder_get(slug=slug)
        # The URI carries the flags and the page, and the host of the page links.
        key = (ladder.pk, ladder.revision, request.build_absolute_uri())
        return Response(read_caches.LEADERBOARDS.get_or_build(key, lambda: self._leaderboard_built(ladder)))

    def _leaderboard_built(self, ladder: Ladder) -> Built:
        now = timezone.now()  # before the rows are read: an entry that turns inactive meanwhile expires it
        changes_at = selectors.leaderboard_changes_at(ladders=[ladder], now=now)
        entries = selectors.entries_ranked(
            ladder=ladder,
            include_left=_query_flag(self.request, "include_left"),
            include_inactive=_query_flag(self.request, "include_inactive"),
        )
        page = self.paginate_queryset(entries)
        rows = leaderboard_rows(ladder, page, first=self.paginator.offset + 1)
        return read_caches.json_built(
            self.get_paginated_response(rows).data,
            expires_at=None if changes_at is None else changes_at.timestamp(),
        )

    @extend_schema(responses=LadderEntryDetailSerializer)
    @action(detail=True, methods=["get"], url_path=r"entries/(?P<entry_id>\d+)")
    def entry(self, request, slug=None, entry_id=None):
        """One entry: its rating and state, its missed matches in a row and its forfeits by reason."""
        ladder = services.ladder_get(slug=slug)
        entry = selectors.entry_get(ladder=ladder, entry_id=_entry_id(entry_id))
        row = {
            **selectors.leaderboard_row(entry=entry, ladder=ladder, position=None),
            "season": entry.season,
            "no_shows": entry.no_shows,
            "paused_at": entry.paused_at,
            "joined_at": entry.joined_at,
            "forfeits": selectors.entry_forfeits(entry=entry),
            "deck_violations": selectors.entry_deck_violations(entry=entry),
        }
        return Response(LadderEntryDetailSerializer(row).data)

    @extend_schema(request=None, responses={200: LeaderboardEntrySerializer})
    @action(
        detail=True,
        methods=["post"],
        url_path=r"entries/(?P<entry_id>\d+)/resume",
        permission_classes=[permissions.IsAuthenticated],
    )
    def entry_resume(self, request, slug=None, entry_id=None):
        """The entry's owner (or the organiser, or staff): back into matchmaking after a pause."""
        ladder = services.ladder_get(slug=slug)
        entry = services.entry_resume(
            entry_id=selectors.entry_get(ladder=ladder, entry_id=_entry_id(entry_id)).pk, by=request.user
        )
        return Response(
            LeaderboardEntrySerializer(
                selectors.leaderboard_row(entry=entry, ladder=ladder, position=None)
            ).data
        )

    @extend_schema(responses=RatingChangeSerializer(many=True))
    @action(detail=True, methods=["get"], url_path=r"entries/(?P<entry_id>\d+)/history")
    def history(self, request, slug=None, entry_id=None):
        """One competitor's rating (mu, sigma, ordinal) before and after each of its rated matches,
        newest first, each with its match."""
        ladder = services.ladder_get(slug=slug)
        entry = selectors.entry_get(ladder=ladder, entry_id=_entry_id(entry_id))
        page = self.paginate_queryset(selectors.entry_history(entry=entry))
        return self.get_paginated_response(RatingChangeSerializer(page, many=True).data)

    @extend_schema(responses=HeadToHeadSerializer(many=True))
    @action(detail=True, methods=["get"], url_path=r"entries/(?P<entry_id>\d+)/head-to-head")
    def head_to_head(self, request, slug=None, entry_id=None):
        """The entry's record against each opponent in rated matches, most-met first."""
        ladder = services.ladder_get(slug=slug)
        entry = selectors.entry_get(ladder=ladder, entry_id=_entry_id(entry_id))
        page = self.paginate_queryset(selectors.entry_head_to_head(entry=entry))
        names = {
            opponent.pk: opponent.label
            for opponent in LadderEntry.objects.select_related("user").filter(
                pk__in=[row["entry"] for row in page]
            )
        }
        rows = [{**row, "competitor": names[row["entry"]]} for row in page]
        return self.get_paginated_response(HeadToHeadSerializer(rows, many=True).data)

    @extend_schema(
        responses=LadderMatchSerializer(many=True),
        parameters=[OpenApiParameter("status", str, enum=["running", "finished"])],
    )
    @action(detail=True, methods=["get"])
    def matches(self, request, slug=None):
        """The ladder's matches, newest first, each with every seat's entry; `?status=running|finished`."""
        ladder = services.ladder_get(slug=slug)
        queryset = selectors.ladder_matches(ladder=ladder)
        wanted = request.query_params.get("status")
        if wanted:
            if wanted not in ("running", "finished"):
                raise ApplicationError("status is running or finished", code="request/invalid_query")
            queryset = queryset.filter(match__status=wanted)
        page = self.paginate_queryset(queryset)
        return self.get_paginated_response(LadderMatchSerializer(_ladder_match_rows(page), many=True).data)

    @extend_schema(responses=SeasonSerializer(many=True))
    @action(detail=True, methods=["get"])
    def seasons(self, request, slug=None):
        """The archive of closed seasons and their final leaderboards, newest first."""
        ladder = services.ladder_get(slug=slug)
        page = self.paginate_queryset(ladder.seasons.order_by("-number"))
        return self.get_paginated_response(SeasonSerializer(page, many=True).data)

    @extend_schema(request=None, responses={201: SeasonSerializer})
    @action(
        detail=True,
        methods=["post"],
        url_path="seasons/close",
        permission_classes=[permissions.IsAuthenticated],
    )
    def close_season(self, request, slug=None):
        """Organiser or staff: archive the season's leaderboard and start the next (docs/ratings.md,
        "Seasons": mu kept, sigma inflated, unless the ladder carries ratings over)."""
        ladder = services.ladder_get(slug=slug)
        archived = ladder_season_close(ladder_id=ladder.pk, by=request.user)
        return Response(SeasonSerializer(archived).data, status=status.HTTP_201_CREATED)

    @extend_schema(methods=["GET"], request=None, responses={200: LadderRoundRowSerializer(many=True)})
    @extend_schema(methods=["POST"], request=None, responses={201: LadderRoundSerializer})
    @action(detail=True, methods=["get", "post"], permission_classes=[permissions.IsAuthenticatedOrReadOnly])
    def rounds(self, request, slug=None):
        """GET: the ladder's rounds, newest first. POST (organisers): pair and start a round now,
        without waiting for the schedule."""
        ladder = services.ladder_get(slug=slug)
        if request.method == "GET":
            page = self.paginate_queryset(selectors.ladder_rounds(ladder=ladder))
            return self.get_paginated_response(LadderRoundRowSerializer(page, many=True).data)
        if not _may_manage(request.user, ladder):
            raise Forbidden("only the ladder's organiser starts rounds", code="ladder/not_organiser")
        result = ladder_round_create(ladder_id=ladder.pk)
        return Response(
            {
                "round": result.round.number if result.round else None,
                "matches": [match.pk for match in result.matches],
            },
            status=status.HTTP_201_CREATED,
        )

    @extend_schema(responses=LadderMatchSerializer(many=True))
    @action(detail=True, methods=["get"], url_path=r"rounds/(?P<season>\d+)/(?P<number>\d+)/matches")
    def round_matches(self, request, slug=None, season=None, number=None):
        """One round's matches (by season and number), each with every seat's entry."""
        ladder = services.ladder_get(slug=slug)
        ladder_round = selectors.ladder_round_get(
            ladder=ladder, season=_bounded(season), number=_bounded(number)
        )
        page = self.paginate_queryset(ladder_round.matches.select_related("match", "round").order_by("pk"))
        return self.get_paginated_response(LadderMatchSerializer(_ladder_match_rows(page), many=True).data)


def _bounded(digits: str, *, code: str = "round/not_found", maximum: int = INT_MAX) -> int:
    """A path's number, or a 404 past what its column holds (never a database error)."""
    if len(digits) > 19 or int(digits) > maximum:
        raise NotFound("no such thing here", code=code)
    return int(digits)


def _entry_id(digits: str) -> int:
    return _bounded(digits, code="entry/not_found", maximum=2**63 - 1)


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
        fields = [
            "id",
            "ladder",
            "game",
            "competitor",
            "mu",
            "sigma",
            "ordinal",
            "games",
            "provisional",
            "joined_at",
            "left_at",
        ]

    def get_provisional(self, entry: LadderEntry) -> bool:
        return selectors.entry_is_provisional(entry=entry, ladder=entry.ladder)


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
