"""Who may read an event's payload while its match runs, as the store keeps it on the row.

The engine says it (`Game.event_audience`, asked with the state just before the event): everyone
(None), or a set of seats, possibly empty (a shuffle nobody sees). The store writes that answer into
`MatchEvent.audience` when it appends the event, so a listing decides what a viewer may read from the
rows alone, without replaying the log. One integer holds it:

- `PUBLIC` (-1, every bit set): everyone, spectators included;
- otherwise a bitmask of the seats that may read it (0: nobody);
- NULL: not known, for a row written before the column existed and not yet filled (migration 0006
  fills every such row; `audiences_replayed` is the rule it fills them by).

A bitmask, not a list or a side table: a bit test (`audience & (1 << seat)`) is plain SQL on SQLite
and PostgreSQL alike, and the row needs no join. The widest game seats 8, well inside 31 bits.
Once a match is finished every payload is public whatever its audience; the listing says so.
"""

from __future__ import annotations

from collections.abc import Iterable

from core.errors import ApplicationError
from engines.errors import EngineError
from engines.protocol import Event, Game
from engines.registry import get_game
from matches.models import ENGINE_KINDS, MatchEvent

PUBLIC = -1
MAX_SEATS = 31  # the bits of a signed 32-bit integer, less its sign


def audience_mask(seats: frozenset[int] | None) -> int:
    """The stored form of an engine's audience."""
    if seats is None:
        return PUBLIC
    mask = 0
    for seat in seats:
        if not 0 <= seat < MAX_SEATS:
            raise ValueError(f"seat {seat} does not fit an audience bitmask")
        mask |= 1 << seat
    return mask


def audience_admits(mask: int, viewer_seat: int | None) -> bool:
    """Whether a viewer (a seat, or None for a spectator) may read a payload with this audience."""
    if mask == PUBLIC:
        return True
    return viewer_seat is not None and 0 <= viewer_seat < MAX_SEATS and bool(mask >> viewer_seat & 1)


def event_apply(game: Game, state, event: Event) -> int:
    """Apply `event` to `state` in place, as `Game.apply` does (and raising what it raises, leaving the
    state as it was), and return the event's audience, which the engine reads off the state before."""
    audience = game.event_audience(state, event)
    game.apply(state, event)
    return PUBLIC if audience is None else audience_mask(audience)


def audiences_replayed(
    game_key: str, *, seats: int, options: dict, rows: Iterable[tuple[int, str, int | None, dict, int]]
) -> dict[int, int]:
    """Each event's audience by seq, by replaying the log from the start: the rule every listing
    followed before the audience was stored, kept to fill rows written before then. `rows` are
    (seq, kind, seat, payload, schema_version) in seq order; the store's own kinds (entropy, void,
    correction) are public. Stops at the first event the engine refuses: the rows from there on are
    left out (their audience is unknown)."""
    game = get_game(game_key)
    state = game.new_state(seats=seats, options=options)
    audiences: dict[int, int] = {}
    for seq, kind, seat, payload, schema_version in rows:
        if kind not in ENGINE_KINDS:
            audiences[seq] = PUBLIC
            continue
        event = MatchEvent(seq=seq, kind=kind, seat=seat, payload=payload, schema_version=schema_version)
        try:
            audiences[seq] = event_apply(game, state, event.to_engine())
        except (EngineError, ApplicationError):  # no longer accepted: the rest stays unknown
            break
    return audiences
