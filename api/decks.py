"""The Rag'n'Guns catalogue, the deck check and saved decks (docs/api-deck_selectors.md). Thin views: parse,
call tournaments/decks.py, serialise. Kept apart from the match API in api/views.py."""

from __future__ import annotations

import codecs
import json
import secrets

import django_filters
from django.http import HttpResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    extend_schema_serializer,
)
from rest_framework import exceptions, permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import BaseParser
from rest_framework.renderers import BaseRenderer, BrowsableAPIRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from api.limits import BoundedDateTimeField, query_int
from api.negotiation import FormatFilterNegotiation
from api.parsers import BoundedJSONParser, check_bounds
from api.throttles import CreateThrottle, throttled_on
from core.errors import NotFound
from decks import selectors as deck_selectors
from decks import services as deck_services
from decks.models import Deck, DeckVersion
from decks.tasks import ban_lists_apply

# -- plain text in and out ------------------------------------------------------------------------------


class PlainTextParser(BaseParser):
    """A deck list pasted as the raw request body (`Content-Type: text/plain`)."""

    media_type = "text/plain"

    def parse(self, stream, media_type=None, parser_context=None) -> str:
        charset = "utf-8"
        for part in (media_type or "").split(";")[1:]:
            key, _, value = part.strip().partition("=")
            if key.lower() == "charset" and value:
                charset = value.strip('"')
        try:
            codecs.lookup(charset)
            text = stream.read().decode(charset)
        except (LookupError, UnicodeDecodeError) as error:
            raise exceptions.ParseError(f"the text body is not valid {charset}: {error}") from None
        check_bounds(text, max_depth=1)
        return text


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


# -- serializers ---------------------------------------------------------------------------------------


