"""Provable fairness: re-derive every chance event of a finished match from its revealed seed and,
where the seats contributed entropy, from their revealed parts.

A match publishes SHA-256 of its secret seed when it is created and reveals the seed when it ends.
`verify_log` needs nothing but the set-up, the log and the seed, so anyone can repeat it; the
algorithm of each draw is spelled out in `engines.chance`, and how the seats' parts are committed,
revealed, defaulted and mixed in, in `engines.entropy`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from engines.chance import draw, seed_commitment
from engines.entropy import Contributions
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
    entropy: str = "server"
    parts: tuple[str | None, ...] = ()  # each seat's part (hex), contributed or defaulted
    lapsed: tuple[tuple[int, str], ...] = ()  # (seat, the step it missed)

    def as_dict(self) -> dict[str, Any]:
        return {
            "entropy": self.entropy,
            "parts": list(self.parts),
            "lapsed": {str(seat): missed for seat, missed in self.lapsed},
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
    contributed: bool = False,
) -> Verification:
    """Check a finished match from its revealed seed: the seed matches its commitment, every chance
    event is exactly the draw the seed gives for its sequence number, and the log replays to the
    recorded outcome. Pure: anyone holding the log and the seed can run the same steps.

    With `contributed`, the log's `entropy` events are checked too (each reveal hashes to its
    commitment, each lapse's default is the one the commitments fix, every part is in before the
    first chance event) and the draws are re-derived from the seed mixed with the parts. Other
    kinds the store writes for itself (`void`, `correction`) change no state and are passed over."""
    problems = []
    if seed_commitment(seed) != commitment:
        problems.append("the revealed seed does not hash to the published commitment")
    state = game.new_state(seats=seats, options=options)
    contributions = Contributions(seats=seats) if contributed else None
    key = None if contributed else seed
    checked = replayed = 0
    for seq, event in events:
        if event.kind == "entropy":
            if contributions is None:
                problems.append(f"event {seq}: an entropy step in a match that takes none")
                break
            try:
                contributions.apply(event.seat, dict(event.payload))
            except IllegalAction as failure:
                problems.append(
                    f"event {seq}: the entropy step is refused ({failure.code}: {failure.detail})"
                )
                break
            continue
        if event.kind not in ("action", "chance", "forfeit"):
            continue
        if event.kind == "chance":
            if key is None:
                if contributions is None or contributions.phase != "done":
                    problems.append(f"event {seq}: a chance event before every seat's entropy part was in")
                    break
                key = contributions.key(seed)
            try:
                request = game.chance_request(state)
            except IllegalAction as failure:
                problems.append(f"event {seq}: no chance outcome is expected here ({failure.code})")
                break
            expected = draw(key, seq, request)
            if dict(event.payload) != expected:
                problems.append(
                    f"event {seq}: chance outcome {dict(event.payload)} is not the seed's {expected}"
                )
            checked += 1
        result = replay_from(game, state, [event])
        if not result.ok:
            problems.append(f"event {seq}: does not apply ({result.failure.code})")
            break
        replayed += 1
    outcome = game.outcome(state)
    if (outcome.to_json() if outcome else None) != recorded_outcome:
        problems.append("the replayed outcome differs from the recorded one")
    return Verification(
        not problems,
        seed.hex(),
        commitment,
        checked,
        replayed,
        tuple(problems),
        entropy="contributed" if contributed else "server",
        parts=tuple(contributions.parts) if contributions else (),
        lapsed=tuple(sorted(contributions.lapsed.items())) if contributions else (),
    )
