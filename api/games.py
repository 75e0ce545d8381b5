"""The registered games: their player ranges, options (rule variants) and bots, from the engines."""

from __future__ import annotations

from rest_framework import permissions, viewsets
from rest_framework.response import Response

from core.errors import NotFound
from engines.errors import UnknownGame
from engines.registry import all_games, get_game


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


routes = [("games", GameViewSet, "game")]
