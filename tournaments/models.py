"""Tournaments, event-sourced like matches.

A `Tournament` is its set-up (game, format, options, organiser, registration rules) plus an
append-only log of `TournamentEvent`s: the reducer's kinds (registered, checked in, dropped, started,
round paired, game recorded, result reported / confirmed / disputed / corrected, finished), whose
meaning the pure `tournaments.formats.lifecycle` decides, and the service's own facts (registration
opened, match created). `TournamentEntry`, `TournamentTable`, `TournamentMatch` and
`TournamentStanding` are projections of the log for querying, kept current one event at a time;
`manage.py rebuild_tournaments` proves they equal a fresh replay. `TournamentSnapshot`s hold the
reducer's state every so many events, so that a process without it cached folds only the events
after the latest one. The database refuses UPDATE and DELETE of tournament events.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from core.revisions import RevisedOnSave
from decks.models import DeckVersion
from matches.models import Match


class Tournament(RevisedOnSave, models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft"
        REGISTRATION = "registration"
        RUNNING = "running"
        FINISHED = "finished"
        CANCELLED = "cancelled"

    class ResultMode(models.TextChoices):
        SNAKEPIT = "snakepit", "played on Snakepit"
        TABLE = "table", "played at a table and reported"

    class RoundsStart(models.TextChoices):
        AT_ONCE = "at_once", "a round's Snakepit matches start as it is paired"
        ON_ORGANISER = (
            "on_organiser",
            "a paired round waits for the organiser to start it (and may be re-paired until then)",
        )

    class Seeding(models.TextChoices):
        MANUAL = "manual"
        RANDOM = "random"
        RATING = "rating"
        REGISTRATION = "registration"

    slug = models.SlugField(unique=True, allow_unicode=True)
    name = models.CharField(max_length=120)
    game = models.CharField(max_length=40, db_index=True)
    options = models.JSONField(default=dict, help_text="Resolved rule options of every match.")
    format = models.CharField(max_length=30, db_index=True)
    config = models.JSONField(
        default=dict, help_text="Resolved format options (see /api/tournament-formats/)."
    )
    seats_per_match = models.PositiveSmallIntegerField(default=2)
    result_mode = models.CharField(max_length=10, choices=ResultMode.choices, default=ResultMode.SNAKEPIT)
    rounds_start = models.CharField(max_length=12, choices=RoundsStart.choices, default=RoundsStart.AT_ONCE)
    seeding = models.CharField(max_length=12, choices=Seeding.choices, default=Seeding.RANDOM)
    registration_cap = models.PositiveIntegerField(null=True, blank=True)
    check_in_required = models.BooleanField(default=False)
    check_in_opens_at = models.DateTimeField(null=True, blank=True)
    check_in_closes_at = models.DateTimeField(null=True, blank=True)
    # Random seeding and pairing lots come from this secret: its SHA-256 is published when
    # registration opens (the `registration_opened` event) and the secret itself with the start.
    seed = models.BinaryField(max_length=32, editable=False, default=b"")
    seed_commitment = models.CharField(max_length=64, editable=False, blank=True, default="")
    status = models.CharField(max_length=15, choices=Status.choices, default=Status.DRAFT, db_index=True)
    organiser = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="organised_tournaments"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    revision = models.PositiveBigIntegerField(
        default=0,
        editable=False,
        help_text="Moves with every save (core.revisions): the home page's cached listing keys on it.",
    )

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.name


class TournamentEvent(models.Model):
    """One fact of a tournament, numbered from 1. Never updated, never deleted."""

    tournament = models.ForeignKey(Tournament, on_delete=models.PROTECT, related_name="events")
    seq = models.PositiveIntegerField()
    kind = models.CharField(max_length=30)
    payload = models.JSONField()
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tournament", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "seq"], name="tournament_event_unique_seq"),
            models.CheckConstraint(condition=Q(seq__gte=1), name="tournament_event_seq_positive"),
        ]


class TournamentEntry(models.Model):
    """A registration (projection): a user or a built-in bot, with its frozen deck where the game needs one.
    `player` is the id the tournament log uses for it."""

    class Status(models.TextChoices):
        REGISTERED = "registered"
        CHECKED_IN = "checked_in"
        DROPPED = "dropped"

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    player = models.CharField(max_length=20)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="tournament_entries",
    )
    bot = models.CharField(max_length=40, blank=True, default="")
    name = models.CharField(
        max_length=150, blank=True, default="", help_text="Imported tournaments: the player's name there."
    )
    deck_version = models.ForeignKey(
        DeckVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    seed = models.PositiveIntegerField(null=True, blank=True)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.REGISTERED)

    class Meta:
        ordering = ["tournament", "seed", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "player"], name="tournament_entry_unique_player"),
            models.UniqueConstraint(
                fields=["tournament", "user"],
                condition=Q(user__isnull=False),
                name="tournament_entry_one_per_user",
            ),
        ]

    @property
    def label(self) -> str:
        if self.user_id:
            return self.user.get_username()
        return self.name or f"bot:{self.bot}#{self.player}"


class TournamentTable(models.Model):
    """A pairing (projection): one table of one round, its players and its result."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="tables")
    match_key = models.CharField(max_length=30)
    round = models.PositiveIntegerField()
    stage = models.CharField(max_length=20, default="main")
    players = models.JSONField()
    best_of = models.PositiveSmallIntegerField(default=1)
    status = models.CharField(max_length=12)
    result = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["tournament", "round", "match_key"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "match_key"], name="tournament_table_unique_key")
        ]


