"""The match event store.

A `Match` is its set-up (game, engine version, options, seats, committed seed) plus an append-only log
of `MatchEvent`s. Its state is never stored: it is rebuilt by replaying the log through the engine.
`status`, `outcome` and `finished_at` are a projection of the log kept for querying; the
`replay_matches` command proves they agree with a fresh replay. The database itself refuses UPDATE
and DELETE of events (triggers in migration 0002) and, on PostgreSQL, TRUNCATE of events and any
change of a match's set-up (game, engine version, options, seed and its commitment) or of its seats
(migration 0003; deploy/README.md, "Database roles").
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from core.errors import ApplicationError
from engines.protocol import Event


class Match(models.Model):
    class Status(models.TextChoices):
        RUNNING = "running"
        FINISHED = "finished"
        VOIDED = "voided"  # called off by staff: a `void` event, no outcome; nothing rates it

    class Entropy(models.TextChoices):
        SERVER = "server"  # chance from the committed seed alone (every match before issue #23)
        CONTRIBUTED = "contributed"  # the seed mixed with every seat's committed part (engines.entropy)

    game = models.CharField(max_length=40, db_index=True)
    engine_version = models.CharField(max_length=20)
    options = models.JSONField(default=dict)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.RUNNING, db_index=True)
    seed = models.BinaryField(max_length=32, editable=False)  # secret until the match is finished
    seed_commitment = models.CharField(max_length=64, editable=False)
    entropy = models.CharField(max_length=12, choices=Entropy.choices, default=Entropy.SERVER, editable=False)
    outcome = models.JSONField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "matches"

    def __str__(self) -> str:
        return f"{self.game} #{self.pk} ({self.status})"

    @property
    def is_finished(self) -> bool:
        return self.status == self.Status.FINISHED

    @property
    def is_over(self) -> bool:
        """Finished or voided: the log takes no more play, and the seed is public."""
        return self.status != self.Status.RUNNING


class MatchSeat(models.Model):
    """Who sits at seat `index`: a user, or a built-in bot of the game by name."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="match_seats"
    )
    bot = models.CharField(max_length=40, blank=True, default="")

    class Meta:
        ordering = ["match", "index"]
        constraints = [
            models.UniqueConstraint(fields=["match", "index"], name="match_seat_unique_index"),
            models.CheckConstraint(
                condition=(Q(user__isnull=False) & Q(bot="")) | (Q(user__isnull=True) & ~Q(bot="")),
                name="match_seat_user_xor_bot",
            ),
        ]

    def __str__(self) -> str:
        return f"seat {self.index}: {self.label}"

    @property
    def label(self) -> str:
        return self.label_of(self.user.get_username() if self.user_id else None, self.bot)

    @staticmethod
    def label_of(username: str | None, bot: str) -> str:
        """A seat's name: its user's, or its bot's (`bot:random`)."""
        return username if username is not None else f"bot:{bot}"


class MatchEvent(models.Model):
    """One fact of a match, numbered from 1. Never updated, never deleted."""

    class Kind(models.TextChoices):
        ACTION = "action"
        CHANCE = "chance"
        FORFEIT = "forfeit"
        # The store's own facts, which the engine never sees (`is_engine_event`): a seat's commit,
        # reveal or lapse of its entropy part; staff calling the match off; an outcome corrected
        # after an engine fix (`reverify --apply`).
        ENTROPY = "entropy"
        VOID = "void"
        CORRECTION = "correction"

    match = models.ForeignKey(Match, on_delete=models.PROTECT, related_name="events")
    seq = models.PositiveIntegerField()
    kind = models.CharField(max_length=10, choices=Kind.choices)
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    payload = models.JSONField(default=dict)
    schema_version = models.PositiveSmallIntegerField(default=1)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    idempotency_key = models.CharField(max_length=100, null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Who may read the payload while the match runs, written with the row (matches/audience.py):
    # PUBLIC (-1), or a bitmask of seats; NULL only for a row not yet filled, which readers treat as
    # unknown. The database lets it be filled once and never changed (migration 0006).
    audience = models.IntegerField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["match", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["match", "seq"], name="match_event_unique_seq"),
            models.UniqueConstraint(
                fields=["match", "idempotency_key"],
                condition=Q(idempotency_key__isnull=False),
                name="match_event_unique_idempotency_key",
            ),
            models.CheckConstraint(condition=Q(seq__gte=1), name="match_event_seq_positive"),
        ]

    def __str__(self) -> str:
        return f"match {self.match_id} #{self.seq} {self.kind}"

    @property
    def is_engine_event(self) -> bool:
        return self.kind in ENGINE_KINDS

    def to_engine(self) -> Event:
        """The engine's view of this stored event; the place where an old schema_version is upcast."""
        if self.schema_version != 1:
            raise ApplicationError(
                f"event {self.seq} of match {self.match_id} has unknown schema version {self.schema_version}",
                code="event/unknown_schema_version",
                status=500,
            )
        return Event(kind=self.kind, payload=self.payload, seat=self.seat)


ENGINE_KINDS = frozenset({"action", "chance", "forfeit"})  # what `to_engine` hands an engine


class Challenge(models.Model):
    """An invitation to a match: nobody is seated in a match without saying yes. The match is created
    when the last invited user accepts; until then the challenge holds the set-up.

    A seat may name a username no account has: it is kept as typed and can never be accepted, so the
    one who challenges learns nothing about which usernames exist."""

    class Status(models.TextChoices):
        PENDING = "pending"
        ACCEPTED = "accepted"  # everyone said yes: `match` was created
        DECLINED = "declined"
        CANCELLED = "cancelled"

    game = models.CharField(max_length=40)
    options = models.JSONField(default=dict)  # resolved, as a match stores them
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_made"
    )
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING, db_index=True)
    match = models.OneToOneField(
        Match, null=True, blank=True, on_delete=models.SET_NULL, related_name="challenge"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"challenge #{self.pk} ({self.game}, {self.status})"


class ChallengeSeat(models.Model):
    """Seat `index` of a challenge: a bot, or a user (by the name the challenger typed) who accepts."""

    challenge = models.ForeignKey(Challenge, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()
    invited_name = models.CharField(max_length=150, blank=True, default="")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="challenge_seats",
    )
    bot = models.CharField(max_length=40, blank=True, default="")
    accepted_at = models.DateTimeField(null=True, blank=True)
    # Games played with decks: the deck this seat brings (its `bring_deck` fields) and where it came
    # from (`{"share_id", "version"}`), set on accepting.
    deck = models.JSONField(null=True, blank=True)
    deck_ref = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["challenge", "index"]
        constraints = [
            models.UniqueConstraint(fields=["challenge", "index"], name="challenge_seat_unique_index")
        ]
