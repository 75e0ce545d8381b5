"""The live state of running matches, kept in this process, so that appending an event never replays
the log.

A `LiveMatch` is what a match's log has reached: its engine state at sequence number `seq`, with
the set-up the store needs to append (the match row, its seats). Up to SNAKEPIT_LIVE_MATCHES of them
are kept, least recently used first out.

- A writer *checks out* a match's live state (takes it out of the cache, or rebuilds it), advances it
  in place while it appends, and *checks it in* once its transaction commits. Two threads never
  advance the same object, and a writer whose transaction rolls back never returns its copy: the
  next one rebuilds. Nothing enters the cache before a commit, so the cache never holds a state for
  a sequence number whose event was written differently in the end.
- Readers get a clone of it when it is at the log's head.
- The log stays the truth. A copy that another process has overtaken is caught up from the events
  after its `seq` (a few rows, not a replay); one whose match row is not the one it was built for
  (a primary key reused after a rollback) is rebuilt from the whole log.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction

from core.errors import ApplicationError
from engines.entropy import Contributions
from engines.errors import IllegalAction
from engines.protocol import EngineState, Game
from engines.registry import get_game
from engines.replay import replay_from
from matches.models import Match, MatchEvent


@dataclass(eq=False)
class LiveMatch:
    match: Match
    game: Game
    seat_users: tuple[int | None, ...]  # the user id at each seat (None: a bot)
    seat_bots: tuple[str, ...]  # the bot at each seat ("" for a person)
    seq: int  # the sequence number of the last event the state reflects (0: none)
    state: EngineState
    contributions: Contributions | None = None  # the seats' entropy parts, when the match takes them

    def chance_key(self) -> bytes:
        """What chance is drawn with: the seed, mixed with every seat's part when the match takes them."""
        seed = bytes(self.match.seed)
        return seed if self.contributions is None else self.contributions.key(seed)

    def belongs_to(self, match: Match) -> bool:
        """Whether this is the live state of that match row (not of another that had its key)."""
        return self.match.pk == match.pk and (self.match.created_at, self.match.seed_commitment) == (
            match.created_at,
            match.seed_commitment,
        )

    def seats_of(self, user) -> list[int]:
        return [
            index
            for index, user_id in enumerate(self.seat_users)
            if user_id is not None and user_id == user.pk
        ]


_cache: OrderedDict[int, LiveMatch] = OrderedDict()
_lock = threading.Lock()


def live_new(*, match: Match, game: Game, seat_users, seat_bots, state: EngineState) -> LiveMatch:
    contributions = (
        Contributions(seats=len(seat_users)) if match.entropy == Match.Entropy.CONTRIBUTED else None
    )
    return LiveMatch(match, game, tuple(seat_users), tuple(seat_bots), 0, state, contributions)


def live_checkout(match: Match, *, at_head: bool = False) -> LiveMatch:
    """The match's live state, for this writer alone until it checks it in: the cached one when it
    was built for this very match row, else rebuilt from the whole log. A cached one may be behind
    the log; with `at_head` it is caught up first (`live_catch_up`)."""
    with _lock:
        live = _cache.pop(match.pk, None)
    if live is None or not live.belongs_to(match):
        live = _rebuild(match)  # read at the head already
    elif at_head:
        live_catch_up(live)
    live.match = match
    return live


def live_catch_up(live: LiveMatch) -> LiveMatch:
    """Apply the events written after `live.seq` (by another process, or another writer)."""
    rows = list(MatchEvent.objects.filter(match_id=live.match.pk, seq__gt=live.seq).order_by("seq"))
    _apply_rows(live, rows)
    return live


def live_checkin(live: LiveMatch) -> None:
    """Return a live state to the cache once the current transaction commits (at once outside one)."""
    transaction.on_commit(lambda: _keep(live))


def live_return_unchanged(live: LiveMatch) -> None:
    """Return at once a live state that reflects only what is written already: a refused request
    read (and maybe caught up) it and changed nothing, and its transaction will not commit."""
    _keep(live)


def live_peek(match: Match, seq: int) -> EngineState | None:
    """A clone of the cached state of this match if it is at `seq`, else None; the cache keeps it."""
    with _lock:
        live = _cache.get(match.pk)
        if live is None or live.seq != seq or not live.belongs_to(match):
            return None
        _cache.move_to_end(match.pk)
        return live.state.clone()


def live_forget(match_id: int | None = None) -> None:
    """Drop one match's live state, or every one (tests, and a process that must start cold)."""
    with _lock:
        if match_id is None:
            _cache.clear()
        else:
            _cache.pop(match_id, None)


def _keep(live: LiveMatch) -> None:
    with _lock:
        _cache[live.match.pk] = live
        _cache.move_to_end(live.match.pk)
        while len(_cache) > settings.SNAKEPIT_LIVE_MATCHES:
            _cache.popitem(last=False)


def _rebuild(match: Match) -> LiveMatch:
    seats = list(match.seats.order_by("index").values_list("user_id", "bot"))
    game = get_game(match.game)
    live = live_new(
        match=match,
        game=game,
        seat_users=[user for user, _ in seats],
        seat_bots=[bot for _, bot in seats],
        state=game.new_state(seats=len(seats), options=match.options),
    )
    _apply_rows(live, list(match.events.order_by("seq")))
    return live


def _apply_rows(live: LiveMatch, rows: list[MatchEvent]) -> None:
    for row in rows:
        if row.seq != live.seq + 1:
            raise ApplicationError(
                f"match {live.match.pk}: the log jumps from event {live.seq} to {row.seq}",
                code="match/corrupt_log",
                status=500,
            )
        failure = live_apply_row(live, row)
        if failure is not None:
            raise ApplicationError(
                f"match {live.match.pk} does not replay: event {row.seq} fails with "
                f"{failure.code}: {failure.detail}",
                code="match/corrupt_log",
                status=500,
            )
        live.seq = row.seq


def live_apply_row(live: LiveMatch, row: MatchEvent) -> IllegalAction | None:
    """Advance the live state by one stored event (the engine's, or the store's own: an entropy step
    advances the contributions; a void or a correction changes no state); the failure, if any."""
    if row.is_engine_event:
        return replay_from(live.game, live.state, [row.to_engine()]).failure
    if row.kind == MatchEvent.Kind.ENTROPY:
        if live.contributions is None:
            return IllegalAction("this match takes no entropy from its seats", code="entropy/not_taken")
        try:
            live.contributions.apply(row.seat, row.payload)
        except IllegalAction as failure:
            return failure
    return None
