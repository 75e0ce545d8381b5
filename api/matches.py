"""The match API: create a match, see it through a seat, act, forfeit, read the log and verify it. Thin views:
parse, call `matches.services`, `matches.selectors` or (a match with saved decks) `flows.match_with_decks`,
serialise. No game logic lives here."""

from __future__ import annotations

import django_filters
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from api.limits import INT_MAX, MAX_IDEMPOTENCY_KEY, MAX_SEATS, BoundedIsoDateTimeFilter, query_int
from api.schema import errors
from api.throttles import ActionThrottle, CreateThrottle, throttled_on
from core.errors import Forbidden, NotFound, Rejected
from engines.registry import game_keys
from flows.match_with_decks import match_create_with_decks
from matches import selectors, services
from matches.models import Match, MatchSeat

SEAT_PARAMETER = OpenApiParameter(
    "seat", int, description="Which of your seats to see through, when you hold several."
)


# --- serializers ----------------------------------------------------------------------------------


class MatchSeatSerializer(serializers.ModelSerializer):
    user = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True, help_text="null: a bot's seat."
    )

    class Meta:
        model = MatchSeat
        fields = ["index", "user", "bot"]


class MatchSerializer(serializers.ModelSerializer):
    seats = MatchSeatSerializer(many=True, read_only=True)
    seq = serializers.IntegerField(
        read_only=True, help_text="Sequence number of the last event (0: none yet)."
    )
    seed = serializers.SerializerMethodField(
        help_text="The secret seed, revealed once the match is finished."
    )
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)

    class Meta:
        model = Match
        fields = [
            "id",
            "game",
            "engine_version",
            "options",
            "status",
            "seats",
            "seq",
            "seed_commitment",
            "seed",
            "entropy",
            "outcome",
            "created_by",
            "created_at",
            "finished_at",
        ]

    def get_seed(self, match: Match) -> str | None:
        return bytes(match.seed).hex() if match.is_over else None


class SeatRequestSerializer(serializers.Serializer):
    user = serializers.CharField(required=False, max_length=150, help_text="A username.")
    bot = serializers.CharField(
        required=False, max_length=40, help_text="A built-in bot of the game, e.g. 'heuristic'."
    )
    deck = serializers.CharField(
        required=False,
        max_length=40,
        help_text="Games played with decks (Rag'n'Guns): the share id of the seat user's saved deck, "
        "which must be "
        "legal in the match's format; it is frozen for the match. A bot brings its own.",
    )
    deck_version = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=INT_MAX,
        help_text="Which version of `deck` (default: its current one).",
    )


