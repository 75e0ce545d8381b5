from django.apps import AppConfig
from django.db.backends.signals import connection_created


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Matches and tournaments"

    def ready(self) -> None:
        from tournaments.event_log_guard import install_on_sqlite
        from tournaments.signals import match_finished

        connection_created.connect(install_on_sqlite, dispatch_uid="snakepit-event-log-guard")
        match_finished.connect(_record_tournament_game, dispatch_uid="tournaments-record-finished-match")


def _record_tournament_game(sender, match_id: int, **kwargs) -> None:
    from tournaments.models import TournamentMatch
    from tournaments.tasks import tournament_record_match

    if TournamentMatch.objects.filter(match_id=match_id).exists():
        tournament_record_match.delay(match_id)
