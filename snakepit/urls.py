from django.contrib import admin
from django.urls import include, path

from snakepit.views import home

urlpatterns = [
    path("", home, name="home"),
    path("admin/", admin.site.urls),
    path("api/", include("api.urls")),
]

handler400 = "snakepit.errors.bad_request"
handler403 = "snakepit.errors.permission_denied"
handler404 = "snakepit.errors.page_not_found"
handler500 = "snakepit.errors.server_error"
