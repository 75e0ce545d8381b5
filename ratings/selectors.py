"""Reads for ladders: leaderboards, histories, and the proof that live ratings equal a rebuild."""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import reduce

from django.db.models import (
    Case,
    Count,
    F,
    Max,
    Min,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
    When,
    Window,
)
from django.db.models.functions import Coalesce, RowNumber
from django.utils import timezone

from core.errors import NotFound
from decks.selectors import deck_version_judged_now
from matches.models import Match, MatchEvent
from ratings import skill
from ratings.models import Ladder, LadderEntry, LadderMatch, LadderRound, RatedMatch, RatingChange

TOLERANCE = 1e-9


def entries_ranked(
    *, ladder: Ladder, include_left: bool = False, include_inactive: bool = False, now=None
) -> QuerySet[LadderEntry]:
    """The leaderboard's entries, best ordinal first (ties: entry id, so pages are stable). Entries
    that left, and entries that have not played for the ladder's `inactive_after_days` (counted from
    their last rated match, or from joining), are left out unless asked for; they come back as soon
    as they play, as on Lichess."""
    entries = ladder.entries.select_related("user").order_by("-ordinal", "pk")
    if not include_left:
        entries = entries.filter(left_at__isnull=True)
    if not include_inactive and ladder.inactive_after_days is not None:
        entries = entries.filter(_recently_played(ladder, now))
    return entries


def _recently_played(ladder: Ladder, now) -> Q:
    cutoff = (now or timezone.now()) - timedelta(days=ladder.inactive_after_days)
    return Q(last_played_at__gte=cutoff) | Q(last_played_at__isnull=True, joined_at__gte=cutoff)


def leaderboard_changes_at(*, ladders: list[Ladder], now=None) -> datetime | None:
    """When time alone next changes these ladders' leaderboards: the moment the first of their
    entries still counted as playing goes inactive (`_recently_played`), left entries included (their
    `inactive` column turns too). None if none will; every other change is a write."""
    now = now or timezone.now()
    moments = []
    for days, group in _alike_by_inactivity(ladders).items():
        if days is None:
            continue
        seen = (
            LadderEntry.objects.filter(ladder__in=group)
            .annotate(seen=Coalesce("last_played_at", "joined_at"))
            .filter(seen__gte=now - timedelta(days=days))
            .aggregate(first=Min("seen"))["first"]
        )
        if seen is not None:
            moments.append(seen + timedelta(days=days))
    return min(moments, default=None)


def _alike_by_inactivity(ladders: list[Ladder]) -> dict[int | None, list[Ladder]]:
    """The ladders grouped by `inactive_after_days`: one condition per group (most sites have one)."""
    alike: dict[int | None, list[Ladder]] = {}
    for ladder in ladders:
        alike.setdefault(ladder.inactive_after_days, []).append(ladder)
    return alike


def entry_is_inactive(*, entry: LadderEntry, ladder: Ladder, now=None) -> bool:
    if ladder.inactive_after_days is None:
        return False
    cutoff = (now or timezone.now()) - timedelta(days=ladder.inactive_after_days)
    return (entry.last_played_at or entry.joined_at) < cutoff


def entry_is_provisional(*, entry: LadderEntry, ladder: Ladder) -> bool:
    """The ladder's provisional rule (skill.is_provisional with its pod size and sigma threshold)."""
    return skill.is_provisional(
        skill.Skill(entry.mu, entry.sigma),
        entry.games,
        seats=ladder.seats_per_match,
        max_sigma=ladder.provisional_sigma,
    )


