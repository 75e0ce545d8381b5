"""Whole matches played without a service: chance drawn from a seed exactly as the service draws it,
every seat played by a bot. Used by the conformance tests and the benchmark.

A playout is the benchmark's unit (`manage.py bench`, `engine.<game>.playouts_per_s`), so the loop
is kept lean: the same events as the service would log, the same bot calls, the same draws, with
nothing recomputed per event that can be worked out once per match (see `_Draws`).
"""

from __future__ import annotations

import hashlib
import random
import struct
from collections.abc import Mapping
from typing import Any

from engines.bots import RandomBot
from engines.chance import ChanceRequest, draw
from engines.protocol import Bot, Event, Game, Turn

_BLOCK = 64  # SHA-256's block size: the HMAC key is padded (or first hashed) to it (RFC 2104)
_INNER = bytes(byte ^ 0x36 for byte in range(256))
_OUTER = bytes(byte ^ 0x5C for byte in range(256))
_WORD = 2**64


class _Draws:
    """`engines.chance.draw` for one match's seed, with the HMAC key schedule done once per match.

    HMAC-SHA256(seed, msg) is SHA-256(seed ^ opad || SHA-256(seed ^ ipad || msg)) (RFC 2104); the two
    padded-key prefixes do not depend on the message, so their hash states are computed here once and
    copied per draw (a one-shot `hmac.digest` redoes them for every event). Dice and choices whose
    words pass the rejection test, that is every draw but about one in 2**61, are read straight from
    the first block, and a shuffle of up to `_SHUFFLE_MAX` cards from as many blocks as its swaps need;
    anything else (more than four dice, a rejected word) is left to `draw` itself, so the outcome is
    always exactly `draw(seed, seq, request)`: `tests/engines/test_playout.py` compares them.
    """

    __slots__ = ("inner", "outer", "seed")

    def __init__(self, seed: bytes) -> None:
        key = seed if len(seed) <= _BLOCK else hashlib.sha256(seed).digest()
        key = key.ljust(_BLOCK, b"\0")
        self.seed = seed
        self.inner = hashlib.sha256(key.translate(_INNER))
        self.outer = hashlib.sha256(key.translate(_OUTER))

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
_FOUR_WORDS = struct.Struct(">4Q")
_SHUFFLE_MAX = 129  # a shuffle of up to 128 swaps (32 blocks) is drawn here; a longer one by `draw`


def _words_of(digests: bytes) -> tuple[int, ...]:
    return struct.unpack(f">{len(digests) // 8}Q", digests)


def _event(kind: str, seat: int | None, payload: Any, new: Any = object.__new__) -> Event:
    """`Event(kind, payload, seat)`, made without the frozen dataclass's `__init__`, which sets each
    field through `object.__setattr__`: a third of a microsecond per event, on every event."""
    event = new(Event)
    event.__dict__.update(kind=kind, payload=payload, seat=seat)
    return event


def playout(
    game: Game,
    *,
    seats: int,
    seed: bytes,
    options: Mapping[str, Any] | None = None,
    bots: list[Bot] | None = None,
    rng: random.Random | None = None,
    max_events: int = 100_000,
) -> tuple[Any, list[Event]]:
    """Play to the end; return the final state and the log. Bots default to random ones."""
    bots = bots or [RandomBot()] * seats
    rng = rng or random.Random(seed)
    state = game.new_state(seats=seats, options=options)
    log: list[Event] = []
    draws = _Draws(seed)
    # `RandomBot.act` inlined for the plain random bot: the same `rng.choice` of the same legal actions,
    # without a `Turn` per action (`tests/engines/test_playout.py` checks the logs are the same). For a
    # plain `random.Random`, `choice` itself is inlined too: `Random.choice(seq)` is
    # `seq[_randbelow(len(seq))]`, and `_randbelow(n)` draws `getrandbits(n.bit_length())` until the
    # word is below n; the same calls of the same generator give the same index.
    plain_random = [type(bot) is RandomBot for bot in bots]
    getrandbits = rng.getrandbits if type(rng) is random.Random else None
    # Looked up once, not per event; an event is made as `_event` makes it.
    decision_of, chance_request, apply, append = game.decision, game.chance_request, game.apply, log.append
    legal_actions, choice, new, event_class = game.legal_actions, rng.choice, object.__new__, Event
    # `Game.decision` itself, one call shorter: after `apply` the cache is always empty, so it is
    # `decide` stored on the state (unless the game has its own `decision`).
    decide = game.decide if type(game).decision is Game.decision else None
    # `Game.apply`'s checks cannot fail for what the harness itself chose: a chance outcome drawn for
    # the state's own request, or an action the plain random bot took from `legal_actions` for the one
    # seat deciding. When the game keeps `Game.apply`, such events go straight to `apply_action` /
    # `apply_chance` (which check what they check), and the decision cache is cleared as `apply` does.
    # An action from any other bot goes through `apply` with every check.
    direct = type(game).apply is Game.apply
    # A game may drive such a playout itself (`random_playout`: the same rule functions, legal actions,
    # `getrandbits` calls and draws, so the same log) when every seat is the plain random bot.
    own_playout = getattr(game, "random_playout", None)
    if own_playout is not None and direct and getrandbits is not None and all(plain_random):
        own_playout(state, log=log, draws=draws, getrandbits=getrandbits, max_events=max_events)
        return state, log
    apply_action, apply_chance = game.apply_action, game.apply_chance
    for seq in range(1, max_events + 1):
        if decide is not None and state.decision_cache is None:
            decision = state.decision_cache = decide(state)
        else:
            decision = decision_of(state)
        kind = decision.kind
        if kind == "chance":
            outcome = draws(seq, chance_request(state))
            event = new(event_class)
            event.__dict__.update(kind="chance", payload=outcome, seat=None)
            if direct:
                apply_chance(state, outcome)
                state.decision_cache = None
            else:
                apply(state, event)
            append(event)
            continue
        elif kind == "over":
            return state, log
        else:
            seat = min(decision.seats)
            if plain_random[seat]:
                actions = legal_actions(state, seat)
                count = len(actions)
                if not count:
                    raise ValueError("a bot was asked to act with no legal action")
                if getrandbits is None:
                    action = choice(actions)
                else:
                    bits = count.bit_length()
                    index = getrandbits(bits)
                    while index >= count:
                        index = getrandbits(bits)
                    action = actions[index]
                if direct and type(action) is dict:
                    event = new(event_class)
                    event.__dict__.update(kind="action", payload=action, seat=seat)
                    apply_action(state, seat, action)
                    state.decision_cache = None
                    append(event)
                    continue
            else:
                action = bots[seat].act(Turn(game, state, seat), rng)
            event = new(event_class)
            event.__dict__.update(kind="action", payload=action, seat=seat)
        apply(state, event)
        append(event)
    raise RuntimeError(f"{game.spec.key}: no end after {max_events} events")