class StrictCharField(serializers.CharField):
    """A CharField that refuses numbers and booleans instead of turning them into strings."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class _NoUnknownFields(serializers.Serializer):
    def validate(self, attrs):
        unknown = (
            sorted(set(self.initial_data) - set(self.fields)) if isinstance(self.initial_data, dict) else []
        )
        if unknown:
            raise serializers.ValidationError(
                {name: ["unknown field; known: " + ", ".join(self.fields)] for name in unknown}
            )
        return attrs


class DeckSubmissionSerializer(_NoUnknownFields):
    format = StrictCharField(
        required=False,
        max_length=40,
        help_text='A format key (see /api/ragnguns/formats/); default "standard".',
    )
    gunslinger = StrictCharField(
        required=False, allow_null=True, allow_blank=True, help_text="A GUNSLINGER's card id or printed name."
    )
    cards = serializers.ListField(
        child=StrictCharField(),
        required=False,
        help_text="Card ids or printed names (any case, accents optional).",
    )
    text = StrictCharField(
        required=False,
        allow_blank=True,
        trim_whitespace=False,
        help_text='A pasted deck list, one card a line ("2 Machete", "Machete x2", "# comments", '
        '"Weapons (3)"). Instead of "gunslinger" and "cards".',
    )


class DeckWriteSerializer(DeckSubmissionSerializer):
    name = StrictCharField(required=False, allow_blank=True, max_length=100)


class ViolationSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="deck/* or text/* (docs/games/ragnguns.md)")
    detail = serializers.CharField()
    cards = serializers.ListField(
        child=serializers.CharField(), help_text="Card ids concerned (unknown entries as given)."
    )
    hint = serializers.CharField()
    line = serializers.IntegerField(
        required=False, help_text="The line of the pasted list, for text/* codes."
    )


class NormalisedDeckSerializer(serializers.Serializer):
    format = serializers.CharField()
    catalogue_version = serializers.CharField()
    gunslinger = serializers.CharField(allow_null=True, help_text="Card id; as given when it names no card.")
    cards = serializers.ListField(child=serializers.CharField(), help_text="Card ids, sorted.")


class DeckCheckSerializer(serializers.Serializer):
    legal = serializers.BooleanField()
    violations = ViolationSerializer(many=True, help_text="Every violation at once; empty when legal.")
    warnings = ViolationSerializer(
        many=True,
        help_text="Lines of a pasted list that were skipped (text/ignored_line); never make a deck illegal.",
    )
    deck = NormalisedDeckSerializer()


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


class BanListSerializer(serializers.Serializer):
    version = serializers.CharField()
    effective = serializers.CharField(help_text="ISO 8601 moment it takes (or took) effect.")
    banned = serializers.ListField(child=serializers.CharField())
    restricted = serializers.ListField(child=serializers.CharField())
    max_restricted = serializers.IntegerField()
    source = serializers.ChoiceField(choices=["packaged", "published"])
    notes = serializers.CharField(allow_blank=True)
    in_effect = serializers.BooleanField()
    upcoming = serializers.BooleanField()


class BanListPublishSerializer(serializers.Serializer):
    version = StrictCharField(max_length=40)
    effective_at = BoundedDateTimeField()
    banned = serializers.ListField(child=StrictCharField(max_length=100), max_length=200)
    restricted = serializers.ListField(child=StrictCharField(max_length=100), max_length=200, default=list)
    max_restricted = serializers.IntegerField(min_value=0, max_value=100, default=0)
    notes = StrictCharField(max_length=2000, required=False, allow_blank=True, default="")


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


class RagnGunsEffectSerializer(serializers.Serializer):
    cost = serializers.IntegerField(help_text="Bullets.")
    markers = serializers.ListField(
        child=serializers.CharField(), help_text="once_per_turn, on_place, while_placed"
    )
    zone = serializers.CharField(allow_null=True)
    paid_from = serializers.CharField(help_text="bullets, or cartridge_belt for a GUNSLINGER")
    text = serializers.CharField()
    do = serializers.ListField(
        child=serializers.DictField(),
        help_text="What the engine does: steps of the effect vocabulary (docs/games/ragnguns.md).",
    )
    provenance = serializers.DictField(
        child=serializers.CharField(),
        help_text="Per field (cost, markers, zone, paid_from, do): printed, example or designed.",
    )
    readings = serializers.DictField(
        child=serializers.IntegerField(),
        required=False,
        help_text="Cost per named reading where the rulebook gives two (a match option chooses).",
    )


class RagnGunsCardSerializer(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField(help_text="Exactly as printed.")
    type = serializers.CharField()
    cost = serializers.JSONField(
        help_text='A whole number, "X" for a TRAP, null for an ACTION or a GUNSLINGER.'
    )
    firepower = serializers.IntegerField(allow_null=True)
    durability = serializers.IntegerField(allow_null=True)
    keywords = serializers.ListField(child=serializers.CharField())
    signature = serializers.CharField(allow_null=True, help_text="The GUNSLINGER of a SIGNATURE card.")
    effects = RagnGunsEffectSerializer(many=True)
    origin = serializers.CharField(help_text="rulebook or designed")
    provenance = serializers.DictField(
        child=serializers.CharField(),
        help_text=(
            "Per field (type, cost, firepower, durability, keywords, signature): printed in the "
            "rulebook, example (derived from a rulebook example) or designed (reason in the docs)."
        ),
    )


@extend_schema_serializer(many=False)  # one object around the list, not a list
class RagnGunsCardListSerializer(serializers.Serializer):
    catalogue_version = serializers.CharField()
    count = serializers.IntegerField()
    results = RagnGunsCardSerializer(many=True)


class RagnGunsFormatSerializer(serializers.Serializer):
    key = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()
    deck_size = serializers.IntegerField()
    max_epic = serializers.IntegerField()
    max_signature = serializers.IntegerField()
    unique_names = serializers.BooleanField()
    signature_must_match = serializers.BooleanField()
    banned = serializers.ListField(child=serializers.CharField(), help_text="Card ids.")
    restricted = serializers.ListField(child=serializers.CharField(), help_text="Card ids.")
    max_restricted = serializers.IntegerField(
        help_text="At most this many cards from the restricted list, in total."
    )


class RagnGunsPrebuiltSerializer(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()
    gunslinger = serializers.CharField()
    cards = serializers.ListField(child=serializers.CharField())
    legal_in = serializers.DictField(child=serializers.BooleanField(), help_text="Format key -> legal.")
    text = serializers.CharField(help_text="The deck as a text list (paste it into a deck check).")


FORMAT_PARAMETER = OpenApiParameter(
    "format",
    str,
    description='With a text/plain body: the format key (else a "Format:" line, else standard).',
)
TEXT_BODY = {
    "application/json": DeckSubmissionSerializer,
    "text/plain": OpenApiTypes.STR,
}
PASTED_EXAMPLE = OpenApiExample(
    "A pasted list",
    value={
        "format": "standard",
        "text": "Gunslinger: Buffalo Kid\n\nWeapons (3)\n2 Machete\nIron bar\nWhip   # cheap MELEE\n",
    },
    request_only=True,
)
IDS_EXAMPLE = OpenApiExample(
    "Ids or names",
    value={
        "format": "standard",
        "gunslinger": "buffalo-kid",
        "cards": ["machete", "Iron Bar", "señorita rosa"],
    },
    request_only=True,
)


def _path(name: str, description: str, kind=str) -> OpenApiParameter:
    return OpenApiParameter(name, kind, OpenApiParameter.PATH, description=description)


def _submission(
    request: Request, serializer_class=DeckSubmissionSerializer, *, partial: bool = False
) -> dict:
    """The deck a request sends: a JSON object (validated), or a raw text/plain deck list."""
    if isinstance(request.data, str):
        body = {"text": request.data}
        if request.query_params.get("name") is not None:
            body["name"] = request.query_params["name"]
    else:
        serializer = serializer_class(data=request.data, partial=partial)
        serializer.is_valid(raise_exception=True)
        body = dict(serializer.validated_data)
    if not body.get("format") and request.query_params.get("format"):
        body["format"] = request.query_params["format"]
    return body


# -- the catalogue ---------------------------------------------------------------------------------------


class RagnGunsCardViewSet(viewsets.ViewSet):
    """The Rag'n'Guns card catalogue (engines/ragnguns/catalogue.json)."""

    permission_classes = [permissions.AllowAny]
    lookup_value_regex = "[^/]+"

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "type", str, description="ACTION, WEAPON, ITEM, TRAP, BACKUP or GUNSLINGER (any case)."
            ),
            OpenApiParameter("keyword", str, description="EPIC, MELEE, GIRL, ... (any case)."),
            OpenApiParameter("cost", str, description='A whole number, or "X" for TRAPS.'),
            OpenApiParameter(
                "signature", str, description="SIGNATURE cards of this GUNSLINGER (name or id)."
            ),
            OpenApiParameter("origin", str, description="rulebook or designed."),
            OpenApiParameter(
                "search", str, description="Every word in the name or an Effect, any case, accents optional."
            ),
        ],
        responses=RagnGunsCardListSerializer,
    )
    def list(self, request):
        params = request.query_params
        cards = deck_selectors.card_list(
            **{
                name: params.get(name)
                for name in ("type", "keyword", "cost", "signature", "origin", "search")
            }
        )
        return Response(
            {
                "catalogue_version": deck_selectors.catalogue_get().version,
                "count": len(cards),
                "results": [card.to_dict() for card in cards],
            }
        )

    @extend_schema(
        parameters=[_path("id", "A card id, e.g. machete (a printed name works too).")],
        responses=RagnGunsCardSerializer,
    )
    def retrieve(self, request, pk=None):
        """One card by id (a printed name works too), with its standing in every format now
        (`legality`: legal, restricted or banned) and through each format's ban list history."""
        card = deck_selectors.card_get(card_id=pk)
        return Response({**card.to_dict(), "legality": deck_selectors.card_legality(card=card)})


