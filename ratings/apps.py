from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = "Ladders and ratings"

    def ready(self) -> None:
        from matches.signals import match_finished

        match_finished.connect(_rate_when_finished, dispatch_uid="ratings-rate-finished-match")


def _rate_when_finished(sender, match_id: int, **kwargs) -> None:
    """Queue the ladder's rating run, unless a run is already due to find this match
    (`ratings.selectors.ladder_to_rate_after`): one task per burst of finishes, not one per match."""
    from ratings.selectors import ladder_to_rate_after
    from ratings.tasks import ladder_ratings_apply

    ladder_id = ladder_to_rate_after(match_id=match_id)
    if ladder_id is not None:
        ladder_ratings_apply.delay(ladder_id)
