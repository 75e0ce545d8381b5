from django.apps import AppConfig
from django.db.backends.signals import connection_created


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Matches and tournaments"

    def ready(self) -> None:
        from tournaments.event_log_guard import install_on_sqlite

        connection_created.connect(install_on_sqlite, dispatch_uid="snakepit-event-log-guard")
