"""Uploaded bots (docs/bots.md): upload a version, read a bot and its figures, and, for its owner and
staff only, its source and logs; the protocol's JSON Schemas. Thin views over bots.selectors and
two flows: `flows.bot_upload` (the validation match runs on a worker) and `flows.bot_ladder_entry`."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from api.limits import query_int
from api.parsers import BoundedJSONParser, BoundedMultiPartParser
from api.schema import errors
from api.throttles import CreateThrottle, throttled_on
from bots import selectors as bot_selectors
from bots.archives import is_archive
from bots.models import BOT_NAME_PATTERN, Bot, BotSeat, BotVersion
from bots.protocol import ANSWER_SCHEMA, MESSAGE_SCHEMA, PROTOCOL_VERSION
from core.errors import ApplicationError, NotFound
from flows.bot_ladder_entry import bot_version_enter_ladder
from flows.bot_upload import bot_version_submit
from ratings import selectors as rating_selectors

_MATCHES_LISTED = 50


class BotUploadSerializer(serializers.Serializer):
    name = serializers.RegexField(BOT_NAME_PATTERN, help_text="Your bot's name; a new name is a new bot.")
    game = serializers.CharField(max_length=40, help_text="The game's key, as /api/games/ lists it.")
    source = serializers.CharField(
        required=False,
        trim_whitespace=False,
        max_length=1024 * 1024,
        help_text="The bot: one Python file's text (or upload it as the multipart file `file`).",
    )
    file = serializers.FileField(
        required=False,
        max_length=200,
        help_text="The bot as a multipart file: one Python file, or a zip archive with main.py at its top.",
    )
    url = serializers.URLField(
        required=False,
        max_length=500,
        help_text="An HTTP bot's address: it gets each decision as a signed POST.",
    )
    deck = serializers.CharField(
        required=False,
        max_length=40,
        help_text="Rag'n'Guns: the share id of your saved deck, legal in the format in effect; every "
        "seat of this version brings it.",
    )
    deck_version = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=10**9,
        help_text="Rag'n'Guns: which version of `deck` (its current one if left out).",
    )

    def validate(self, attrs):
        unknown = set(self.initial_data) - set(self.fields)
        if unknown:
            raise serializers.ValidationError(f"unknown field(s): {', '.join(sorted(unknown))}")
        if sum(field in attrs for field in ("source", "file", "url")) != 1:
            raise serializers.ValidationError("send the bot as exactly one of `source`, `file` or `url`")
        if "deck_version" in attrs and "deck" not in attrs:
            raise serializers.ValidationError("`deck_version` is a version of the `deck` you send")
        if "file" in attrs:
            upload = attrs.pop("file")
            if upload.size > 1024 * 1024:
                raise serializers.ValidationError("the file is too large")
            content = upload.read()
            if is_archive(content):
                attrs["archive"] = content  # checked and bounded by bots.archives
                return attrs
            try:
                attrs["source"] = content.decode("utf-8")
            except UnicodeDecodeError:
                raise serializers.ValidationError("the file is not UTF-8 text (nor a zip archive)") from None
        return attrs


class BotVersionSerializer(serializers.ModelSerializer):
    class Meta:
        model = BotVersion
        fields = ["number", "status", "source_sha256", "url", "validation_match", "created_at"]


class BotSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username")
    versions = BotVersionSerializer(many=True)

    class Meta:
        model = Bot
        fields = ["id", "name", "game", "owner", "created_at", "versions"]


class BotSeatSerializer(serializers.ModelSerializer):
    version = serializers.IntegerField(source="version.number")

    class Meta:
        model = BotSeat
        fields = ["match", "seat", "version", "moves", "move_ms_total", "forfeit_reason", "played_at"]


class BotLadderJoinSerializer(serializers.Serializer):
    ladder = serializers.SlugField(max_length=50, allow_unicode=True, help_text="The ladder's slug.")
    version = serializers.IntegerField(min_value=1, max_value=10**9, help_text="A version that passed.")
    replace = serializers.BooleanField(
        default=False,
        help_text="True: the bot's other versions on this ladder leave it (their history stays); "
        "false: this version enters beside them, rated on its own.",
    )


def _text(body: str, *, filename: str) -> HttpResponse:
    response = HttpResponse(body, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["X-Content-Type-Options"] = "nosniff"
    return response


class BotViewSet(viewsets.GenericViewSet):
    """Bring your own bot. Anyone may read a bot, its versions' status and its figures; only its owner
    and staff read its source and logs."""

    get_throttles = throttled_on(create=CreateThrottle)
    parser_classes = [BoundedJSONParser, BoundedMultiPartParser]
    serializer_class = BotSerializer
    queryset = Bot.objects.none()

    def get_permissions(self):
        if self.action == "list":
            return [permissions.IsAuthenticated()]
        if self.action == "protocol":
            return [permissions.AllowAny()]
        return super().get_permissions()

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Bot.objects.none()
        return bot_selectors.bot_list(owner=self.request.user)

    def _bot(self) -> Bot:
        return bot_selectors.bot_get(bot_id=query_int_path(self.kwargs["pk"]))

    @extend_schema(responses=BotSerializer(many=True))
    def list(self, request):
        """Your bots."""
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(BotSerializer(page, many=True).data)

    @extend_schema(
        request=BotUploadSerializer, responses={201: BotVersionSerializer}, extensions=errors(403, 404, 503)
    )
    def create(self, request):
        """Upload one Python file (or register a URL) as your bot's next version; it plays a validation
        match against itself on a worker, and enters matches only once it has passed. The answer
        carries the bot's secret, which signs what its HTTP versions are sent."""
        body = BotUploadSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        version = bot_version_submit(
            owner=request.user,
            name=data["name"],
            game_key=data["game"],
            source=data.get("source", ""),
            archive=data.get("archive", b""),
            url=data.get("url", ""),
            deck=data.get("deck", ""),
            deck_number=data.get("deck_version"),
        )
        return Response(
            {
                "bot": version.bot_id,
                **BotVersionSerializer(version).data,
                "deck": bot_selectors.bot_version_deck(version=version),
                "secret": version.bot.secret,
            },
            status=status.HTTP_201_CREATED,
        )

    @extend_schema(responses=BotSerializer)
    def retrieve(self, request, pk=None):
        bot = self._bot()
        return Response({**BotSerializer(bot).data, "stats": bot_selectors.bot_stats(bot=bot)})

    @extend_schema(responses=OpenApiTypes.OBJECT, extensions=errors(403))
    @action(detail=True, url_path=r"versions/(?P<number>[0-9]{1,9})")
    def version(self, request, pk=None, number=None):
        """One version with its source, its deck (Rag'n'Guns) and validation log: its owner's and
        staff's only."""
        version = bot_selectors.bot_version_private(bot=self._bot(), number=int(number), user=request.user)
        return Response(
            {
                **BotVersionSerializer(version).data,
                "deck": bot_selectors.bot_version_deck(version=version),
                "source": version.source,
                "files": bot_selectors.bot_version_files(version=version),
                "log": version.log,
                "secret": version.bot.secret,
            }
        )

    @extend_schema(responses={(200, "application/zip"): OpenApiTypes.BINARY}, extensions=errors(403, 404))
    @action(detail=True, url_path=r"versions/(?P<number>[0-9]{1,9})/archive")
    def version_archive(self, request, pk=None, number=None):
        """The zip archive a version was uploaded as: its owner's and staff's only."""
        bot = self._bot()
        version = bot_selectors.bot_version_private(bot=bot, number=int(number), user=request.user)
        if not version.archive:
            raise NotFound(f"version {version.number} was not uploaded as an archive", code="bot/no_archive")
        response = HttpResponse(bytes(version.archive), content_type="application/zip")
        response["Content-Disposition"] = f'attachment; filename="bot-{bot.pk}-v{version.number}.zip"'
        return response

    @extend_schema(responses={(200, "text/plain"): OpenApiTypes.STR}, extensions=errors(403))
    @action(detail=True, url_path=r"versions/(?P<number>[0-9]{1,9})/log")
    def version_log(self, request, pk=None, number=None):
        """The version's validation log as plain text: its owner's and staff's only."""
        bot = self._bot()
        version = bot_selectors.bot_version_private(bot=bot, number=int(number), user=request.user)
        header = f"bot {bot.pk} ({bot.name}) version {version.number}: {version.status}\n"
        return _text(
            header + (version.log or "(no log)") + "\n", filename=f"bot-{bot.pk}-v{version.number}.log"
        )

    @extend_schema(responses={(200, "text/plain"): OpenApiTypes.STR}, extensions=errors(403, 404))
    @action(detail=True, url_path=r"matches/(?P<match_id>[0-9]{1,12})/log")
    def match_log(self, request, pk=None, match_id=None):
        """The bot's seats' logs of one match as plain text (a forfeit's reason, the tail of its
        stderr): its owner's and staff's only."""
        bot = self._bot()
        body = bot_selectors.bot_match_log(bot=bot, match_id=int(match_id), user=request.user)
        return _text(body, filename=f"bot-{bot.pk}-match-{match_id}.log")

    @extend_schema(
        request=BotLadderJoinSerializer, responses={201: OpenApiTypes.OBJECT}, extensions=errors(403, 409)
    )
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def ladders(self, request, pk=None):
        """Enter a version that passed its validation on a ladder of its game (owner or staff): as a
        new entry beside the bot's other versions, or replacing them (`replace`; their history
        stays). A worker plays its ladder matches."""
        bot = self._bot()
        body = BotLadderJoinSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        entry = bot_version_enter_ladder(
            bot=bot,
            number=data["version"],
            user=request.user,
            ladder_slug=data["ladder"],
            replace=data["replace"],
        )
        row = rating_selectors.leaderboard_row(entry=entry, ladder=entry.ladder, position=None)
        return Response(
            {**row, "uploaded_bot": bot.pk, "version": data["version"]}, status=status.HTTP_201_CREATED
        )

    @extend_schema(responses=BotSeatSerializer(many=True))
    @action(detail=True, pagination_class=None)
    def matches(self, request, pk=None):
        """The bot's latest matches, newest first; its owner and staff also get each seat's log (why it
        forfeited, and the tail of its stderr)."""
        bot = self._bot()
        seats = (
            BotSeat.objects.filter(version__bot=bot).select_related("version").order_by("-match_id", "seat")
        )
        match_id = query_int(request, "match", minimum=1)
        if match_id is not None:
            seats = seats.filter(match_id=match_id)
        rows = list(seats[:_MATCHES_LISTED])
        private = bot_selectors.bot_source_readable(bot=bot, user=request.user)
        return Response(
            [{**BotSeatSerializer(row).data, **({"log": row.log} if private else {})} for row in rows]
        )

    @extend_schema(responses=OpenApiTypes.OBJECT)
    @action(detail=False)
    def protocol(self, request):
        """The bot protocol's version and the JSON Schemas of its message and answer."""
        return Response({"protocol": PROTOCOL_VERSION, "message": MESSAGE_SCHEMA, "answer": ANSWER_SCHEMA})


def query_int_path(raw: str) -> int:
    if not raw.isdigit() or len(raw) > 12:
        raise ApplicationError("a bot id is a whole number", code="request/invalid_path")
    return int(raw)


routes = [("bots", BotViewSet, "bot")]
