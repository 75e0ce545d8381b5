"""Contributed entropy: chance that neither the server nor any seat (nor any coalition short of all
of them) can steer.

The server commits to its secret seed when the match is created (`engines.chance.seed_commitment`).
Then, before the first chance event, every seat adds a part of its own in two steps, each an event
of the match log:

1. commit: the seat publishes `commitment = SHA-256(value)`, where `value` is the 64-character
   lowercase hex text of 32 random bytes it chose (hashed as text, so one shell line computes it:
   `printf %s "$VALUE" | sha256sum`). Commitments are accepted while any seat has yet to commit.
2. reveal: once every seat has committed (or lapsed), each seat reveals its `value`, which must hash
   to its commitment.

A seat that misses a step by its deadline *lapses*: the service records a `lapse` event and the
seat's part becomes `lapse_part(seat, commitments)`, a value fixed by the commitments as they stood
when the commit window closed. A seat that withholds its reveal therefore cannot stop the match, and
what it could choose between (its value or the default) it cannot evaluate, because the seed that
both are mixed with stays secret until the match ends.

Chance is then drawn exactly as `engines.chance` specifies, with the key

    key = HMAC-SHA256(key=seed, msg="snakepit/entropy/v1/" + "/".join(part_hex of seat 0, 1, ...))

instead of the seed itself; a match without contributions keeps drawing with its seed, so every
match from before stays verifiable as it was. Pure: no Django, clock, random or I/O.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from engines.errors import IllegalAction

PART_BYTES = 32
_HEX64 = re.compile(r"[0-9a-f]{64}")
Phase = Literal["commit", "reveal", "done"]


def part_commitment(value_hex: str) -> str:
    """The commitment to a part: SHA-256 of its hex text (`printf %s "$VALUE" | sha256sum`)."""
    return hashlib.sha256(value_hex.encode("ascii")).hexdigest()


def lapse_part(seat: int, commitments: Sequence[str | None]) -> str:
    """The part of a seat that lapsed: fixed by the commitments once the commit window closed (a seat
    that never committed counts as "-")."""
    text = f"snakepit/entropy/v1/lapse/{seat}/" + "/".join(commitment or "-" for commitment in commitments)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def chance_key(seed: bytes, parts: Sequence[str]) -> bytes:
    """The key chance is drawn with once every seat's part is known (hex text, in seat order)."""
    return hmac.digest(seed, ("snakepit/entropy/v1/" + "/".join(parts)).encode("ascii"), "sha256")


def hex64(value: Any, *, what: str) -> str:
    """`value` as 64 lowercase hex digits, or `IllegalAction` (code `entropy/malformed`)."""
    text = value.strip().lower() if isinstance(value, str) else ""
    if not _HEX64.fullmatch(text):
        raise IllegalAction(f"{what} is 64 hex digits (32 bytes)", code="entropy/malformed")
    return text


@dataclass(eq=False)
class Contributions:
    """Where the seats' commit and reveal stand, advanced by `apply` one entropy event at a time."""

    seats: int
    commitments: list[str | None] = field(default_factory=list)
    parts: list[str | None] = field(default_factory=list)
    lapsed: dict[int, str] = field(default_factory=dict)  # seat -> the step it missed
    commit_closed: bool = False

    def __post_init__(self) -> None:
        self.commitments = self.commitments or [None] * self.seats
        self.parts = self.parts or [None] * self.seats

    @property
    def phase(self) -> Phase:
        if not self.commit_closed:
            return "commit"
        return "done" if all(part is not None for part in self.parts) else "reveal"

    def awaited(self) -> list[int]:
        """The seats whose step the current phase still waits for."""
        if self.phase == "commit":
            return [
                seat
                for seat in range(self.seats)
                if self.commitments[seat] is None and seat not in self.lapsed
            ]
        return [seat for seat in range(self.seats) if self.parts[seat] is None]

    def key(self, seed: bytes) -> bytes:
        if self.phase != "done":
            raise IllegalAction("the seats' entropy is not all in yet", code="entropy/pending")
        return chance_key(seed, [part for part in self.parts if part is not None])

    def lapse_payload(self, seat: int) -> dict[str, Any]:
        """The lapse event of a seat the current phase still waits for (its deadline passed)."""
        missed = "commit" if self.phase == "commit" else "reveal"
        payload: dict[str, Any] = {"step": "lapse", "missed": missed}
        if missed == "reveal":
            payload["value"] = lapse_part(seat, self.commitments)
        return payload

    def apply(self, seat: int | None, payload: Any) -> None:
        """Advance by one entropy event of `seat`, or raise `IllegalAction` and change nothing."""
        if seat is None or not 0 <= seat < self.seats:
            raise IllegalAction("an entropy event names a seat", code="entropy/unknown_seat")
        step = payload.get("step") if isinstance(payload, dict) else None
        phase = self.phase
        if step == "commit":
            if phase != "commit":
                raise IllegalAction("the commit window is closed", code="entropy/commit_closed")
            if self.commitments[seat] is not None or seat in self.lapsed:
                raise IllegalAction(f"seat {seat} has committed already", code="entropy/already_committed")
            commitment = hex64(payload.get("commitment"), what="a commitment")
            if commitment in self.commitments:
                raise IllegalAction(
                    "another seat made this very commitment", code="entropy/commitment_reused"
                )
            self.commitments[seat] = commitment
        elif step == "reveal":
            if phase != "reveal":
                raise IllegalAction(
                    "reveals come once every seat has committed" if phase == "commit" else "every part is in",
                    code="entropy/not_revealing",
                )
            if self.parts[seat] is not None:
                raise IllegalAction(f"seat {seat} has its part already", code="entropy/already_revealed")
            value = hex64(payload.get("value"), what="a revealed value")
            if part_commitment(value) != self.commitments[seat]:
                raise IllegalAction(
                    "the value does not hash to the seat's commitment", code="entropy/wrong_value"
                )
            self.parts[seat] = value
        elif step == "lapse":
            if phase == "done" or seat not in self.awaited():
                raise IllegalAction(f"seat {seat} has nothing outstanding to lapse", code="entropy/no_lapse")
            expected = self.lapse_payload(seat)
            if dict(payload) != expected:
                raise IllegalAction(f"a lapse of seat {seat} here is {expected}", code="entropy/wrong_lapse")
            if phase == "commit":
                self.lapsed[seat] = "commit"
            else:
                self.lapsed[seat] = "reveal"
                self.parts[seat] = expected["value"]
        else:
            raise IllegalAction(
                'an entropy event\'s "step" is commit, reveal or lapse', code="entropy/malformed"
            )
        if self.phase == "commit" and not self.awaited():
            self._close_commit()

    def _close_commit(self) -> None:
        """Every seat committed or lapsed: the seats that never committed get their default part now."""
        self.commit_closed = True
        for seat in range(self.seats):
            if self.commitments[seat] is None:
                self.parts[seat] = lapse_part(seat, self.commitments)

    def as_json(self) -> dict[str, Any]:
        return {
            "phase": self.phase,
            "awaited": self.awaited() if self.phase != "done" else [],
            "commitments": list(self.commitments),
            "revealed": [
                part is not None and self.lapsed.get(seat) is None and self.commitments[seat] is not None
                for seat, part in enumerate(self.parts)
            ],
            "lapsed": {str(seat): missed for seat, missed in sorted(self.lapsed.items())},
        }
