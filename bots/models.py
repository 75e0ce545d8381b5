"""Uploaded bots: a `Bot` is an owner's named player of one game, holding seats through its own
account; its code lives in numbered `BotVersion`s, never edited. A `BotSeat` says which version held
which seat of a match, and keeps that seat's figures (moves, time, forfeit) and its log.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

# A bot's name, as the upload forms (the API's and the page's) take it.
BOT_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,59}$"


class Bot(models.Model):
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="bots")
    # The user that holds the bot's seats in matches: a seat is a person's or a built-in bot's, and an
    # uploaded bot plays through the same door a person does (matches.services.match_submit_action).
    account = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="bot_account"
    )
    name = models.CharField(max_length=60)
    game = models.CharField(max_length=40)  # a key of engines.registry
    # Signs the decisions sent to its HTTP versions (bots.http); its owner's and staff's only.
    secret = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["owner", "name"]
        constraints = [models.UniqueConstraint(fields=["owner", "name"], name="bot_unique_name_per_owner")]

    def __str__(self) -> str:
        return f"bot {self.name!r} ({self.game})"


class BotVersion(models.Model):
    class Status(models.TextChoices):
        VALIDATING = "validating"
        PASSED = "passed"
        FAILED = "failed"

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    source = models.TextField(
        blank=True, default=""
    )  # one Python file; its owner and staff may read it, nobody else
    url = models.URLField(max_length=500, blank=True, default="")  # an HTTP bot's, instead of a source
    # A bot uploaded as a zip (bots.archives): what runs; `source` then holds its main.py to read.
    archive = models.BinaryField(blank=True, default=b"", editable=False)
    source_sha256 = models.CharField(max_length=64)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.VALIDATING, db_index=True)
    validation_match = models.ForeignKey(
        "matches.Match", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    log = models.TextField(blank=True, default="")  # why validation failed, and the bot's stderr
    # Rag'n'Guns: the saved deck version every seat of this version brings; None in games played
    # without decks. Frozen at upload: its owner cannot delete it from under the bot, and a ban list
    # taking effect re-checks it (decks.services.ban_lists_take_effect re-checks frozen versions).
    deck_version = models.ForeignKey(
        "decks.DeckVersion", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["bot", "number"]
        constraints = [
            models.UniqueConstraint(fields=["bot", "number"], name="bot_version_unique_number"),
            models.CheckConstraint(condition=Q(number__gte=1), name="bot_version_number_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.bot} v{self.number}"


class BotSeat(models.Model):
    match = models.ForeignKey("matches.Match", on_delete=models.CASCADE, related_name="bot_seats")
    seat = models.PositiveSmallIntegerField()
    version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="seats")
    moves = models.PositiveIntegerField(default=0)
    move_ms_total = models.PositiveBigIntegerField(default=0)
    forfeit_reason = models.CharField(max_length=20, blank=True, default="")  # bots.protocol.FORFEIT_REASONS
    log = models.TextField(blank=True, default="")  # the fault, then the tail of the bot's stderr
    played_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["match", "seat"]
        constraints = [models.UniqueConstraint(fields=["match", "seat"], name="bot_seat_unique")]

    def __str__(self) -> str:
        return f"{self.version} in match {self.match_id} seat {self.seat}"
