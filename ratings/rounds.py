"""A ladder's rounds: pair the free entries into matches of the ladder's seat count and start them."""

from __future__ import annotations

import random
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.module_loading import import_string

from decks.selectors import deck_version_brought
from matches.models import Match
from matches.services import SeatSpec, match_create
from ratings import matchmaking, selectors
from ratings.changes import ladder_changed
from ratings.models import Ladder, LadderEntry, LadderMatch, LadderRound


@dataclass(frozen=True)
class RoundResult:
    round: LadderRound | None
    matches: list[Match]


def ladder_round_create(
    *, ladder_id: int, rng: random.Random | None = None, bots_play: str = "auto"
) -> RoundResult:
    """Pair the ladder's free entries into matches of its seat count and start them.

    Entries still in an unfinished ladder match sit this round out. Matches of bots only are played
    by workers; people play theirs through the API, under the ladder's deadlines. `bots_play` is
    `match_create`'s ("caller": the caller plays the bots with `match_advance`, as the bench does).
    """
    rng = rng or random.Random()
    with transaction.atomic():
        ladder = Ladder.objects.select_for_update().get(pk=ladder_id)
        if not ladder.is_active or ladder.archived_at is not None:
            return RoundResult(None, [])
        if ladder.season_ends_at is not None and ladder.season_ends_at <= timezone.now():
            return RoundResult(None, [])  # the season is over: the next starts when the sweep closes it
        busy = selectors.entries_in_running_matches(ladder=ladder)
        free = ladder.entries.filter(left_at__isnull=True, paused_reason="").exclude(pk__in=busy)
        entries = {entry.pk: entry for entry in free.select_related("user", "deck_version")}
        if len(entries) < ladder.seats_per_match:
            return RoundResult(None, [])
        competitors = [
            matchmaking.Competitor(id=str(entry.pk), mu=entry.mu, sigma=entry.sigma, games=entry.games)
            for entry in entries.values()
        ]
        previous = ladder.rounds.order_by("-pk").first()
        played_last = set()
        if previous is not None:
            for seated in previous.matches.values_list("entries", flat=True):
                played_last.update(seated)
        plan = matchmaking.pair_round(
            competitors,
            ladder.seats_per_match,
            rng=rng,
            recent_opponents=_last_opponents(ladder, entries),
            sat_out_last_round=[
                str(entry_id) for entry_id in entries if previous and entry_id not in played_last
            ],
        )
        if not plan.pods:
            return RoundResult(None, [])
        number = (ladder.rounds.filter(season=ladder.season).aggregate(n=Max("number"))["n"] or 0) + 1
        explanation = {
            "summary": plan.summary,
            "pods": [pod.explanation for pod in plan.pods],
            "sat_out": [{"entry": int(sit_out.id), "reason": sit_out.reason} for sit_out in plan.sat_out],
        }
        round_ = LadderRound.objects.create(
            ladder=ladder, season=ladder.season, number=number, explanation=explanation
        )
        matches = []
        for pod in plan.pods:
            # Pods list members strongest first; seat order (who throws first) is drawn instead.
            seated = rng.sample(
                [entries[int(competitor_id)] for competitor_id in pod.members], len(pod.members)
            )
            match = match_create(
                game_key=ladder.game,
                options=ladder.options,
                seats=[_seat(entry) for entry in seated],
                bots_play=bots_play,
                # An uploaded bot holds its seat through an account, yet is no person: only a person's
                # own part of the chance protects anyone, so a table of bots draws from the seed alone.
                entropy="auto"
                if any(entry.user_id and not entry.bot_version_id for entry in seated)
                else "server",
            )
            LadderMatch.objects.create(round=round_, match=match, entries=[entry.pk for entry in seated])
            uploaded = {seat: entry.bot_version_id for seat, entry in enumerate(seated)}
            uploaded = {seat: version for seat, version in uploaded.items() if version}
            if uploaded:
                # The bots app (a sibling) binds the versions to their seats and has a worker play them.
                import_string(settings.SNAKEPIT_LADDER_UPLOADED_BOTS)(match=match, versions=uploaded)
            matches.append(match)
        ladder_changed(ladder_id=ladder_id)
        return RoundResult(round_, matches)


def _seat(entry: LadderEntry) -> SeatSpec:
    """A match seat for an entry, bringing its frozen deck where it has one."""
    deck = deck_version_brought(entry.deck_version) if entry.deck_version_id else None
    return SeatSpec(user=entry.user, bot=entry.bot, deck=deck)


def _last_opponents(ladder: Ladder, entries: dict[int, LadderEntry]) -> dict[str, frozenset[str]]:
    """Each entry's opponents in its most recent ladder match (to avoid immediate rematches)."""
    last: dict[str, frozenset[str]] = {}
    for seated in (
        LadderMatch.objects.filter(round__ladder=ladder)
        .order_by("-pk")
        .values_list("entries", flat=True)[:2000]
    ):
        for entry_id in seated:
            if entry_id in entries and str(entry_id) not in last:
                last[str(entry_id)] = frozenset(str(other) for other in seated if other != entry_id)
        if len(last) == len(entries):
            break
    return last
