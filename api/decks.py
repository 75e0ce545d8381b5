"""Saved Rag'n'Guns decks under /api/decks/ (docs/api-decks.md): versions, export, diffs and sample
draws. Thin views over decks' selectors and services; a deck is sent as to the deck check
(api/catalogue.py)."""

from __future__ import annotations

import json
import secrets

import django_filters
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.renderers import BaseRenderer, BrowsableAPIRenderer, JSONRenderer
from rest_framework.response import Response

from api.catalogue import (
    FORMAT_PARAMETER,
    IDS_EXAMPLE,
    PASTED_EXAMPLE,
    DeckSubmissionSerializer,
    PlainTextParser,
    StrictCharField,
    ViolationSerializer,
    deck_submission,
    path_parameter,
)
from api.limits import query_int
from api.negotiation import FormatFilterNegotiation
from api.parsers import BoundedJSONParser
from api.throttles import CreateThrottle, throttled_on
from core.errors import NotFound
from decks import selectors as deck_selectors
from decks import services as deck_services
from decks.models import Deck, DeckVersion

# -- plain text out -------------------------------------------------------------------------------------


class PlainTextRenderer(BaseRenderer):
    """Lets `Accept: text/plain` reach the export; an error body is still the JSON `{"code", "detail"}`."""

    media_type = "text/plain"
    format = "txt"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if isinstance(data, str):
            return data.encode(self.charset)
        response = (renderer_context or {}).get("response")
        if response is not None:
            response["Content-Type"] = "application/json"
        return json.dumps(data, ensure_ascii=False).encode(self.charset)


# -- serializers ----------------------------------------------------------------------------------------


class DeckWriteSerializer(DeckSubmissionSerializer):
    name = StrictCharField(required=False, allow_blank=True, max_length=100)


class DeckCardCountSerializer(serializers.Serializer):
    card = serializers.CharField()
    name = serializers.CharField()
    copies = serializers.IntegerField()


class DeckChangeSerializer(serializers.Serializer):
    to = serializers.JSONField()
    changed = serializers.BooleanField()

    def get_fields(self):
        fields = super().get_fields()
        fields["from"] = serializers.JSONField()
        return fields


class DeckDiffSerializer(serializers.Serializer):
    to = serializers.IntegerField()
    cards_in = DeckCardCountSerializer(many=True)
    cards_out = DeckCardCountSerializer(many=True)
    gunslinger = DeckChangeSerializer()
    format = DeckChangeSerializer()
    legal = DeckChangeSerializer()

    def get_fields(self):
        fields = super().get_fields()
        fields["from"] = serializers.IntegerField()
        return fields


class DrawnCardSerializer(serializers.Serializer):
    card = serializers.CharField()
    name = serializers.CharField()


class DrawnTurnSerializer(serializers.Serializer):
    turn = serializers.IntegerField()
    cards = DrawnCardSerializer(many=True)


class SampleDrawsSerializer(serializers.Serializer):
    version = serializers.IntegerField()
    seed = serializers.CharField()
    turns = DrawnTurnSerializer(many=True)
    left_in_deck = serializers.IntegerField()


class DeckVersionSerializer(serializers.ModelSerializer):
    gunslinger = serializers.SerializerMethodField()
    frozen_for = serializers.SerializerMethodField()
    violations = ViolationSerializer(many=True, read_only=True)
    warnings = serializers.SerializerMethodField()

    class Meta:
        model = DeckVersion
        fields = [
            "number",
            "format",
            "catalogue_version",
            "gunslinger",
            "cards",
            "legal",
            "violations",
            "ban_list_version",
            "warnings",
            "source_text",
            "frozen_at",
            "frozen_for",
            "created_at",
        ]

    def get_gunslinger(self, version: DeckVersion) -> str | None:
        return version.gunslinger or None

    @extend_schema_field(ViolationSerializer(many=True))
    def get_warnings(self, version: DeckVersion) -> list[dict]:
        return deck_selectors.deck_version_warnings(version)

    def get_frozen_for(self, version: DeckVersion) -> list[str]:
        return version.frozen_for.splitlines()


class DeckSerializer(serializers.ModelSerializer):
    owner = serializers.SlugRelatedField(slug_field="username", read_only=True)
    version = serializers.IntegerField(
        source="current.number", read_only=True, help_text="The current version."
    )
    legal = serializers.BooleanField(
        source="current.legal", read_only=True, help_text="The current version's."
    )
    current = DeckVersionSerializer(read_only=True)

    class Meta:
        model = Deck
        fields = [
            "share_id",
            "name",
            "game",
            "owner",
            "created_at",
            "updated_at",
            "version",
            "legal",
            "current",
        ]


