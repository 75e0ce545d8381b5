import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "snakepit.settings")
application = get_asgi_application()

from snakepit.checks import refuse_a_weak_secret_key  # noqa: E402 - settings are loaded only now

refuse_a_weak_secret_key()
