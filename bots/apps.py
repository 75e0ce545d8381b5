import logging

from django.apps import AppConfig

logger = logging.getLogger(__name__)


class BotsConfig(AppConfig):
    name = "bots"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from matches.signals import match_moved

        match_moved.connect(_bots_asked_after_a_move, dispatch_uid="bots-asked-after-a-move")


def _bots_asked_after_a_move(
    sender, match_id: int, actor_seat: int | None, deciding: tuple[int, ...], **kwargs
) -> None:
    """Someone other than the match's uploaded bots moved, and one of those bots must decide now: a
    worker asks it at once (a bot's own move needs nothing: the worker playing it goes on). A broker
    that is down must not turn the person's move into an error: beat's minute sweep asks the bot."""
    from bots.models import BotSeat
    from bots.tasks import bot_match_play

    bot_seats = set(
        BotSeat.objects.filter(match_id=match_id, forfeit_reason="").values_list("seat", flat=True)
    )
    if not bot_seats or actor_seat in bot_seats or not bot_seats.intersection(deciding):
        return
    try:
        bot_match_play.delay(match_id)
    except Exception:
        logger.warning("could not queue match %s's bots; the minute sweep will", match_id, exc_info=True)
