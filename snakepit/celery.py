"""The Celery app. Tasks are thin interfaces over the same services the API and commands call."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "snakepit.settings")

app = Celery("snakepit")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