class RagnGunsFormatViewSet(viewsets.ViewSet):
    """Deckbuilding formats and their rules (engines/ragnguns/formats.json)."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(responses=RagnGunsFormatSerializer(many=True))
    def list(self, request):
        return Response([fmt.to_dict() for fmt in deck_selectors.format_list()])

    @extend_schema(
        parameters=[_path("id", "A format key, e.g. standard.")], responses=RagnGunsFormatSerializer
    )
    def retrieve(self, request, pk=None):
        return Response(deck_selectors.format_get(key=pk, status=404).to_dict())

    @extend_schema(
        methods=["GET"],
        parameters=[_path("id", "A format key, e.g. frontier.")],
        responses=BanListSerializer(many=True),
    )
    @extend_schema(
        methods=["POST"],
        parameters=[_path("id", "A format key, e.g. frontier.")],
        request=BanListPublishSerializer,
        responses={201: BanListSerializer},
    )
    @action(detail=True, methods=["get", "post"], url_path="ban-lists", parser_classes=[BoundedJSONParser])
    def ban_lists(self, request, pk=None):
        """The format's ban list versions, oldest first (the packaged one, then each published one),
        with the one in effect marked. Staff publish a new dated version with POST: it rules from
        `effective_at`, and once in effect the decks entered in the format are re-checked."""
        fmt = deck_selectors.format_get(key=pk, status=404)
        if request.method == "POST":
            if not request.user.is_authenticated:
                raise exceptions.NotAuthenticated()
            body = BanListPublishSerializer(data=request.data)
            body.is_valid(raise_exception=True)
            row = deck_services.ban_list_publish(format_key=fmt.key, by=request.user, **body.validated_data)
            if row.effective_at <= timezone.now():
                ban_lists_apply.delay()  # decks entered in the format hear of it now, not at beat's next tick
            published = next(
                entry
                for entry in deck_selectors.ban_list_history(format_key=fmt.key)
                if entry["version"] == row.version
            )
            return Response(published, status=status.HTTP_201_CREATED)
        return Response(deck_selectors.ban_list_history(format_key=fmt.key))


class RagnGunsPrebuiltViewSet(viewsets.ViewSet):
    """The pre-built decks, with their legality in every format and their text list."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(responses=RagnGunsPrebuiltSerializer(many=True))
    def list(self, request):
        return Response(deck_selectors.prebuilt_list())

    @extend_schema(
        parameters=[_path("id", "A pre-built deck id, e.g. stampede-at-dawn.")],
        responses=RagnGunsPrebuiltSerializer,
    )
    def retrieve(self, request, pk=None):
        return Response(deck_selectors.prebuilt_get(deck_id=pk))