def leaderboard_row(*, entry: LadderEntry, ladder: Ladder, position: int | None, now=None) -> dict:
    return {
        "position": position,
        "entry": entry.pk,
        "competitor": entry.label,
        "user": entry.user.get_username() if entry.user_id else None,
        "bot": entry.bot or None,
        "mu": entry.mu,
        "sigma": entry.sigma,
        "ordinal": entry.ordinal,
        "games": entry.games,
        "provisional": entry_is_provisional(entry=entry, ladder=ladder),
        "active": entry.is_active,
        "inactive": entry_is_inactive(entry=entry, ladder=ladder, now=now),
        "paused": entry.paused_reason or None,
        "last_played_at": entry.last_played_at,
    }


def leaderboard(
    *, ladder: Ladder, include_left: bool = False, include_inactive: bool = False, now=None
) -> list[dict]:
    entries = entries_ranked(
        ladder=ladder, include_left=include_left, include_inactive=include_inactive, now=now
    )
    return [
        leaderboard_row(entry=entry, ladder=ladder, position=position, now=now)
        for position, entry in enumerate(entries, start=1)
    ]


@dataclass(frozen=True)
class LeaderboardSummary:
    """What a list of ladders shows of one leaderboard: its first row with a game played (as
    `leaderboard_row` gives it, or None) and how many rows it has."""

    leader: dict | None
    entries: int


def leaderboard_summaries(*, ladders: list[Ladder], now=None) -> dict[int, LeaderboardSummary]:
    """Each ladder's `LeaderboardSummary` by ladder id, equal to what its whole `leaderboard` would
    give, in one query however many ladders are listed: the rows are counted and ranked in the
    database (windows over each ladder's rows), so no leaderboard is built."""
    if not ladders:
        return {}
    now = now or timezone.now()
    alike = _alike_by_inactivity(ladders)
    on_board = Q(left_at__isnull=True) & reduce(
        operator.or_,
        (
            Q(ladder__in=group) & (Q() if days is None else _recently_played(group[0], now))
            for days, group in alike.items()
        ),
    )
    # One row per ladder: its first entry ranked with those that played first (the leader, if it has
    # played), with its position on the leaderboard and the count of the ladder's rows, all computed
    # over the same rows before filtering.
    by_ladder = {"partition_by": F("ladder")}
    ranked = [F("ordinal").desc(), F("pk").asc()]  # entries_ranked's order
    played_first = Case(When(games__gt=0, then=Value(0)), default=Value(1))
    firsts = (
        LadderEntry.objects.filter(on_board)
        .select_related("user")
        .annotate(
            rows=Window(Count("pk"), **by_ladder),
            position=Window(RowNumber(), order_by=ranked, **by_ladder),
            place=Window(RowNumber(), order_by=[played_first.asc(), *ranked], **by_ladder),
        )
        .filter(place=1)
    )
    by_id = {ladder.pk: ladder for ladder in ladders}
    summaries = {ladder.pk: LeaderboardSummary(leader=None, entries=0) for ladder in ladders}
    for first in firsts:
        leader = (
            leaderboard_row(entry=first, ladder=by_id[first.ladder_id], position=first.position, now=now)
            if first.games
            else None
        )
        summaries[first.ladder_id] = LeaderboardSummary(leader=leader, entries=first.rows)
    return summaries


def entry_history(*, entry: LadderEntry) -> QuerySet[RatingChange]:
    return entry.history.select_related("rated_match").order_by("-rated_match_id")


def ladder_matches(*, ladder: Ladder) -> QuerySet[LadderMatch]:
    return LadderMatch.objects.filter(round__ladder=ladder).select_related("match", "round").order_by("-pk")


def entries_in_running_matches(*, ladder: Ladder) -> set[int]:
    """The entries seated in one of the ladder's running matches: they sit a round out, and keep the
    season their match started in until it is rated."""
    busy = set()
    for ids in LadderMatch.objects.filter(
        round__ladder=ladder, match__status=Match.Status.RUNNING
    ).values_list("entries", flat=True):
        busy.update(ids)
    return busy


