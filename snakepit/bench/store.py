"""Event store figures: appends through the services, one event per transaction and in chunks, in
the bench's throwaway database."""

from __future__ import annotations

from matches.services import SeatSpec, match_create
from matches.store import match_advance
from snakepit.bench import Figure, rate


def figures() -> list[Figure]:
    rows = []
    for chunk, key, label in ((1, "single", "one transaction per event"), (200, "batched", "chunks of 200 events")):
        def play_one() -> int:
            match = match_create(
                game_key="rat-snake",
                seats=[SeatSpec(bot="random"), SeatSpec(bot="random")],
                bots_play="caller",
            )
            return match_advance(match_id=match.pk, chunk=chunk)

        rows.append(Figure(
            f"store.append_{key}_events_per_s", f"Event store appends, Rat-Snake bot matches, {label}", rate(play_one), "events/s"
        ))
    return rows
