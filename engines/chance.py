"""Chance: what an engine asks for, and how the service draws it from a committed seed.

An engine holds no random generator. When its state needs dice or a shuffle, `Game.decision()` says
*chance* and `Game.chance_request()` says what kind of draw. The service draws the outcome with
`draw()` from the match's secret seed and the event's sequence number, appends it as an ordinary
`chance` event, and the engine applies it. Replaying a match therefore needs only its log.

The draw is specified so that anyone can re-derive it in any language once the seed is revealed:

    block(i)  = HMAC-SHA256(key=seed, msg=f"snakepit/v1/{seq}/{i}")      i = 0, 1, 2, ...
    words     = each block read as four big-endian unsigned 64-bit integers, in order
    uniform(n)= the next word w with w < 2**64 - (2**64 % n), reduced as w % n (rejection sampling)

Dice: `uniform(sides) + 1` per die, in order. Shuffle of n: Fisher-Yates from the top,
`for i in n-1..1: j = uniform(i + 1); swap(p[i], p[j])`, starting from `p = [0, 1, ..., n-1]`.
Choice of n: `uniform(n)`. The commitment published at match creation is SHA-256 of the seed.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from engines.errors import IllegalAction

ChanceKind = Literal["dice", "shuffle", "choice"]
_WORD = 2**64


@dataclass(frozen=True)
class ChanceRequest:
    """What the engine needs drawn. `label` names the moment for people reading the log."""

    kind: ChanceKind
    label: str
    count: int = 0  # dice: how many
    sides: int = 6  # dice: faces per die
    size: int = 0  # shuffle: cards in the pile; choice: options to pick from

    @classmethod
    def dice(cls, label: str, *, count: int, sides: int = 6) -> ChanceRequest:
        return cls(kind="dice", label=label, count=count, sides=sides)

    @classmethod
    def shuffle(cls, label: str, *, size: int) -> ChanceRequest:
        return cls(kind="shuffle", label=label, size=size)

    @classmethod
    def choice(cls, label: str, *, size: int) -> ChanceRequest:
        return cls(kind="choice", label=label, size=size)

    def check(self, outcome: Any) -> None:
        """Raise `IllegalAction` unless `outcome` is a possible result of this request."""
        if not isinstance(outcome, dict):
            raise IllegalAction("a chance outcome is a JSON object", code="chance/malformed")
        if self.kind == "dice":
            values = outcome.get("dice")
            if type(values) is not list or len(values) != self.count:
                raise IllegalAction(
                    f"expected {self.count} dice of 1..{self.sides}", code="chance/out_of_range"
                )
            for value in values:
                if type(value) is not int or not 1 <= value <= self.sides:
                    raise IllegalAction(
                        f"expected {self.count} dice of 1..{self.sides}", code="chance/out_of_range"
                    )
        elif self.kind == "shuffle":
            perm = outcome.get("permutation")
            if not isinstance(perm, list) or sorted(perm) != list(range(self.size)):
                raise IllegalAction(
                    f"expected a permutation of 0..{self.size - 1}", code="chance/out_of_range"
                )
        else:
            index = outcome.get("index")
            if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < self.size:
                raise IllegalAction(f"expected an index in 0..{self.size - 1}", code="chance/out_of_range")


def seed_commitment(seed: bytes) -> str:
    """The public commitment to a match's seed, published before the first event."""
    return hashlib.sha256(seed).hexdigest()


_FOUR_WORDS = struct.Struct(">4Q")


def _words(seed: bytes, seq: int) -> Iterator[int]:
    block = 0
    while True:
        # hmac.digest is the one-shot (C) form of hmac.new(...).digest(): the same bytes, faster.
        yield from _FOUR_WORDS.unpack(hmac.digest(seed, f"snakepit/v1/{seq}/{block}".encode(), "sha256"))
        block += 1


def _uniform(words: Iterator[int], n: int) -> int:
    limit = _WORD - (_WORD % n)
    for word in words:
        if word < limit:
            return word % n
    raise AssertionError("unreachable: the word stream is infinite")


def draw(seed: bytes, seq: int, request: ChanceRequest) -> dict[str, Any]:
    """The outcome of `request` for the event numbered `seq` of the match with this seed."""
    words = _words(seed, seq)
    if request.kind == "dice":
        return {"dice": [_uniform(words, request.sides) + 1 for _ in range(request.count)]}
    if request.kind == "shuffle":
        perm = list(range(request.size))
        for i in range(request.size - 1, 0, -1):
            j = _uniform(words, i + 1)
            perm[i], perm[j] = perm[j], perm[i]
        return {"permutation": perm}
    return {"index": _uniform(words, request.size)}