def ladder_matches_to_rate(*, ladder_id: int) -> QuerySet[LadderMatch]:
    """The ladder's finished matches still to rate, in the order they finished (ties: match id).
    Read through the partial index on unrated ladder matches."""
    return LadderMatch.objects.filter(
        rated=False, round__ladder_id=ladder_id, match__status=Match.Status.FINISHED
    ).order_by("match__finished_at", "match_id")


def ladder_to_rate_after(*, match_id: int) -> int | None:
    """The ladder whose rating run must be queued now that `match_id` has finished, or None.

    None if it is not a ladder match, or if a match of its ladder that finished before it is still
    unrated. That match is rated by a run (queued at its own finish, or found due the same way),
    and a run goes on until a batch finds nothing, so its next batch finds this match too. Only
    earlier matches count: two matches finishing at once cannot each defer to the other.
    One run per burst of finishes, decided by one indexed read; a lost run is found by the sweep.
    """
    row = (
        LadderMatch.objects.filter(match_id=match_id)
        .values_list("round__ladder_id", "match__finished_at")
        .first()
    )
    if row is None:
        return None
    ladder_id, finished_at = row
    if finished_at is None:
        return ladder_id
    earlier = Q(match__finished_at__lt=finished_at) | Q(match__finished_at=finished_at, match_id__lt=match_id)
    return None if ladder_matches_to_rate(ladder_id=ladder_id).filter(earlier).exists() else ladder_id


def ladders_with_matches_to_rate() -> list[int]:
    """Ladders with a finished match still unrated (the sweep's read; the same partial index)."""
    return sorted(
        set(
            LadderMatch.objects.filter(rated=False, match__status=Match.Status.FINISHED).values_list(
                "round__ladder_id", flat=True
            )
        )
    )


@dataclass
class RebuildReport:
    ladders: int = 0
    matches_rated: int = 0
    unrated_matches: list[int] = field(default_factory=list)
    disagreements: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.disagreements and not self.unrated_matches


def ratings_rebuild(*, ladder: Ladder | None = None) -> RebuildReport:
    """Recompute every rating from the finished matches in the order they were rated (RatedMatch
    ids: runs write them in finish order, one ladder batch at a time) and compare with what is
    stored, change by change and entry by entry. Writes nothing."""
    report = RebuildReport()
    for current in [ladder] if ladder else Ladder.objects.order_by("pk"):
        report.ladders += 1
        _rebuild_ladder(current, report)
    return report


class LadderReplay:
    """A ladder's ratings rated again from its RatedMatch rows, in their order, as the rating runs rate
    them: an entry enters a later season (reset unless carried over) just before its first match of
    that season. `ratings_rebuild` compares what it gives with what is stored; `ratings.recompute`
    writes it after outcomes were corrected."""

    def __init__(self, ladder: Ladder) -> None:
        self.ladder = ladder
        self.initial = skill.Skill.initial(ladder.rating_model)
        self.ratings: dict[int, skill.Skill] = {}
        self.games: dict[int, int] = {}
        self.seasons: dict[int, int] = {}

    def enter(self, entry_id: int, season: int) -> None:
        while self.seasons.get(entry_id, 1) < season:
            self.seasons[entry_id] = self.seasons.get(entry_id, 1) + 1
            if not self.ladder.carry_over:
                self.ratings[entry_id] = skill.season_reset(
                    self.ratings.get(entry_id, self.initial), initial=self.initial
                )
                self.games[entry_id] = 0

    def matches(self):
        """Each rated match with its seated entries, their ranks, and their ratings before and after."""
        rated_matches = RatedMatch.objects.filter(ladder=self.ladder).select_related(
            "match", "match__ladder_match"
        )
        for rated in rated_matches.order_by("pk"):
            seated = rated.match.ladder_match.entries
            ranks = rated.match.outcome["ranks"]
            for entry_id in seated:
                self.enter(entry_id, rated.season)
            before = [self.ratings.get(entry_id, self.initial) for entry_id in seated]
            after = skill.rate(self.ladder.rating_model, before, ranks)
            for entry_id, new in zip(seated, after):
                self.ratings[entry_id] = new
                self.games[entry_id] = self.games.get(entry_id, 0) + 1
            yield rated, seated, ranks, before, after

    def entry_result(self, entry: LadderEntry) -> tuple[skill.Skill, int]:
        """The entry's rating and games once it is in the season it is stored in."""
        self.enter(entry.pk, entry.season)
        return self.ratings.get(entry.pk, self.initial), self.games.get(entry.pk, 0)


