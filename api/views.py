"""Thin views: parse, call a service or selector, serialise. No game logic lives here."""

from __future__ import annotations

import django_filters
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import permissions, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from api import serializers as s
from engines.errors import UnknownGame
from engines.registry import all_games, get_game
from snakepit.errors import Forbidden, NotFound, Rejected
from tournaments import selectors, services
from tournaments.models import Match

SEAT_PARAMETER = OpenApiParameter(
    "seat", int, description="Which of your seats to see through, when you hold several."
)


class GameViewSet(viewsets.ViewSet):
    """The registered games, their player ranges, options (rule variants) and bots."""

    permission_classes = [permissions.AllowAny]
    lookup_value_regex = "[a-z0-9-]+"

    def list(self, request):
        return Response([game.describe() for game in all_games()])

    def retrieve(self, request, pk=None):
        try:
            return Response(get_game(pk).describe())
        except UnknownGame as error:
            raise NotFound(error.detail, code=error.code) from None


class MatchFilter(django_filters.FilterSet):
    game = django_filters.CharFilter()
    status = django_filters.ChoiceFilter(choices=Match.Status.choices)
    player = django_filters.CharFilter(field_name="seats__user__username", label="Username holding a seat")
    bot = django_filters.CharFilter(field_name="seats__bot", label="Bot holding a seat")
    created_after = django_filters.IsoDateTimeFilter(field_name="created_at", lookup_expr="gte")
    created_before = django_filters.IsoDateTimeFilter(field_name="created_at", lookup_expr="lt")

    class Meta:
        model = Match
        fields = ["game", "status", "player", "bot", "created_after", "created_before"]


def _optional_int(request: Request, name: str) -> int | None:
    raw = request.query_params.get(name)
    if raw in (None, ""):
        return None
    try:
        return int(raw)
    except ValueError:
        raise Rejected(f"{name} must be a whole number", code="request/invalid") from None


def _seat_view(match: Match, seat: int | None) -> dict:
    snapshot = selectors.match_snapshot(match)
    game = selectors.match_game(match)
    decision = game.decision(snapshot.state)
    return {
        "seq": snapshot.seq,
        "seat": seat,
        "status": match.status,
        "decision": decision.to_json(),
        "view": game.view(snapshot.state, seat),
        "legal_actions": game.legal_actions(snapshot.state, seat) if seat is not None else [],
    }


class MatchViewSet(viewsets.GenericViewSet):
    """Matches: each an append-only event log replayed by its game's engine."""

    filterset_class = MatchFilter
    lookup_value_regex = "[0-9]+"

    def get_queryset(self):
        return selectors.match_list()

    def get_serializer_class(self):
        return {
            "create": s.MatchCreateSerializer,
            "submit_action": s.ActionSubmitSerializer,
            "forfeit": s.ForfeitSerializer,
        }.get(self.action, s.MatchSerializer)

    def _match(self) -> Match:
        return selectors.match_get(match_id=int(self.kwargs["pk"]))

    def list(self, request):
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        return self.get_paginated_response(s.MatchSerializer(page, many=True).data)

    def _annotated(self, match_id: int) -> Match:
        match = self.get_queryset().filter(pk=match_id).first()
        if match is None:
            raise NotFound(f"no match {match_id}", code="match/not_found")
        return match

    def retrieve(self, request, pk=None):
        return Response(s.MatchSerializer(self._annotated(int(pk))).data)

    @extend_schema(request=s.MatchCreateSerializer, responses={201: s.MatchSerializer})
    def create(self, request):
        body = s.MatchCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        match = services.match_create(
            game_key=body.validated_data["game"],
            options=body.validated_data["options"],
            seats=services.seat_specs_from_request(body.validated_data["seats"]),
            created_by=request.user,
        )
        return Response(s.MatchSerializer(self._annotated(match.pk)).data, status=status.HTTP_201_CREATED)

    @extend_schema(parameters=[SEAT_PARAMETER], responses=s.SeatViewSerializer)
    @action(detail=True, methods=["get"], permission_classes=[permissions.AllowAny])
    def view(self, request, pk=None):
        """What you may see now: your seat's view, whose decision it is, and your legal actions."""
        match = self._match()
        seat = selectors.match_viewer_seat(match, request.user, _optional_int(request, "seat"))
        return Response(_seat_view(match, seat))

    @extend_schema(parameters=[SEAT_PARAMETER], responses=s.SeatViewSerializer)
    @action(detail=True, methods=["get"], url_path="legal-actions")
    def legal_actions(self, request, pk=None):
        return self.view(request, pk)

    @extend_schema(
        parameters=[SEAT_PARAMETER, OpenApiParameter("after", int, description="Only events after this seq.")],
        responses=s.EventSerializer(many=True),
    )
    @action(detail=True, methods=["get"], permission_classes=[permissions.AllowAny])
    def events(self, request, pk=None):
        """The log; payloads hidden from you stay hidden until the match ends."""
        match = self._match()
        seat = selectors.match_viewer_seat(match, request.user, _optional_int(request, "seat"))
        listing = selectors.match_event_listing(match, viewer_seat=seat, after=_optional_int(request, "after") or 0)
        return Response(s.EventSerializer(listing, many=True).data)

    @extend_schema(request=s.ActionSubmitSerializer, responses={201: s.ActionResultSerializer, 200: s.ActionResultSerializer})
    @action(detail=True, methods=["post"], url_path="actions", permission_classes=[permissions.IsAuthenticated])
    def submit_action(self, request, pk=None):
        """Act for your seat. Send the seq you last saw; chance and bots answer before this returns."""
        body = s.ActionSubmitSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        result = services.match_submit_action(
            match_id=int(pk),
            user=request.user,
            action=data["action"],
            expected_seq=data["expected_seq"],
            seat=data.get("seat"),
            idempotency_key=data.get("idempotency_key") or request.headers.get("Idempotency-Key"),
        )
        match = result.match
        seat = result.event.seat
        response = _seat_view(match, seat)
        response["events"] = selectors.match_event_listing(match, viewer_seat=seat, after=result.event.seq - 1)
        response["event"] = response["events"][0]
        response["replayed"] = result.replayed
        headers = {"Idempotent-Replayed": "true"} if result.replayed else {}
        code = status.HTTP_200_OK if result.replayed else status.HTTP_201_CREATED
        return Response(s.ActionResultSerializer(response).data, status=code, headers=headers)

    @extend_schema(request=s.ForfeitSerializer, responses={201: s.SeatViewSerializer})
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def forfeit(self, request, pk=None):
        """Resign your seat: the match records the forfeit and ranks you last."""
        body = s.ForfeitSerializer(data=request.data)
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
        return Response(_seat_view(result.match, seat), status=status.HTTP_201_CREATED)

    @extend_schema(responses=s.VerificationSerializer)
    @action(detail=True, methods=["get"], permission_classes=[permissions.AllowAny])
    def verify(self, request, pk=None):
        """Re-derive every chance event of a finished match from its revealed seed and replay the log."""
        return Response(selectors.match_verify(self._match()).as_dict())
