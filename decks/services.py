"""Writes of saved Rag'n'Guns decks: create, update (always a new version), delete, and freeze a
version for a ladder or tournament entry. Checks and reads are in `decks.selectors`.

Codes raised (docs/api-decks.md), besides the selectors' check codes: `deck/freeze_purpose_missing`
(400); `deck/not_yours` (403); `deck/frozen` (409).
"""

from __future__ import annotations

import secrets
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F, OuterRef, Q, Subquery
from django.utils import timezone

from core.errors import ApplicationError, Conflict, Forbidden
from decks.models import BanList, Deck, DeckVersion
from decks.selectors import (
    GAME,
    DeckCheckResult,
    Malformed,
    ban_list_cache_clear,
    catalogue_get,
    deck_cards_check,
    deck_check,
    deck_entry_check,
    deck_get_by_share_id,
    deck_require_owner,
    deck_version_get,
    deck_version_recheck,
    format_get,
)
from decks.signals import deck_legality_changed
from engines.ragnguns import load_formats
from engines.ragnguns.catalogue import CatalogueError, ban_list_from_data

# Share ids: 10 characters from 56 letters and digits without look-alikes (0 O o 1 l I), about 58 bits.
SHARE_ID_ALPHABET = "23456789abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ"
SHARE_ID_LENGTH = 10


# -- writes ---------------------------------------------------------------------------------------


def share_id_new() -> str:
    return "".join(secrets.choice(SHARE_ID_ALPHABET) for _ in range(SHARE_ID_LENGTH))


def _version_fields(result: DeckCheckResult) -> dict[str, Any]:
    return {
        "format": result.check.format,
        "catalogue_version": result.catalogue_version,
        "gunslinger": result.check.gunslinger or "",
        "cards": list(result.check.cards),
        "source_text": result.source_text,
        "legal": result.legal,
        "violations": result.violations,
        "ban_list_version": result.ban_list_version,
    }


MAX_NAME_LENGTH = 100


def _default_name(result: DeckCheckResult) -> str:
    name = result.meta.get("deck") or result.meta.get("name") or result.meta.get("title") or ""
    return " ".join(name.split())[:MAX_NAME_LENGTH]


def _clean_name(name: str) -> str:
    name = str(name).strip()
    if len(name) > MAX_NAME_LENGTH:
        raise Malformed(f"a deck name is at most {MAX_NAME_LENGTH} characters, got {len(name)}")
    return name


@transaction.atomic
def deck_create(
    *,
    owner,
    name: str = "",
    format_key: str | None = None,
    gunslinger: str | None = None,
    cards: list[str] | None = None,
    text: str | None = None,
) -> DeckVersion:
    """Save a new deck for `owner` and return its version 1.

    The deck is checked first (`deck_check`: a malformed one is refused and nothing is written); an
    illegal deck is saved all the same -- people save drafts -- with `legal=False` and its violations.
    Without a `name`, a "Deck:"/"Name:" line of the pasted list names it.
    """
    result = deck_check(format_key=format_key, gunslinger=gunslinger, cards=cards, text=text)
    for _ in range(5):
        try:
            # A savepoint, so that a share id collision (about 1 in 10^17) can simply be retried.
            with transaction.atomic():
                deck = Deck.objects.create(
                    owner=owner,
                    share_id=share_id_new(),
                    name=_clean_name(name) or _default_name(result),
                    game=GAME,
                )
            break
        except IntegrityError:
            continue
    else:
        raise ApplicationError("could not draw a free share id", code="deck/share_id_exhausted", status=500)
    return DeckVersion.objects.create(deck=deck, number=1, **_version_fields(result))


_UNSET: Any = object()


