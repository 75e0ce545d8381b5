from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Tournaments"

    def ready(self) -> None:
        from matches.signals import match_finished

        match_finished.connect(_record_tournament_game, dispatch_uid="tournaments-record-finished-match")


def _record_tournament_game(sender, match_id: int, **kwargs) -> None:
    from tournaments.models import TournamentMatch
    from tournaments.tasks import tournament_record_match

    if TournamentMatch.objects.filter(match_id=match_id).exists():
        tournament_record_match.delay(match_id)
