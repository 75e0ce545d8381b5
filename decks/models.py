"""Saved decks: a `Deck` is a name, an owner and a short share id; its content lives in numbered
`DeckVersion`s.

An edit never changes a version: it appends version n+1 (tournaments/decks.py `deck_update`), so a
deck registered for a tournament or a ladder can point at the version it was checked with. Each
version stores what it was checked against (format key, catalogue version) and the result (legal,
violations) at the time it was saved. A version frozen for an entry (`frozen_at`) is never deleted:
`deck_delete` refuses a deck that has one.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class Deck(models.Model):
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="decks")
    # Random, URL-safe and unguessable (tournaments/decks.py `share_id_new`): whoever has it may read
    # the deck; it is never the primary key, so decks cannot be enumerated.
    share_id = models.CharField(max_length=16, unique=True, editable=False)
    name = models.CharField(max_length=100, blank=True, default="")
    game = models.CharField(max_length=40, default="ragnguns", db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True, db_index=True)

    class Meta:
        ordering = ["-updated_at", "-id"]

    def __str__(self) -> str:
        return f"{self.game} deck {self.share_id} {self.name!r}"


class DeckVersion(models.Model):
    """One saved state of a deck, numbered from 1; never edited, only frozen."""

    deck = models.ForeignKey(Deck, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    format = models.CharField(max_length=40)  # a key of engines/ragnguns/formats.json
    catalogue_version = models.CharField(max_length=20)
    # The normalised deck (engines.ragnguns `DeckCheck`): card ids, or an entry as given when it names
    # no card (a draft may be illegal); "" when the deck has no GUNSLINGER.
    gunslinger = models.CharField(max_length=100, blank=True, default="")
    cards = models.JSONField(default=list)  # card ids, sorted
    source_text = models.TextField(blank=True, default="")  # the pasted list, when it came as text
    legal = models.BooleanField(db_index=True)
    violations = models.JSONField(default=list)  # Violation.to_dict() entries
    ban_list_version = models.CharField(max_length=40, blank=True, default="")  # `legal` was judged under it
    frozen_at = models.DateTimeField(null=True, blank=True)
    frozen_for = models.TextField(blank=True, default="")  # what froze it, one purpose a line
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["deck", "number"]
        constraints = [
            models.UniqueConstraint(fields=["deck", "number"], name="deck_version_unique_number"),
            models.CheckConstraint(condition=Q(number__gte=1), name="deck_version_number_positive"),
        ]

    def __str__(self) -> str:
        return f"deck {self.deck_id} v{self.number} ({'legal' if self.legal else 'illegal'})"

    @property
    def is_frozen(self) -> bool:
        return self.frozen_at is not None

    def save(self, *args, **kwargs):
        # A version is a record of what was checked: once written, only the freeze fields change
        # (`deck_version_freeze`). An edit of the deck is a new version (`deck_update`).
        update_fields = kwargs.get("update_fields")
        if not self._state.adding and (update_fields is None or not set(update_fields) <= FREEZE_FIELDS):
            raise ValueError(f"deck version {self.pk} is never edited: save a new version instead")
        super().save(*args, **kwargs)


FREEZE_FIELDS = frozenset({"frozen_at", "frozen_for"})


class BanList(models.Model):
    """A ban list published for a format after the packaged one, taking effect at `effective_at`.

    Never edited once published: a change is a new version. `applied_at` records when the saved
    decks entered in that format were re-checked under it (`decks.services.ban_lists_take_effect`)."""

    format = models.CharField(max_length=40, db_index=True)  # a key of engines/ragnguns/formats.json
    version = models.CharField(max_length=40)
    effective_at = models.DateTimeField(db_index=True)
    banned = models.JSONField(default=list)  # card ids
    restricted = models.JSONField(default=list)  # card ids
    max_restricted = models.PositiveSmallIntegerField(default=0)
    notes = models.TextField(blank=True, default="")
    published_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    published_at = models.DateTimeField(auto_now_add=True)
    applied_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["format", "effective_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["format", "version"], name="ban_list_unique_version"),
        ]

    def __str__(self) -> str:
        return f"{self.format} ban list {self.version} (from {self.effective_at:%Y-%m-%d %H:%M})"
