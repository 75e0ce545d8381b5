from django.apps import AppConfig
from django.db.backends.signals import connection_created


class MatchesConfig(AppConfig):
    name = "matches"
    verbose_name = "Matches"

    def ready(self) -> None:
        from matches.event_log_guard import install_on_sqlite

        connection_created.connect(install_on_sqlite, dispatch_uid="snakepit-event-log-guard")