class FormatLegalitySerializer(serializers.Serializer):
    legal = serializers.BooleanField()
    ban_list_version = serializers.CharField(
        help_text="The format's ban list in effect now, checked against."
    )
    violations = ViolationSerializer(many=True)


class DeckDetailSerializer(DeckSerializer):
    legality = serializers.SerializerMethodField(
        help_text="The current version checked now in every format, under each format's ban list in effect."
    )

    class Meta(DeckSerializer.Meta):
        fields = [*DeckSerializer.Meta.fields, "legality"]

    @extend_schema_field(serializers.DictField(child=FormatLegalitySerializer()))
    def get_legality(self, deck: Deck) -> dict:
        return deck_selectors.deck_version_legality(deck.current)


# -- saved decks ----------------------------------------------------------------------------------------


class DeckFilter(django_filters.FilterSet):
    legal = django_filters.BooleanFilter(label="Whether the current version is legal")
    deck_format = django_filters.CharFilter(field_name="format", label="The current version's format key")
    format = django_filters.CharFilter(label="Deprecated spelling of deck_format")
    name = django_filters.CharFilter(lookup_expr="icontains")

    class Meta:
        model = Deck
        fields = ["legal", "deck_format", "format", "name"]


VERSION_PARAMETER = OpenApiParameter("version", int, description="A version number; default the current one.")


