import logging

from django.apps import AppConfig

logger = logging.getLogger(__name__)


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Tournaments"

    def ready(self) -> None:
        from matches.signals import match_finished

        match_finished.connect(_record_tournament_game, dispatch_uid="tournaments-record-finished-match")


def _record_tournament_game(sender, match_id: int, **kwargs) -> None:
    """A broker that is down must not turn the move that finished the match into an error (nor keep
    the other receivers from hearing of it): beat's sweep (`tournaments_record_missing`) records it."""
    from tournaments.models import TournamentMatch
    from tournaments.tasks import tournament_record_match

    if TournamentMatch.objects.filter(match_id=match_id).exists():
        try:
            tournament_record_match.delay(match_id)
        except Exception:
            logger.warning(
                "could not queue match %s's tournament result; the sweep will", match_id, exc_info=True
            )