def _rebuild_ladder(ladder: Ladder, report: RebuildReport) -> None:
    """Replays the ladder (`LadderReplay`); the entries end in the season they are stored in (a
    season close moves the idle ones at once)."""
    replay = LadderReplay(ladder)
    stored_changes = {
        (change.rated_match_id, change.entry_id): change
        for change in RatingChange.objects.filter(rated_match__ladder=ladder)
    }
    for rated, seated, _, _, after in replay.matches():
        for entry_id, new in zip(seated, after):
            stored = stored_changes.get((rated.pk, entry_id))
            if (
                stored is None
                or abs(stored.mu_after - new.mu) > TOLERANCE
                or abs(stored.sigma_after - new.sigma) > TOLERANCE
            ):
                report.disagreements.append(
                    f"{ladder.slug}: match {rated.match_id}, entry {entry_id}: history differs"
                )
        report.matches_rated += 1
    for entry in ladder.entries.all():
        if replay.seasons.get(entry.pk, 0) > entry.season or entry.season > ladder.season:
            report.disagreements.append(
                f"{ladder.slug}: entry {entry.pk} is in season {entry.season}, out of order"
            )
        expected, games = replay.entry_result(entry)
        if (
            abs(entry.mu - expected.mu) > TOLERANCE
            or abs(entry.sigma - expected.sigma) > TOLERANCE
            or entry.games != games
        ):
            report.disagreements.append(
                f"{ladder.slug}: entry {entry.pk} ({entry.label}) is mu {entry.mu:.6f}, "
                f"sigma {entry.sigma:.6f}, "
                f"{entry.games} games; the rebuild gives {expected.mu:.6f}, {expected.sigma:.6f}, {games}"
            )
    report.unrated_matches.extend(
        LadderMatch.objects.filter(round__ladder=ladder, match__status="finished", match__rating__isnull=True)
        .order_by("pk")
        .values_list("match_id", flat=True)
    )
    # `rated` is what the rating runs look for: it must agree with the RatedMatch rows exactly.
    for match_id, rated in (
        LadderMatch.objects.filter(round__ladder=ladder)
        .filter(Q(rated=True, match__rating__isnull=True) | Q(rated=False, match__rating__isnull=False))
        .order_by("pk")
        .values_list("match_id", "rated")
    ):
        report.disagreements.append(
            f"{ladder.slug}: match {match_id} is marked {'rated' if rated else 'unrated'} but has "
            f"{'no' if rated else 'a'} rating"
        )


def best_ordinals_by_user(*, game_key: str, user_ids: list[int]) -> dict[int, float]:
    """Each user's best ladder ordinal in a game, over all its ladders; users with no entry are left
    out. Tournaments seed by rating through this (flows.tournament_start)."""
    best: dict[int, float] = {}
    rows = LadderEntry.objects.filter(ladder__game=game_key, user__in=user_ids).values_list(
        "user_id", "ordinal"
    )
    for user_id, ordinal in rows:
        best[user_id] = max(best.get(user_id, float("-inf")), ordinal)
    return best


def ladders_version() -> tuple[int, int, int]:
    """A value that differs after any write to any ladder or its entries, read in one query: a new
    ladder raises the highest id (ids are never reused), a deleted one lowers the count, and every
    other change raises the sum of the revisions (`Ladder.revision`, which only ever grows)."""
    version = Ladder.objects.aggregate(count=Count("pk"), last=Max("pk"), revisions=Sum("revision"))
    return version["count"], version["last"] or 0, version["revisions"] or 0


