"""The API's URLs: each module of `api` (one per app) lists its routes; the paths are the public
contract and never change under a client."""

from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.authtoken.views import obtain_auth_token
from rest_framework.routers import DefaultRouter

from api import decks, games, matches, ratings, tournaments

router = DefaultRouter()
for module in (games, matches, decks, ratings, tournaments):
    for prefix, viewset, basename in module.routes:
        router.register(prefix, viewset, basename=basename)

urlpatterns = [
    path("", include(router.urls)),
    path("auth/", include("rest_framework.urls")),
    path("auth/token/", obtain_auth_token, name="auth-token"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
]
