"""The Django project package: settings, URLs, the Celery app and the service-wide commands."""

from snakepit.celery import app as celery_app

__all__ = ["celery_app"]
