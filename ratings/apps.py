from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = "Ladders and ratings"

    def ready(self) -> None:
        from matches.signals import match_finished

        match_finished.connect(_rate_when_finished, dispatch_uid="ratings-rate-finished-match")


def _rate_when_finished(sender, match_id: int, **kwargs) -> None:
    from ratings.models import LadderMatch
    from ratings.tasks import match_rate

    if LadderMatch.objects.filter(match_id=match_id).exists():
        match_rate.delay(match_id)
