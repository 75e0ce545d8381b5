"""The API's URLs: each module of `api` (one per app; decks has two, `catalogue` and `decks`) lists
its routes; the paths are the public contract and never change under a client."""

from django.contrib.auth.views import LogoutView
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.routers import DefaultRouter

from api import bots, catalogue, challenges, decks, games, matches, ratings, tournaments
from api.snapshot_streams import ladder_stream, tournament_stream
from api.streams import match_stream
from api.throttles import ThrottledLoginView, ThrottledObtainAuthToken

router = DefaultRouter()
for module in (games, matches, challenges, catalogue, decks, ratings, tournaments, bots):
    for prefix, viewset, basename in module.routes:
        router.register(prefix, viewset, basename=basename)

urlpatterns = [
    # An event stream, not a DRF view: it is async and answers text/event-stream (api/streams.py).
    path("matches/<int:pk>/stream/", match_stream, name="match-stream"),
    path("tournaments/<slug:slug>/stream/", tournament_stream, name="tournament-stream"),
    path("ladders/<slug:slug>/stream/", ladder_stream, name="ladder-stream"),
    path("", include(router.urls)),
    path(
        "auth/",
        include(
            (
                [
                    path("login/", ThrottledLoginView.as_view(), name="login"),
                    path("logout/", LogoutView.as_view(), name="logout"),
                ],
                "rest_framework",
            )
        ),
    ),
    path("auth/token/", ThrottledObtainAuthToken.as_view(), name="auth-token"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
]