class MatchCreateSerializer(serializers.Serializer):
    game = serializers.ChoiceField(choices=[])
    options = serializers.DictField(required=False, default=dict, help_text="Rule variants; see /api/games/.")
    seats = SeatRequestSerializer(
        many=True,
        max_length=MAX_SEATS,
        help_text='In ring order, e.g. [{"user": "demo"}, {"bot": "heuristic"}]: you and bots '
        "(others accept a challenge).",
    )
    entropy = serializers.ChoiceField(
        choices=["auto", "server", "contributed"],
        required=False,
        default="auto",
        help_text="What chance is drawn from: the committed seed alone (server), or mixed with "
        "a part each seat "
        "commits to and reveals before the first chance event (contributed); auto: contributed when a person "
        "holds a seat. See docs/fairness.md.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = game_keys()

    def validate_seats(self, seats):
        for index, seat in enumerate(seats):
            if ("user" in seat) == ("bot" in seat):
                raise serializers.ValidationError(f'seat {index}: give exactly one of "user" or "bot"')
            if "deck_version" in seat and "deck" not in seat:
                raise serializers.ValidationError(f'seat {index}: "deck_version" goes with a "deck"')
        return seats


class ActionSubmitSerializer(serializers.Serializer):
    expected_seq = serializers.IntegerField(
        min_value=0,
        max_value=INT_MAX,
        help_text="The seq of the last event you saw; a stale one is refused with 409.",
    )
    action = serializers.DictField(help_text='A JSON object with a "type"; see legal-actions.')
    seat = serializers.IntegerField(
        required=False,
        min_value=0,
        max_value=MAX_SEATS,
        help_text="Only needed when you hold several seats in this match.",
    )
    idempotency_key = serializers.CharField(
        required=False,
        max_length=MAX_IDEMPOTENCY_KEY,
        help_text="Retry-safe key (or the Idempotency-Key header): the same key twice writes once.",
    )


class ForfeitSerializer(serializers.Serializer):
    seat = serializers.IntegerField(required=False, min_value=0, max_value=MAX_SEATS)
    reason = serializers.CharField(required=False, default="resigned", max_length=200)


class EntropySubmitSerializer(serializers.Serializer):
    commitment = serializers.CharField(
        required=False,
        max_length=64,
        help_text="While the commit window is open: SHA-256 (hex) of your value's hex text, e.g. "
        '`printf %s "$VALUE" | sha256sum`.',
    )
    value = serializers.CharField(
        required=False, max_length=64, help_text="Once every seat has committed: your value, 64 hex digits."
    )
    seat = serializers.IntegerField(
        required=False,
        min_value=0,
        max_value=MAX_SEATS,
        help_text="Only needed when you hold several seats in this match.",
    )

    def validate(self, data):
        if ("commitment" in data) == ("value" in data):
            raise serializers.ValidationError('send exactly one of "commitment" or "value"')
        return data


class EventSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    kind = serializers.CharField()
    seat = serializers.IntegerField(allow_null=True)
    payload = serializers.JSONField(allow_null=True, help_text="null while it is hidden from you.")
    redacted = serializers.BooleanField()
    describe = serializers.CharField(
        help_text='The event as one sentence from your side ("you drew Machete", "bob drew a card"), '
        "made from the payload as you see it: a hidden payload stays out of it."
    )
    actor = serializers.CharField(allow_null=True)
    created_at = serializers.DateTimeField()


class DecisionSerializer(serializers.Serializer):
    kind = serializers.CharField(help_text="turn, simultaneous, response, chance or over")
    seats = serializers.ListField(child=serializers.IntegerField())
    prompt = serializers.CharField()


class SeatViewSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    seat = serializers.IntegerField(allow_null=True, help_text="null: you see as a spectator.")
    status = serializers.CharField()
    decision = DecisionSerializer()
    view = serializers.JSONField()
    legal_actions = serializers.ListField(child=serializers.JSONField())
    entropy = serializers.JSONField(
        allow_null=True,
        help_text="Where the seats' entropy stands (phase commit/reveal/done, awaited seats, commitments, "
        "deadline); "
        "null when chance comes from the seed alone.",
    )


class ActionResultSerializer(SeatViewSerializer):
    event = EventSerializer()
    events = EventSerializer(many=True, help_text="Your event and everything appended after it.")
    replayed = serializers.BooleanField()


class VerificationSerializer(serializers.Serializer):
    verified = serializers.BooleanField()
    seed = serializers.CharField()
    seed_commitment = serializers.CharField()
    chance_events_checked = serializers.IntegerField()
    events_replayed = serializers.IntegerField()
    problems = serializers.ListField(child=serializers.CharField())
    entropy = serializers.CharField(help_text="server or contributed")
    parts = serializers.ListField(
        child=serializers.CharField(allow_null=True), help_text="Each seat's part (hex)."
    )
    lapsed = serializers.DictField(child=serializers.CharField(), help_text="Seat -> the step it missed.")


class ExportSerializer(serializers.Serializer):
    format = serializers.CharField(help_text='"snakepit-match/1"')
    id = serializers.IntegerField()
    game = serializers.CharField()
    engine_version = serializers.CharField()
    options = serializers.JSONField()
    seats = serializers.ListField(child=serializers.JSONField())
    entropy = serializers.CharField()
    seed_commitment = serializers.CharField()
    seed = serializers.CharField()
    status = serializers.CharField()
    outcome = serializers.JSONField(allow_null=True)
    events = serializers.ListField(
        child=serializers.JSONField(), help_text="seq, kind, seat, payload; a chance event also its request."
    )


# --- views ----------------------------------------------------------------------------------------


class MatchFilter(django_filters.FilterSet):
    game = django_filters.CharFilter()
    status = django_filters.ChoiceFilter(choices=Match.Status.choices)
    player = django_filters.CharFilter(field_name="seats__user__username", label="Username holding a seat")
    bot = django_filters.CharFilter(field_name="seats__bot", label="Bot holding a seat")
    created_after = BoundedIsoDateTimeFilter(field_name="created_at", lookup_expr="gte")
    created_before = BoundedIsoDateTimeFilter(field_name="created_at", lookup_expr="lt")

    class Meta:
        model = Match
        fields = ["game", "status", "player", "bot", "created_after", "created_before"]


def _optional_int(request: Request, name: str) -> int | None:
    return query_int(request, name)


def seat_view(match: Match, seat: int | None, snapshot: selectors.MatchSnapshot | None = None) -> dict:
    """What `seat` sees of the match at `snapshot` (default: the log's head, read now)."""
    snapshot = snapshot or selectors.match_snapshot(match)
    game = selectors.match_game(match)
    decision = game.decision(snapshot.state)
    return {
        "seq": snapshot.seq,
        "seat": seat,
        "status": match.status,
        "decision": decision.to_json(),
        "view": game.view(snapshot.state, seat),
        "legal_actions": game.legal_actions(snapshot.state, seat) if seat is not None else [],
        "entropy": selectors.match_entropy_status(match),
    }


class MatchViewSet(viewsets.GenericViewSet):
    """Matches: each an append-only event log replayed by its game's engine."""

    filterset_class = MatchFilter
    lookup_value_regex = "[0-9]+"
    get_throttles = throttled_on(create=CreateThrottle, submit_action=ActionThrottle, entropy=ActionThrottle)

    def get_queryset(self):
        return selectors.match_list()

    def get_serializer_class(self):
        return {
            "create": MatchCreateSerializer,
            "submit_action": ActionSubmitSerializer,
            "forfeit": ForfeitSerializer,
            "entropy": EntropySubmitSerializer,
        }.get(self.action, MatchSerializer)

    def _match(self) -> Match:
        return selectors.match_get(match_id=int(self.kwargs["pk"]))

    def list(self, request):
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        return self.get_paginated_response(MatchSerializer(page, many=True).data)

    def _annotated(self, match_id: int) -> Match:
        match = self.get_queryset().filter(pk=match_id).first()
        if match is None:
            raise NotFound(f"no match {match_id}", code="match/not_found")
        return match

    def retrieve(self, request, pk=None):
        return Response(MatchSerializer(self._annotated(int(pk))).data)

    @extend_schema(request=MatchCreateSerializer, responses={201: MatchSerializer})
    def create(self, request):
        body = MatchCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        match = match_create_with_decks(
            game_key=body.validated_data["game"],
            options=body.validated_data["options"],
            seats=body.validated_data["seats"],
            created_by=request.user,
            entropy=body.validated_data["entropy"],
        )
        return Response(MatchSerializer(self._annotated(match.pk)).data, status=status.HTTP_201_CREATED)

    @extend_schema(parameters=[SEAT_PARAMETER], responses=SeatViewSerializer)
    @action(detail=True, methods=["get"], permission_classes=[permissions.AllowAny])
    def view(self, request, pk=None):
        """What you may see now: your seat's view, whose decision it is, and your legal actions."""
        match = self._match()
        seat = selectors.match_viewer_seat(match, request.user, _optional_int(request, "seat"))
        return Response(seat_view(match, seat))

    @extend_schema(parameters=[SEAT_PARAMETER], responses=SeatViewSerializer)
    @action(detail=True, methods=["get"], url_path="legal-actions")
    def legal_actions(self, request, pk=None):
        return self.view(request, pk)

    @extend_schema(
        parameters=[
            SEAT_PARAMETER,
            OpenApiParameter("after", int, description="Only events after this seq."),
        ],
        responses=EventSerializer(many=True),
    )
    @action(detail=True, methods=["get"], permission_classes=[permissions.AllowAny], pagination_class=None)
    def events(self, request, pk=None):
        """The log; payloads hidden from you stay hidden until the match ends."""
        match = self._match()
        seat = selectors.match_viewer_seat(match, request.user, _optional_int(request, "seat"))
        listing = selectors.match_event_listing(
            match, viewer_seat=seat, after=_optional_int(request, "after") or 0
        )
        return Response(EventSerializer(listing, many=True).data)

    @extend_schema(
        request=ActionSubmitSerializer, responses={201: ActionResultSerializer, 200: ActionResultSerializer}
    )
    @action(
        detail=True, methods=["post"], url_path="actions", permission_classes=[permissions.IsAuthenticated]
    )
    def submit_action(self, request, pk=None):
        """Act for your seat. Send the seq you last saw; chance and bots answer before this returns."""
        body = ActionSubmitSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        idempotency_key = data.get("idempotency_key") or request.headers.get("Idempotency-Key")
        if idempotency_key and len(idempotency_key) > MAX_IDEMPOTENCY_KEY:
            raise Rejected(
                f"an idempotency key is at most {MAX_IDEMPOTENCY_KEY} characters",
                code="idempotency/key_too_long",
                status=400,
            )
        result = services.match_submit_action(
            match_id=int(pk),
            user=request.user,
            action=data["action"],
            expected_seq=data["expected_seq"],
            seat=data.get("seat"),
            idempotency_key=idempotency_key,
        )
        match = result.match
        seat = result.event.seat
        events = selectors.match_event_listing(match, viewer_seat=seat, after=result.event.seq - 1)
        # The state this append left is still the head unless the listing shows later events (another
        # writer's since); then, or for a replayed key, the head is read as any view reads it.
        left = result.snapshot
        response = seat_view(match, seat, left if left and events[-1]["seq"] == left.seq else None)
        response["events"] = events
        response["event"] = events[0]
        response["replayed"] = result.replayed
        headers = {"Idempotent-Replayed": "true"} if result.replayed else {}
        code = status.HTTP_200_OK if result.replayed else status.HTTP_201_CREATED
        return Response(ActionResultSerializer(response).data, status=code, headers=headers)

    @extend_schema(request=ForfeitSerializer, responses={201: SeatViewSerializer})
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def forfeit(self, request, pk=None):
        """Resign your seat: the match records the forfeit and ranks you last."""
        body = ForfeitSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        match = self._match()
        seat = body.validated_data.get("seat")
        if seat is None:
            seat = selectors.match_viewer_seat(match, request.user, None)
        if seat is None:
            raise Forbidden("you hold no seat in this match", code="seat/not_yours")
        result = services.match_forfeit(
            match_id=match.pk, seat=seat, reason=body.validated_data["reason"], user=request.user
        )
        return Response(seat_view(result.match, seat), status=status.HTTP_201_CREATED)

    @extend_schema(responses=VerificationSerializer, extensions=errors(409))
    @action(detail=True, methods=["get"], permission_classes=[permissions.AllowAny])
    def verify(self, request, pk=None):
        """Re-derive every chance event of a finished match from its revealed seed and replay the log."""
        return Response(selectors.match_verify(self._match()).as_dict())

    @extend_schema(request=EntropySubmitSerializer, responses={201: SeatViewSerializer})
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def entropy(self, request, pk=None):
        """Your seat's part of the chance: first your commitment, then, once every seat has committed,
        your value. The step that completes the parts lets chance and bots play on before this returns."""
        body = EntropySubmitSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        result = services.match_entropy_submit(
            match_id=int(pk),
            user=request.user,
            commitment=data.get("commitment"),
            value=data.get("value"),
            seat=data.get("seat"),
        )
        return Response(seat_view(result.match, result.event.seat), status=status.HTTP_201_CREATED)

    @extend_schema(responses=ExportSerializer, extensions=errors(409))
    @action(detail=True, methods=["get"], permission_classes=[permissions.AllowAny])
    def export(self, request, pk=None):
        """The whole match once it is over, for docs/verify_match.py: set-up, revealed seed, every event, and
        what each chance event was drawn for. Checkable with Python alone, without Snakepit."""
        return Response(selectors.match_export(self._match()))


routes = [("matches", MatchViewSet, "match")]