@transaction.atomic
def deck_update(
    *,
    share_id: str,
    user,
    name: str | None = None,
    format_key: str | None = None,
    gunslinger: str | None = _UNSET,
    cards: list[str] | None = None,
    text: str | None = None,
) -> DeckVersion:
    """Edit `user`'s deck: a changed deck becomes a new version n+1; the old ones stay as they are.

    Whatever is not given keeps its current value: a new `format_key` alone re-checks the current
    deck (its pasted list, if it came as one) in that format; `gunslinger` or `cards` alone replace
    that part of the current deck; `text` replaces the whole deck. Every new version is re-checked
    against today's catalogue and may be illegal. When nothing about the deck changes (only the
    `name`, or the same deck sent again) no version is added and the current one is returned.
    Holds the deck row's lock, so two edits never take the same number.
    """
    deck = deck_get_by_share_id(share_id=share_id, for_update=True)
    deck_require_owner(deck, user)
    current = deck_version_get(deck=deck)
    format_key = format_key or current.format
    if text is not None or cards is not None:
        result = deck_check(
            format_key=format_key,
            text=text,
            cards=cards,
            gunslinger=(None if text is not None else current.gunslinger or None)
            if gunslinger is _UNSET
            else gunslinger,
        )
    elif gunslinger is not _UNSET:  # a new GUNSLINGER for the current cards
        if gunslinger is not None and not isinstance(gunslinger, str):
            raise Malformed('"gunslinger" must be a card id or name')
        deck_entry_check(gunslinger or "", "gunslinger")
        result = deck_cards_check(format_get(key=format_key), gunslinger, list(current.cards))
    else:  # the same deck, perhaps in another format
        result = deck_version_recheck(current, format_get(key=format_key))
    fields = _version_fields(result)
    unchanged = all(
        getattr(current, key) == value
        for key, value in fields.items()
        if key not in ("legal", "violations", "ban_list_version")
    )
    if name is not None:
        deck.name = _clean_name(name)
    deck.save()  # updated_at moves even for a rename
    if unchanged:
        return current
    return DeckVersion.objects.create(deck=deck, number=current.number + 1, **fields)


@transaction.atomic
def deck_delete(*, share_id: str, user) -> None:
    """Delete `user`'s deck and all its versions, unless one of them is frozen (`deck/frozen`, 409):
    a tournament or ladder entry points at it."""
    deck = deck_get_by_share_id(share_id=share_id, for_update=True)
    deck_require_owner(deck, user)
    frozen = deck.versions.filter(frozen_at__isnull=False).order_by("number").first()
    if frozen is not None:
        purposes = ", ".join(frozen.frozen_for.splitlines()) or "entered"
        raise Conflict(
            f"version {frozen.number} of this deck is frozen ({purposes}); a frozen deck cannot be deleted",
            code="deck/frozen",
        )
    deck.delete()


@transaction.atomic
def deck_version_freeze(*, deck_version: DeckVersion, purpose: str) -> DeckVersion:
    """Mark a version frozen for `purpose` (e.g. "tournament 12"): it can then never be deleted.

    Versions are never edited anyway (an edit adds a version); freezing only records that an entry
    depends on this one. Idempotent: freezing again keeps the first `frozen_at`; a new purpose is
    added to `frozen_for` (one a line), a known one changes nothing. Legality is the caller's
    business: registration first asks `deck_version_for_entry`.
    """
    purpose = " ".join(str(purpose).split())
    if not purpose:
        raise Malformed("say what the version is frozen for", code="deck/freeze_purpose_missing")
    version = DeckVersion.objects.select_for_update().get(pk=deck_version.pk)
    purposes = version.frozen_for.splitlines()
    if version.frozen_at is not None and purpose in purposes:
        return version
    if version.frozen_at is None:
        version.frozen_at = timezone.now()
    version.frozen_for = "\n".join([*purposes, purpose])
    version.save(update_fields=["frozen_at", "frozen_for"])
    return version


# -- ban lists ---------------------------------------------------------------------------------------------


