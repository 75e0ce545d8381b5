"""Provable fairness: re-derive every chance event of a finished match from its revealed seed.

A match publishes SHA-256 of its secret seed when it is created and reveals the seed when it ends.
`verify_log` needs nothing but the set-up, the log and the seed, so anyone can repeat it; the
algorithm of each draw is spelled out in `engines.chance`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from engines.chance import draw, seed_commitment
from engines.errors import IllegalAction
from engines.protocol import Event, Game
from engines.replay import replay_from


@dataclass(frozen=True)
class Verification:
    verified: bool
    seed: str
    seed_commitment: str
    chance_events_checked: int
    events_replayed: int
    problems: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "verified": self.verified,
            "seed": self.seed,
            "seed_commitment": self.seed_commitment,
            "chance_events_checked": self.chance_events_checked,
            "events_replayed": self.events_replayed,
            "problems": list(self.problems),
        }


def verify_log(
    game: Game,
    *,
    seats: int,
    options: dict,
    seed: bytes,
    commitment: str,
    events: Iterable[tuple[int, Event]],
    recorded_outcome: dict | None,
) -> Verification:
    """Check a finished match from its revealed seed: the seed matches its commitment, every chance
    event is exactly the draw the seed gives for its sequence number, and the log replays to the
    recorded outcome. Pure: anyone holding the log and the seed can run the same steps."""
    problems = []
    if seed_commitment(seed) != commitment:
        problems.append("the revealed seed does not hash to the published commitment")
    state = game.new_state(seats=seats, options=options)
    checked = replayed = 0
    for seq, event in events:
        if event.kind == "chance":
            try:
                request = game.chance_request(state)
            except IllegalAction as failure:
                problems.append(f"event {seq}: no chance outcome is expected here ({failure.code})")
                break
            expected = draw(seed, seq, request)
            if dict(event.payload) != expected:
                problems.append(f"event {seq}: chance outcome {dict(event.payload)} is not the seed's {expected}")
            checked += 1
        result = replay_from(game, state, [event])
        if not result.ok:
            problems.append(f"event {seq}: does not apply ({result.failure.code})")
            break
        replayed += 1
    outcome = game.outcome(state)
    if (outcome.to_json() if outcome else None) != recorded_outcome:
        problems.append("the replayed outcome differs from the recorded one")
    return Verification(not problems, seed.hex(), commitment, checked, replayed, tuple(problems))
