import logging

from django.apps import AppConfig

logger = logging.getLogger(__name__)


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = "Ladders and ratings"

    def ready(self) -> None:
        from matches.signals import match_finished

        match_finished.connect(_rate_when_finished, dispatch_uid="ratings-rate-finished-match")
        from decks.signals import deck_legality_changed

        deck_legality_changed.connect(_pause_illegal_decks, dispatch_uid="ratings-pause-illegal-decks")


def _rate_when_finished(sender, match_id: int, **kwargs) -> None:
    """Queue the ladder's rating run, unless a run is already due to find this match
    (`ratings.selectors.ladder_to_rate_after`): one task per burst of finishes, not one per match.

    The match has committed when this runs. A broker that is down must not turn the move that
    finished it into an error: the failure is logged, and beat's sweep (`ladders_rate_missing`)
    queues the run within a minute."""
    from ratings.selectors import ladder_to_rate_after
    from ratings.tasks import ladder_ratings_apply

    ladder_id = ladder_to_rate_after(match_id=match_id)
    if ladder_id is None:
        return
    try:
        ladder_ratings_apply.delay(ladder_id)
    except Exception:
        logger.warning(
            "could not queue the rating run of ladder %s (match %s); the sweep will",
            ladder_id,
            match_id,
            exc_info=True,
        )


def _pause_illegal_decks(sender, format_key: str, illegal: list[dict], **kwargs) -> None:
    """A ban list made these deck versions illegal: their ladder entries leave matchmaking."""
    from ratings.services import entries_pause_for_illegal_decks

    entries_pause_for_illegal_decks(
        format_key=format_key, deck_version_ids=[row["deck_version_id"] for row in illegal]
    )
