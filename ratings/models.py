"""Ladders and ratings.

A `Ladder` runs one game continuously: its `LadderEntry`s (users or built-in bots) are paired each
`LadderRound`, the matches are ordinary matches of the event store, and each finished match is
rated exactly once: the `RatedMatch` row (one per match, a unique key) is written in the same
transaction as the `RatingChange`s it causes. An entry's current mu and sigma are a projection of its
history, which `manage.py rebuild_ratings` recomputes from the finished matches.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from core.revisions import RevisedOnSave
from matches.models import Match
from ratings.skill import PROVISIONAL_MAX_SIGMA


class Ladder(RevisedOnSave, models.Model):
    class Entry(models.TextChoices):
        USERS_AND_BOTS = "users_and_bots"
        USERS = "users"
        BOTS = "bots"

    slug = models.SlugField(unique=True, allow_unicode=True)
    name = models.CharField(max_length=100)
    game = models.CharField(max_length=40, db_index=True)
    options = models.JSONField(default=dict, help_text="Resolved rule options every ladder match uses.")
    seats_per_match = models.PositiveSmallIntegerField()
    rating_model = models.CharField(max_length=40, default="plackett_luce")
    entry_policy = models.CharField(max_length=20, choices=Entry.choices, default=Entry.USERS_AND_BOTS)
    season = models.PositiveIntegerField(default=1)
    season_started_at = models.DateTimeField(auto_now_add=True)
    season_ends_at = models.DateTimeField(null=True, blank=True)
    carry_over = models.BooleanField(
        default=False, help_text="At a new season, keep ratings (True) or start everyone afresh (False)."
    )
    round_interval_seconds = models.PositiveIntegerField(default=600)
    move_deadline_seconds = models.PositiveIntegerField(
        default=300, help_text="A seat that has not acted this long after its turn began forfeits."
    )
    match_deadline_seconds = models.PositiveIntegerField(
        default=3600, help_text="A match still running this long after it began is ended by forfeit."
    )
    season_length_days = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="When a season closes, the next one ends this many days later (empty: open-ended).",
    )
    provisional_sigma = models.FloatField(
        default=PROVISIONAL_MAX_SIGMA,
        help_text="A rating is provisional while its sigma is above this (duels: also until 10 games).",
    )
    inactive_after_days = models.PositiveIntegerField(
        null=True,
        blank=True,
        default=30,
        help_text="Entries that have not played this long leave the leaderboard "
        "until they play again (empty: never).",
    )
    no_show_limit = models.PositiveSmallIntegerField(
        default=2,
        help_text="A person's entry that misses this many ladder matches running is paused from matchmaking.",
    )
    is_active = models.BooleanField(default=True, help_text="Paused when false: no rounds are started.")
    archived_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Archived: closed for good (no rounds, no entries), its history kept.",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    revision = models.PositiveBigIntegerField(
        default=0,
        editable=False,
        help_text="Moves with every write that changes what the ladder shows: every save of the "
        "ladder, and its entries' writes (ratings.changes.ladder_changed). Cached reads key on it.",
    )

    class Meta:
        ordering = ["game", "slug"]

    def __str__(self) -> str:
        return self.name


class LadderEntry(models.Model):
    """One competitor on one ladder, with its current rating. A person enters once; a built-in bot may
    enter several times, each entry rated on its own (instances of one strategy calibrate the field)."""

    class Pause(models.TextChoices):
        NO_SHOWS = "no_shows", "missed its ladder matches repeatedly"
        DECK_ILLEGAL = "deck_illegal", "its deck is no longer legal"
        OPERATOR = "operator", "paused by the ladder's organiser"

    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="ladder_entries",
    )
    bot = models.CharField(max_length=40, blank=True, default="")
    # An uploaded bot plays through its own account (`user`); this names the version the entry plays.
    # Only the id: bots is a sibling app, and its worker plays the entry's matches (see
    # SNAKEPIT_LADDER_UPLOADED_BOTS). One account may hold several entries, one per version entered.
    bot_version_id = models.PositiveIntegerField(
        null=True, blank=True, help_text="An uploaded bot's version (bots.BotVersion) this entry plays."
    )
    display_name = models.CharField(
        max_length=120,
        blank=True,
        default="",
        help_text="How leaderboards name an uploaded bot's entry (its name, version and owner).",
    )
    deck_version = models.ForeignKey(
        "decks.DeckVersion",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="Rag'n'Guns: the frozen deck this entry plays.",
    )
    mu = models.FloatField()
    sigma = models.FloatField()
    ordinal = models.FloatField(db_index=True)
    games = models.PositiveIntegerField(default=0, help_text="Rated games this season.")
    season = models.PositiveIntegerField(
        default=1,
        help_text="The season its rating belongs to "
        "(behind the ladder's while a match of the last season runs).",
    )
    last_played_at = models.DateTimeField(
        null=True, blank=True, help_text="When its last rated match finished."
    )
    no_shows = models.PositiveSmallIntegerField(
        default=0, help_text="Ladder matches missed in a row (people only)."
    )
    paused_reason = models.CharField(
        max_length=20,
        choices=Pause.choices,
        blank=True,
        default="",
        help_text="Set: left out of matchmaking (and why) until resumed.",
    )
    paused_at = models.DateTimeField(null=True, blank=True)
    joined_at = models.DateTimeField(auto_now_add=True)
    left_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-ordinal", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=(Q(user__isnull=False) & Q(bot="")) | (Q(user__isnull=True) & ~Q(bot="")),
                name="ladder_entry_user_xor_bot",
            ),
            models.UniqueConstraint(
                fields=["ladder", "user"],
                condition=Q(user__isnull=False, bot_version_id__isnull=True),
                name="ladder_entry_one_per_user",
            ),
            models.UniqueConstraint(
                fields=["ladder", "bot_version_id"],
                condition=Q(bot_version_id__isnull=False),
                name="ladder_entry_one_per_bot_version",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.label} on {self.ladder}"

    @property
    def label(self) -> str:
        if self.bot_version_id:
            return self.display_name or f"{self.user.get_username()} (version id {self.bot_version_id})"
        return self.user.get_username() if self.user_id else f"bot:{self.bot}#{self.pk}"

    @property
    def is_active(self) -> bool:
        return self.left_at is None

    @property
    def is_paused(self) -> bool:
        return bool(self.paused_reason)


class LadderRound(models.Model):
    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="rounds")
    season = models.PositiveIntegerField()
    number = models.PositiveIntegerField()
    explanation = models.JSONField(
        default=dict, help_text="How matchmaking formed the pods, and who sat out why."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["ladder", "-season", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["ladder", "season", "number"], name="ladder_round_unique_number")
        ]


class LadderMatch(models.Model):
    """A match played for a ladder round; `entries` are in seat order.

    `rated` is set in the transaction that writes the match's `RatedMatch` (which stays the proof), and
    indexed while false: the rating runs and the receiver find a ladder's matches still to rate among
    the few unrated ones, never by scanning the ladder's history.
    """

    round = models.ForeignKey(LadderRound, on_delete=models.CASCADE, related_name="matches")
    match = models.OneToOneField(Match, on_delete=models.PROTECT, related_name="ladder_match")
    entries = models.JSONField(help_text="LadderEntry ids by seat index.")
    rated = models.BooleanField(default=False, editable=False, help_text="Its RatedMatch exists.")

    class Meta:
        indexes = [models.Index(fields=["round"], condition=Q(rated=False), name="ladder_match_to_rate")]


class RatedMatch(models.Model):
    """The proof a match's result was applied: one row per match, ever."""

    match = models.OneToOneField(Match, on_delete=models.PROTECT, related_name="rating")
    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="rated_matches")
    season = models.PositiveIntegerField()
    rated_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["pk"]


class RatingChange(models.Model):
    rated_match = models.ForeignKey(RatedMatch, on_delete=models.CASCADE, related_name="changes")
    entry = models.ForeignKey(LadderEntry, on_delete=models.CASCADE, related_name="history")
    rank = models.PositiveSmallIntegerField()
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    ordinal_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    ordinal_after = models.FloatField()

    class Meta:
        ordering = ["pk"]
        constraints = [
            models.UniqueConstraint(fields=["rated_match", "entry"], name="rating_change_once_per_entry")
        ]


class LadderSeason(models.Model):
    """A closed season: its dates and its final leaderboard, kept for the archive."""

    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="seasons")
    number = models.PositiveIntegerField()
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField()
    standings = models.JSONField()

    class Meta:
        ordering = ["ladder", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["ladder", "number"], name="ladder_season_unique_number")
        ]
