"""The registered games: their player ranges, options (rule variants) and bots, from the engines."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers, viewsets
from rest_framework.response import Response

from core.errors import NotFound
from engines.errors import UnknownGame
from engines.registry import all_games, default_bot, game_keys, get_game


class GameKeyField(serializers.ChoiceField):
    """A registered game's key: the schema lists them, and an unknown one is a 400 on its field.
    (DRF builds each serializer's fields afresh, so a game registered later is still known.)"""

    def __init__(self, **kwargs):
        kwargs.pop("choices", None)
        super().__init__(choices=game_keys(), **kwargs)


class GameOptionSerializer(serializers.Serializer):
    name = serializers.CharField()
    default = serializers.JSONField(help_text="Used when a match does not give the option.")
    doc = serializers.CharField()
    choices = serializers.ListField(child=serializers.JSONField(), required=False)
    minimum = serializers.IntegerField(required=False)
    maximum = serializers.IntegerField(required=False)


class GameSerializer(serializers.Serializer):
    key = serializers.CharField()
    name = serializers.CharField()
    version = serializers.CharField(help_text="The engine's version, stored with each match.")
    min_players = serializers.IntegerField()
    max_players = serializers.IntegerField()
    rulebook = serializers.CharField()
    has_chance = serializers.BooleanField()
    has_hidden_information = serializers.BooleanField()
    has_simultaneous_moves = serializers.BooleanField()
    needs_deck = serializers.BooleanField()
    options = GameOptionSerializer(many=True)
    bots = serializers.ListField(child=serializers.CharField())
    default_bot = serializers.CharField(help_text="The bot seated where a form or command names none.")


def described(game) -> dict:
    return {**game.describe(), "default_bot": default_bot(game.spec.key)}


class GameViewSet(viewsets.ViewSet):
    """The registered games, their player ranges, options (rule variants) and bots."""

    permission_classes = [permissions.AllowAny]
    lookup_value_regex = "[a-z0-9-]+"

    @extend_schema(responses=GameSerializer(many=True))
    def list(self, request):
        return Response([described(game) for game in all_games()])

    @extend_schema(responses=GameSerializer)
    def retrieve(self, request, pk=None):
        try:
            return Response(described(get_game(pk)))
        except UnknownGame as error:
            raise NotFound(error.detail, code=error.code) from None


routes = [("games", GameViewSet, "game")]