def ladders_with_entry_counts() -> QuerySet[Ladder]:
    """Ladders, each with `active_entries` (those not left) counted in the same query, so that a
    listing does not count each ladder's entries on its own."""
    return Ladder.objects.annotate(active_entries=Count("entries", filter=Q(entries__left_at__isnull=True)))


def ladder_rounds(*, ladder: Ladder) -> QuerySet[LadderRound]:
    """The ladder's rounds, newest first (season, then number: a stable order for pages)."""
    return ladder.rounds.annotate(match_count=Count("matches")).order_by("-season", "-number")


def ladder_round_get(*, ladder: Ladder, season: int, number: int) -> LadderRound:
    ladder_round = ladder.rounds.filter(season=season, number=number).first()
    if ladder_round is None:
        raise NotFound(f"no round {number} of season {season} on {ladder.slug}", code="round/not_found")
    return ladder_round


def entry_get(*, ladder: Ladder, entry_id: int) -> LadderEntry:
    entry = ladder.entries.select_related("user").filter(pk=entry_id).first()
    if entry is None:
        raise NotFound(f"no entry {entry_id} on {ladder.slug}", code="entry/not_found")
    return entry


def entry_head_to_head(*, entry: LadderEntry) -> QuerySet:
    """The entry's record against each opponent it met in rated matches: games, wins (it finished
    ahead), losses and draws (same rank), over every season; most-met opponents first, then by id.
    One grouped query over the opponents' rating changes in the entry's matches."""
    own_rank = RatingChange.objects.filter(rated_match=OuterRef("rated_match"), entry=entry).values("rank")[
        :1
    ]
    return (
        RatingChange.objects.filter(
            rated_match__in=RatingChange.objects.filter(entry=entry).values("rated_match")
        )
        .exclude(entry=entry)
        .annotate(own_rank=Subquery(own_rank))
        .values("entry")
        .annotate(
            games=Count("pk"),
            wins=Count("pk", filter=Q(own_rank__lt=F("rank"))),
            losses=Count("pk", filter=Q(own_rank__gt=F("rank"))),
            draws=Count("pk", filter=Q(own_rank=F("rank"))),
            last_match=Max("rated_match__match_id"),
        )
        .order_by("-games", "entry")
    )


def entry_forfeits(*, entry: LadderEntry) -> list[dict]:
    """How often the entry forfeited its ladder matches, by the reason in the log's forfeit event
    (a missed move or match deadline, a resignation, a bot's illegal move); most frequent first."""
    seats = {}
    rated = RatingChange.objects.filter(entry=entry).values_list(
        "rated_match__match_id", "rated_match__match__ladder_match__entries"
    )
    for match_id, seated in rated.iterator():
        seats[match_id] = seated.index(entry.pk)
    counts: dict[str, int] = {}
    forfeits = MatchEvent.objects.filter(
        kind=MatchEvent.Kind.FORFEIT,
        match_id__in=RatingChange.objects.filter(entry=entry).values("rated_match__match_id"),
    ).values_list("match_id", "seat", "payload")
    for match_id, seat, payload in forfeits:
        if seats.get(match_id) == seat:
            reason = str(payload.get("reason", ""))
            counts[reason] = counts.get(reason, 0) + 1
    return [
        {"reason": reason, "count": count}
        for reason, count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    ]


def entry_deck_violations(*, entry: LadderEntry) -> list[dict]:
    """For an entry paused because a ban list made its deck illegal: what its owner must change."""
    if entry.paused_reason != LadderEntry.Pause.DECK_ILLEGAL or entry.deck_version is None:
        return []
    return deck_version_judged_now(
        entry.deck_version, format_key=entry.ladder.options.get("format")
    ).violations
