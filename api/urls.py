from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.authtoken.views import obtain_auth_token
from rest_framework.routers import DefaultRouter

from api import decks, ladders, tournaments, views

router = DefaultRouter()
router.register("games", views.GameViewSet, basename="game")
router.register("matches", views.MatchViewSet, basename="match")
router.register("ragnguns/cards", decks.RagnGunsCardViewSet, basename="ragnguns-card")
router.register("ragnguns/formats", decks.RagnGunsFormatViewSet, basename="ragnguns-format")
router.register("ragnguns/prebuilt", decks.RagnGunsPrebuiltViewSet, basename="ragnguns-prebuilt")
router.register("ragnguns/deck-checks", decks.RagnGunsDeckCheckViewSet, basename="ragnguns-deck-check")
router.register("decks", decks.DeckViewSet, basename="deck")
router.register("ladders", ladders.LadderViewSet, basename="ladder")
router.register("ladder-entries", ladders.LadderEntryViewSet, basename="ladder-entry")
router.register("tournaments", tournaments.TournamentViewSet, basename="tournament")
router.register("tournament-formats", tournaments.TournamentFormatViewSet, basename="tournament-format")

urlpatterns = [
    path("", include(router.urls)),
    path("auth/", include("rest_framework.urls")),
    path("auth/token/", obtain_auth_token, name="auth-token"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
]