@transaction.atomic
def ban_list_publish(
    *,
    format_key: str,
    version: str,
    effective_at,
    banned: list[str],
    restricted: list[str],
    max_restricted: int,
    notes: str = "",
    by,
) -> BanList:
    """Publish a new dated ban list for a format (staff only). It rules from `effective_at`; once that
    moment has passed, `ban_lists_take_effect` re-checks the saved decks entered in the format (beat
    runs it each minute; the API queues it at once for a list already in effect)."""
    if not getattr(by, "is_staff", False):
        raise Forbidden("only staff publish ban lists", code="ban_list/not_staff")
    fmt = format_get(key=format_key, status=404)
    try:
        checked = ban_list_from_data(
            {
                "version": version,
                "effective": effective_at.isoformat(),
                "banned": banned,
                "restricted": restricted,
                "max_restricted": max_restricted,
            },
            catalogue_get(),
        )
    except CatalogueError as error:
        raise Malformed(str(error), code="ban_list/invalid") from None
    if (
        version == load_formats(catalogue_get())[fmt.key].ban_list_version
        or BanList.objects.filter(format=fmt.key, version=version).exists()
    ):
        raise Conflict(
            f"{fmt.key} already has a ban list {version!r}; publish a new version",
            code="ban_list/version_taken",
        )
    row = BanList.objects.create(
        format=fmt.key,
        version=checked.version,
        effective_at=effective_at,
        banned=sorted(checked.banned),
        restricted=sorted(checked.restricted),
        max_restricted=checked.max_restricted,
        notes=str(notes)[:2000],
        published_by=by,
    )
    # Now for this transaction's own reads, and again at commit for every process's.
    ban_list_cache_clear(fmt.key)
    transaction.on_commit(lambda: ban_list_cache_clear(fmt.key))
    return row


def ban_lists_take_effect(*, now=None) -> list[BanList]:
    """Re-check, under every ban list that has taken effect and was not yet applied, the deck
    versions that matter in its format: each deck's current version and every frozen one (entered in
    a ladder or a tournament). Sends `deck_legality_changed` with the versions it made illegal.
    Each list is applied once: its row is locked and marked in the same transaction."""
    now = now or timezone.now()
    applied = []
    due = BanList.objects.filter(applied_at__isnull=True, effective_at__lte=now).order_by(
        "effective_at", "id"
    )
    for pk in list(due.values_list("pk", flat=True)):
        with transaction.atomic():
            row = (
                BanList.objects.select_for_update(skip_locked=True)
                .filter(pk=pk, applied_at__isnull=True)
                .first()
            )
            if row is None:
                continue
            illegal = _recheck_under(row, at=now)
            row.applied_at = now
            row.save(update_fields=["applied_at"])
            transaction.on_commit(
                lambda row=row, illegal=illegal: deck_legality_changed.send(
                    sender=BanList, format_key=row.format, ban_list_version=row.version, illegal=illegal
                )
            )
        applied.append(row)
    return applied


def _recheck_under(row: BanList, *, at) -> list[dict[str, Any]]:
    fmt = format_get(key=row.format, at=at)
    if fmt.ban_list_version != row.version:  # a later list already rules: it will be applied itself
        return []
    current_numbers = (
        DeckVersion.objects.filter(deck=OuterRef("deck_id")).order_by("-number").values("number")[:1]
    )
    versions = (
        DeckVersion.objects.filter(format=row.format)
        .annotate(current_number=Subquery(current_numbers))
        .filter(Q(frozen_at__isnull=False) | Q(number=F("current_number")))
        .select_related("deck")
    )
    illegal = []
    for version in versions.iterator(chunk_size=500):
        result = deck_version_recheck(version, fmt)
        if not result.legal:
            illegal.append(
                {
                    "deck_version_id": version.pk,
                    "deck_id": version.deck_id,
                    "share_id": version.deck.share_id,
                    "owner_id": version.deck.owner_id,
                    "number": version.number,
                    "violations": result.violations,
                }
            )
    return illegal
