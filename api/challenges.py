"""Challenges through the API: seat other people in a match only with their consent. Thin views over
`matches.challenges`; seats that bring saved decks go through `flows.challenge_with_decks`."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from api.limits import INT_MAX, MAX_SEATS
from api.matches import SeatRequestSerializer
from api.throttles import CreateThrottle, throttled_on
from engines.registry import game_keys
from flows.challenge_with_decks import challenge_accept_with_deck, challenge_create_with_decks
from matches import challenges
from matches.models import Challenge


class ChallengeSeatSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    user = serializers.CharField(
        source="invited_name", allow_blank=True, help_text="The name as the challenger typed it."
    )
    bot = serializers.CharField(allow_blank=True)
    accepted = serializers.SerializerMethodField()

    def get_accepted(self, seat) -> bool:
        return bool(seat.bot) or seat.accepted_at is not None


class ChallengeSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    game = serializers.CharField()
    options = serializers.DictField()
    created_by = serializers.CharField(source="created_by.username")
    status = serializers.SerializerMethodField(
        help_text="pending, accepted (see match), declined, cancelled or expired"
    )
    match = serializers.IntegerField(source="match_id", allow_null=True)
    seats = ChallengeSeatSerializer(many=True)
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()

    def get_status(self, challenge) -> str:
        if challenge.status == Challenge.Status.PENDING and not challenges.challenge_is_open(challenge):
            return "expired"
        return challenge.status


class ChallengeCreateSerializer(serializers.Serializer):
    game = serializers.ChoiceField(choices=[])
    options = serializers.DictField(required=False, default=dict)
    seats = SeatRequestSerializer(
        many=True, max_length=MAX_SEATS, help_text="In seat order: you, other people, bots."
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = game_keys()

    def validate_seats(self, seats):
        for index, seat in enumerate(seats):
            if ("user" in seat) == ("bot" in seat):
                raise serializers.ValidationError(f'seat {index}: give exactly one of "user" or "bot"')
        return seats


class ChallengeAcceptSerializer(serializers.Serializer):
    deck = serializers.CharField(
        required=False, max_length=40, help_text="Games with decks: your saved deck's share id."
    )
    deck_version = serializers.IntegerField(required=False, min_value=1, max_value=INT_MAX)


class ChallengeViewSet(viewsets.GenericViewSet):
    """Invitations to a match. Yours, made or received; a match starts when everyone invited accepts."""

    permission_classes = [permissions.IsAuthenticated]
    serializer_class = ChallengeSerializer
    lookup_value_regex = "[0-9]+"
    get_throttles = throttled_on(create=CreateThrottle)
    queryset = Challenge.objects.none()  # for the schema; get_queryset is the truth

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # drf-spectacular inspecting, no real user
            return Challenge.objects.none()
        return challenges.challenge_list_for(user=self.request.user)

    def list(self, request):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(ChallengeSerializer(page, many=True).data)

    def retrieve(self, request, pk=None):
        return Response(
            ChallengeSerializer(challenges.challenge_get_for(challenge_id=int(pk), user=request.user)).data
        )

    @extend_schema(request=ChallengeCreateSerializer, responses={201: ChallengeSerializer})
    def create(self, request):
        body = ChallengeCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        challenge = challenge_create_with_decks(
            created_by=request.user, game_key=data["game"], options=data["options"], seats=data["seats"]
        )
        return Response(ChallengeSerializer(challenge).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=ChallengeAcceptSerializer, responses={200: ChallengeSerializer})
    @action(detail=True, methods=["post"])
    def accept(self, request, pk=None):
        """Take your seat (with your saved deck where the game needs one); the last yes starts the match."""
        body = ChallengeAcceptSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        challenge = challenge_accept_with_deck(
            challenge_id=int(pk), user=request.user, seat=body.validated_data
        )
        return Response(ChallengeSerializer(challenge).data)

    @extend_schema(request=None, responses={200: ChallengeSerializer})
    @action(detail=True, methods=["post"])
    def decline(self, request, pk=None):
        """Say no (or, as its challenger, withdraw it)."""
        return Response(
            ChallengeSerializer(challenges.challenge_decline(challenge_id=int(pk), user=request.user)).data
        )


routes = [("challenges", ChallengeViewSet, "challenge")]
