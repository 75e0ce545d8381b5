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


_BLOCK = 64  # SHA-256's block size: the HMAC key is padded (or first hashed) to it (RFC 2104)
_INNER = bytes(byte ^ 0x36 for byte in range(256))
_OUTER = bytes(byte ^ 0x5C for byte in range(256))


def hmac_sha256_states(key: bytes) -> tuple[Any, Any]:
    """The SHA-256 states after HMAC-SHA256's two padded-key blocks for `key` (RFC 2104): copy the
    first, add the message, then copy the second and add the first's digest, and its digest is
    `hmac.digest(key, message, "sha256")`, without redoing the key schedule for every message."""
    key = key if len(key) <= _BLOCK else hashlib.sha256(key).digest()
    key = key.ljust(_BLOCK, b"\0")
    return hashlib.sha256(key.translate(_INNER)), hashlib.sha256(key.translate(_OUTER))


class Draws:
    """`draw` for one match's seed, with the HMAC key schedule done once per match: what the service's
    engine loop (`engines.playout.play_forward`) draws with.

    HMAC-SHA256(seed, msg) is SHA-256(seed ^ opad || SHA-256(seed ^ ipad || msg)) (RFC 2104); the two
    padded-key prefixes do not depend on the message, so their hash states are computed here once and
    copied per draw (a one-shot `hmac.digest` redoes them for every event). Dice and choices whose
    words pass the rejection test, that is every draw but about one in 2**61, are read straight from
    the first block, and a shuffle of up to `_SHUFFLE_MAX` cards from as many blocks as its swaps need;
    anything else (more than four dice, a rejected word) is left to `draw` itself, so the outcome is
    always exactly `draw(seed, seq, request)`: `tests/engines/test_chance_draws.py` compares them.
    """

    __slots__ = ("inner", "outer", "seed")

    def __init__(self, seed: bytes) -> None:
        self.seed = seed
        self.inner, self.outer = hmac_sha256_states(seed)

    def __call__(self, seq: int, request: ChanceRequest) -> dict[str, Any]:
        plan = _PLANS.get(id(request))
        if plan is None or plan[0] is not request:
            plan = _plan(request)
        _, name, words, modulus, limit, offset = plan
        if words is not None:
            # HMAC-SHA256(seed, f"snakepit/v1/{seq}/0"), the first block of the draw
            inner = self.inner.copy()
            inner.update(b"snakepit/v1/%d/0" % seq)
            outer = self.outer.copy()
            outer.update(inner.digest())
            drawn = words(outer.digest())
            if len(drawn) == 1:
                word = drawn[0]
                if word < limit:
                    return {name: [word % modulus + 1] if offset else word % modulus}
            elif max(drawn) < limit:
                return {name: [word % modulus + 1 for word in drawn]}
        elif name == "permutation":
            # Fisher-Yates from the top, one word per swap (`modulus` is the size, `limit` the
            # rejection limits of the swaps in order, `offset` the blocks they take).
            digests = b""
            for block in range(offset):
                inner = self.inner.copy()
                inner.update(b"snakepit/v1/%d/%d" % (seq, block))
                outer = self.outer.copy()
                outer.update(inner.digest())
                digests += outer.digest()
            perm = list(range(modulus))
            top = modulus - 1
            for word, below in zip(_FOUR_WORDS.unpack(digests) if offset == 1 else _words_of(digests), limit):
                if word >= below:
                    return draw(self.seed, seq, request)
                other = word % (top + 1)
                perm[top], perm[other] = perm[other], perm[top]
                top -= 1
            return {name: perm}
        return draw(self.seed, seq, request)


# How to read a request from the first block: (request, payload key, unpack of the words it needs or
# None to leave it to `draw`, n, the rejection limit for n, dice (+1) or a choice). Kept by id with the
# request itself, so an id is never reused while its entry is here; engines share a few requests.
_PLANS: dict[int, tuple[Any, ...]] = {}


def _plan(request: ChanceRequest) -> tuple[Any, ...]:
    if request.kind == "dice" and 1 <= request.count <= 4:
        words = struct.Struct(f">{request.count}Q").unpack_from
        plan = (request, "dice", words, request.sides, _WORD - _WORD % request.sides, 1)
    elif request.kind == "choice" and request.size >= 1:
        plan = (request, "index", _ONE_WORD, request.size, _WORD - _WORD % request.size, 0)
    elif request.kind == "shuffle" and 1 <= request.size <= _SHUFFLE_MAX:
        limits = tuple(_WORD - _WORD % (top + 1) for top in range(request.size - 1, 0, -1))
        plan = (request, "permutation", None, request.size, limits, -(-len(limits) // 4))
    else:
        plan = (request, None, None, 0, 0, 0)
    if len(_PLANS) >= 1024:
        _PLANS.clear()
    _PLANS[id(request)] = plan
    return plan


_ONE_WORD = struct.Struct(">Q").unpack_from
_SHUFFLE_MAX = 129  # a shuffle of up to 128 swaps (32 blocks) is drawn here; a longer one by `draw`


def _words_of(digests: bytes) -> tuple[int, ...]:
    return struct.unpack(f">{len(digests) // 8}Q", digests)