class TournamentStanding(models.Model):
    """A standings row (projection), with the numbers behind each tiebreak. The rank lives in its
    column alone (a result moves many ranks and few numbers); `row` holds the rest."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="standings")
    player = models.CharField(max_length=20)
    rank = models.PositiveIntegerField()
    row = models.JSONField()

    class Meta:
        ordering = ["tournament", "rank", "player"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "player"], name="tournament_standing_unique_player")
        ]


class TournamentMatch(models.Model):
    """A Snakepit match playing one game of a table (projection of the log's `match_created` events);
    its outcome comes back to the log as a `game_recorded` event when it finishes."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="matches")
    match_key = models.CharField(max_length=30)
    game_number = models.PositiveSmallIntegerField()
    match = models.OneToOneField(Match, on_delete=models.PROTECT, related_name="tournament_match")

    class Meta:
        ordering = ["tournament", "match_key", "game_number"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "match_key", "game_number"], name="tournament_match_unique_game"
            )
        ]


class TournamentSnapshot(models.Model):
    """The reducer's state after event `seq` (`lifecycle.state_to_json`), saved every so many events
    and at every pairing. Derived, never the truth: the log is. A snapshot of another `version` of
    the state's JSON form is ignored, only the latest two are kept, and `rebuild_tournaments` checks
    each against the log."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="snapshots")
    seq = models.PositiveIntegerField()
    version = models.PositiveSmallIntegerField()
    state = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tournament", "-seq"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "seq"], name="tournament_snapshot_unique_seq")
        ]

    def __str__(self) -> str:
        return f"{self.tournament_id} @ {self.seq}"


class TournamentWebhook(models.Model):
    """A URL the organiser registered: it receives signed JSON for the tournament's chosen events."""

    class Event(models.TextChoices):
        ROUND_PAIRED = "round_paired"
        RESULT_REPORTED = "result_reported"
        DISPUTE_OPENED = "dispute_opened"
        TOURNAMENT_FINISHED = "tournament_finished"

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="webhooks")
    url = models.URLField(max_length=500)
    secret = models.CharField(max_length=64, editable=False)
    events = models.JSONField(default=list, help_text="Event names; empty: all of them.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tournament", "pk"]

    def __str__(self) -> str:
        return f"{self.tournament_id}: {self.url}"

    def wants(self, event: str) -> bool:
        return not self.events or event in self.events


class TournamentWebhookDelivery(models.Model):
    """One event sent (or being sent) to one webhook, with what happened to each attempt."""

    class Status(models.TextChoices):
        PENDING = "pending"
        DELIVERED = "delivered"
        FAILED = "failed"

    webhook = models.ForeignKey(TournamentWebhook, on_delete=models.CASCADE, related_name="deliveries")
    event = models.CharField(max_length=30)
    payload = models.JSONField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING, db_index=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["webhook", "-pk"]
