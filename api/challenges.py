"""Challenges through the API: seat other people in a match only with their consent. Thin views over
`matches.challenges`; saved decks (games that need one) are checked and frozen here, where the match
and deck apps meet."""

from __future__ import annotations

from django.db import transaction
from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from api.limits import INT_MAX, MAX_SEATS
from api.matches import SeatRequestSerializer, seat_deck_version
from api.throttles import CreateThrottle, throttled_on
from decks.models import DeckVersion
from decks.selectors import deck_version_brought
from decks.services import deck_version_freeze
from engines.registry import game_keys
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


def _deck_of(seat: dict, user, options: dict) -> tuple[dict, dict] | None:
    if "deck" not in seat:
        return None
    version = seat_deck_version(seat, user, options)
    return deck_version_brought(version), {"share_id": version.deck.share_id, "version": version.number}


def _freeze_decks(challenge: Challenge) -> None:
    """Once the match exists, the deck versions its seats brought can never be deleted."""
    if challenge.match_id is None:
        return
    for seat in challenge.seats.exclude(deck_ref=None):
        version = DeckVersion.objects.get(
            deck__share_id=seat.deck_ref["share_id"], number=seat.deck_ref["version"]
        )
        deck_version_freeze(deck_version=version, purpose=f"match {challenge.match_id}")


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
    @transaction.atomic
    def create(self, request):
        body = ChallengeCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        own_decks = {}
        for index, seat in enumerate(data["seats"]):
            if seat.get("user") == request.user.get_username():
                deck = _deck_of(seat, request.user, data["options"])
                if deck is not None:
                    own_decks[index] = deck
        challenge = challenges.challenge_create(
            created_by=request.user,
            game_key=data["game"],
            options=data["options"],
            seats=[{key: seat[key] for key in ("user", "bot") if key in seat} for seat in data["seats"]],
            decks=own_decks,
        )
        _freeze_decks(challenge)
        return Response(ChallengeSerializer(challenge).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=ChallengeAcceptSerializer, responses={200: ChallengeSerializer})
    @action(detail=True, methods=["post"])
    @transaction.atomic
    def accept(self, request, pk=None):
        """Take your seat (with your saved deck where the game needs one); the last yes starts the match."""
        body = ChallengeAcceptSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        challenge = challenges.challenge_get_for(challenge_id=int(pk), user=request.user)
        deck = _deck_of(body.validated_data, request.user, challenge.options)
        challenge = challenges.challenge_accept(
            challenge_id=challenge.pk,
            user=request.user,
            deck=deck[0] if deck else None,
            deck_ref=deck[1] if deck else None,
        )
        _freeze_decks(challenge)
        return Response(ChallengeSerializer(challenge).data)

    @extend_schema(request=None, responses={200: ChallengeSerializer})
    @action(detail=True, methods=["post"])
    def decline(self, request, pk=None):
        """Say no (or, as its challenger, withdraw it)."""
        return Response(
            ChallengeSerializer(challenges.challenge_decline(challenge_id=int(pk), user=request.user)).data
        )


routes = [("challenges", ChallengeViewSet, "challenge")]
