from django.contrib import admin
from django.urls import include, path

from snakepit import health
from snakepit.views import home

urlpatterns = [
    path("", home, name="home"),
    path("admin/", admin.site.urls),
    path("api/", include("api.urls")),
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("", include("snakepit.pages.urls")),
]

handler400 = "snakepit.errors.bad_request"
handler403 = "snakepit.errors.permission_denied"
handler404 = "snakepit.errors.page_not_found"
handler500 = "snakepit.errors.server_error"