class RagnGunsDeckCheckViewSet(viewsets.ViewSet):
    """Check a deck without saving it."""

    permission_classes = [permissions.AllowAny]
    parser_classes = [BoundedJSONParser, PlainTextParser]
    content_negotiation_class = FormatFilterNegotiation

    @extend_schema(
        request=TEXT_BODY,
        parameters=[FORMAT_PARAMETER],
        responses={200: DeckCheckSerializer},
        examples=[IDS_EXAMPLE, PASTED_EXAMPLE],
    )
    def create(self, request):
        """Every violation at once. An illegal deck is a 200 with `legal: false`; a request that is not a
        deck (no cards, wrong types, unknown format, not JSON) is a 400 with a code."""
        body = _submission(request)
        result = deck_selectors.deck_check(
            format_key=body.get("format"),
            gunslinger=body.get("gunslinger"),
            cards=body.get("cards"),
            text=body.get("text"),
        )
        return Response(result.to_dict())


# -- saved decks -----------------------------------------------------------------------------------------


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
        body = _submission(request, DeckWriteSerializer)
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
        body = _submission(request, DeckWriteSerializer, partial=partial)
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
        parameters=[_path("number", "A version number, from 1.", int)], responses=DeckVersionSerializer
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


routes = [
    ("ragnguns/cards", RagnGunsCardViewSet, "ragnguns-card"),
    ("ragnguns/formats", RagnGunsFormatViewSet, "ragnguns-format"),
    ("ragnguns/prebuilt", RagnGunsPrebuiltViewSet, "ragnguns-prebuilt"),
    ("ragnguns/deck-checks", RagnGunsDeckCheckViewSet, "ragnguns-deck-check"),
    ("decks", DeckViewSet, "deck"),
]
