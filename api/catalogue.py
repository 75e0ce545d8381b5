"""The Rag'n'Guns catalogue under /api/ragnguns/ (docs/api-decks.md): cards, deckbuilding formats and
their ban lists, the pre-built decks, and the deck check. Thin views: parse, call decks' selectors and
services, serialise. Saved decks (api/decks.py) take the deck check's body: its parser, serializer and
examples are defined here, once."""

from __future__ import annotations

import codecs

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import exceptions, permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import BaseParser
from rest_framework.request import Request
from rest_framework.response import Response

from api.limits import BoundedDateTimeField
from api.negotiation import FormatFilterNegotiation
from api.parsers import BoundedJSONParser, check_bounds
from decks import selectors as deck_selectors
from decks import services as deck_services
from decks.tasks import ban_lists_apply

# -- a deck as sent: the check's body, which saved decks take too --------------------------------------


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


def deck_submission(
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


# -- serializers ---------------------------------------------------------------------------------------


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


# -- the catalogue -------------------------------------------------------------------------------------


def path_parameter(name: str, description: str, kind=str) -> OpenApiParameter:
    return OpenApiParameter(name, kind, OpenApiParameter.PATH, description=description)


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
        parameters=[path_parameter("id", "A card id, e.g. machete (a printed name works too).")],
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
        parameters=[path_parameter("id", "A format key, e.g. standard.")], responses=RagnGunsFormatSerializer
    )
    def retrieve(self, request, pk=None):
        return Response(deck_selectors.format_get(key=pk, status=404).to_dict())

    @extend_schema(
        methods=["GET"],
        parameters=[path_parameter("id", "A format key, e.g. frontier.")],
        responses=BanListSerializer(many=True),
    )
    @extend_schema(
        methods=["POST"],
        parameters=[path_parameter("id", "A format key, e.g. frontier.")],
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
        parameters=[path_parameter("id", "A pre-built deck id, e.g. stampede-at-dawn.")],
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
        body = deck_submission(request)
        result = deck_selectors.deck_check(
            format_key=body.get("format"),
            gunslinger=body.get("gunslinger"),
            cards=body.get("cards"),
            text=body.get("text"),
        )
        return Response(result.to_dict())


routes = [
    ("ragnguns/cards", RagnGunsCardViewSet, "ragnguns-card"),
    ("ragnguns/formats", RagnGunsFormatViewSet, "ragnguns-format"),
    ("ragnguns/prebuilt", RagnGunsPrebuiltViewSet, "ragnguns-prebuilt"),
    ("ragnguns/deck-checks", RagnGunsDeckCheckViewSet, "ragnguns-deck-check"),
]