class DeckViewSet(viewsets.GenericViewSet):
    """Your saved Rag'n'Guns decks. Anyone with a deck's share id may read it; only its owner edits it.
    An edit adds a version; old versions stay readable."""

    get_throttles = throttled_on(create=CreateThrottle)

    lookup_field = "share_id"
    filterset_class = DeckFilter
    parser_classes = [BoundedJSONParser, PlainTextParser]
    content_negotiation_class = FormatFilterNegotiation
    serializer_class = DeckSerializer
    queryset = Deck.objects.none()  # for the schema; get_queryset is the truth

    def get_permissions(self):
        if self.action == "list":
            return [permissions.IsAuthenticated()]
        return super().get_permissions()

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # drf-spectacular inspecting, no real user
            return Deck.objects.none()
        return deck_selectors.deck_list_for_owner(owner=self.request.user)

    def _deck(self) -> Deck:
        return deck_selectors.deck_get_by_share_id(share_id=self.kwargs["share_id"])

    @staticmethod
    def _body(deck: Deck, current: DeckVersion | None = None) -> dict:
        deck.current = current or deck_selectors.deck_version_get(deck=deck)
        return DeckDetailSerializer(deck).data

    @extend_schema(responses=DeckSerializer(many=True))
    def list(self, request):
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        current = deck_selectors.deck_current_versions(page)
        for deck in page:
            deck.current = current.get(deck.pk)
        return self.get_paginated_response(DeckSerializer(page, many=True).data)

    @extend_schema(
        request={"application/json": DeckWriteSerializer, "text/plain": OpenApiTypes.STR},
        parameters=[FORMAT_PARAMETER, OpenApiParameter("name", str, description="With a text/plain body.")],
        responses={201: DeckDetailSerializer},
        examples=[IDS_EXAMPLE, PASTED_EXAMPLE],
    )
    def create(self, request):
        """Save a deck (checked; an illegal one is saved too, with `legal: false` and its violations)."""
        body = deck_submission(request, DeckWriteSerializer)
        version = deck_services.deck_create(
            owner=request.user,
            name=body.get("name", ""),
            format_key=body.get("format"),
            gunslinger=body.get("gunslinger"),
            cards=body.get("cards"),
            text=body.get("text"),
        )
        return Response(self._body(version.deck, version), status=status.HTTP_201_CREATED)

    @extend_schema(responses=DeckDetailSerializer)
    def retrieve(self, request, share_id=None):
        return Response(self._body(self._deck()))

    def _update(self, request, share_id, *, partial: bool):
        body = deck_submission(request, DeckWriteSerializer, partial=partial)
        if not partial and "cards" not in body and "text" not in body:
            raise deck_selectors.Malformed(
                'PUT sends the whole deck: "cards" or "text"', code="deck/no_cards"
            )
        extra = {"gunslinger": body["gunslinger"]} if "gunslinger" in body else {}
        version = deck_services.deck_update(
            share_id=share_id,
            user=request.user,
            name=body.get("name"),
            format_key=body.get("format"),
            cards=body.get("cards"),
            text=body.get("text"),
            **extra,
        )
        return Response(self._body(version.deck, version))

    @extend_schema(
        request={"application/json": DeckWriteSerializer, "text/plain": OpenApiTypes.STR},
        parameters=[FORMAT_PARAMETER],
        responses=DeckDetailSerializer,
    )
    def update(self, request, share_id=None):
        """Replace the deck: a new version (unless it is the same deck). Fields left out keep their value."""
        return self._update(request, share_id, partial=False)

    @extend_schema(request=DeckWriteSerializer, responses=DeckDetailSerializer)
    def partial_update(self, request, share_id=None):
        """Change part of the deck (the format alone re-checks it): a new version if the deck changed."""
        return self._update(request, share_id, partial=True)

    @extend_schema(responses={204: None})
    def destroy(self, request, share_id=None):
        """Delete the deck and its versions; refused (409 deck/frozen) once a version is entered somewhere."""
        deck_services.deck_delete(share_id=share_id, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(responses=DeckVersionSerializer(many=True))
    @action(detail=True, methods=["get"], permission_classes=[permissions.AllowAny], pagination_class=None)
    def versions(self, request, share_id=None):
        """Every version, oldest first."""
        return Response(
            DeckVersionSerializer(deck_selectors.deck_versions(deck=self._deck()), many=True).data
        )

    @extend_schema(
        parameters=[path_parameter("number", "A version number, from 1.", int)],
        responses=DeckVersionSerializer,
    )
    @action(
        detail=True,
        methods=["get"],
        url_path=r"versions/(?P<number>[^/.]+)",
        url_name="version",
        permission_classes=[permissions.AllowAny],
    )
    def version(self, request, share_id=None, number=None):
        deck = self._deck()
        return Response(
            DeckVersionSerializer(
                deck_selectors.deck_version_get(deck=deck, number=_version_number(number))
            ).data
        )

    @extend_schema(
        parameters=[VERSION_PARAMETER],
        responses={(200, "text/plain"): OpenApiResponse(OpenApiTypes.STR, description="The deck list.")},
    )
    @action(
        detail=True,
        methods=["get"],
        permission_classes=[permissions.AllowAny],
        renderer_classes=[JSONRenderer, PlainTextRenderer, BrowsableAPIRenderer],
    )
    def export(self, request, share_id=None):
        """The deck as a plain-text list; paste it into a deck check to get the same deck back."""
        deck = self._deck()
        version = deck_selectors.deck_version_get(
            deck=deck, number=_version_number(request.query_params.get("version"))
        )
        response = HttpResponse(
            deck_selectors.deck_export_text(deck=deck, version=version),
            content_type="text/plain; charset=utf-8",
        )
        response["Content-Disposition"] = f'inline; filename="{deck.share_id}-v{version.number}.txt"'
        return response

    @extend_schema(
        parameters=[
            OpenApiParameter("from", int, description="The older version; default the one before `to`."),
            OpenApiParameter("to", int, description="The newer version; default the current one."),
        ],
        responses=DeckDiffSerializer,
    )
    @action(detail=True, methods=["get"], permission_classes=[permissions.AllowAny])
    def diff(self, request, share_id=None):
        """Cards in and out between two versions, and whether the GUNSLINGER, format or verdict changed."""
        deck = self._deck()
        new = deck_selectors.deck_version_get(
            deck=deck, number=_version_number(request.query_params.get("to"))
        )
        raw_from = request.query_params.get("from")
        if raw_from in (None, "") and new.number == 1:
            raise NotFound(
                "version 1 has no version before it; name one with ?from=", code="deck/version_not_found"
            )
        old_number = _version_number(raw_from) if raw_from not in (None, "") else new.number - 1
        old = deck_selectors.deck_version_get(deck=deck, number=old_number)
        return Response(deck_selectors.deck_version_diff(old=old, new=new))

    @extend_schema(
        parameters=[
            VERSION_PARAMETER,
            OpenApiParameter(
                "seed", str, description="Any text up to 64 characters; default a fresh one, returned."
            ),
            OpenApiParameter("turns", int, description="Turns to draw for, 1 to 10 (default 3)."),
        ],
        responses=SampleDrawsSerializer,
    )
    @action(detail=True, methods=["get"], url_path="sample-draws", permission_classes=[permissions.AllowAny])
    def sample_draws(self, request, share_id=None):
        """The cards drawn on the first turns after a seeded shuffle, by the game's own draw rule
        (DRAW 3 a turn): try a deck before playing it. The same seed always draws the same."""
        deck = self._deck()
        version = deck_selectors.deck_version_get(
            deck=deck, number=_version_number(request.query_params.get("version"))
        )
        seed = request.query_params.get("seed") or secrets.token_urlsafe(12)
        turns = query_int(request, "turns", minimum=1, maximum=deck_selectors.MAX_SAMPLE_TURNS) or 3
        return Response(deck_selectors.deck_sample_draws(version=version, seed=seed, turns=turns))


def _version_number(raw) -> int | None:
    if raw in (None, ""):
        return None
    try:
        number = int(raw)
    except (TypeError, ValueError):
        number = 0
    if number < 1:
        raise NotFound(f"no version {raw!r}: versions are numbered from 1", code="deck/version_not_found")
    return number


routes = [("decks", DeckViewSet, "deck")]
