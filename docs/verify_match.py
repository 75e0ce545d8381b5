#!/usr/bin/env python3
"""Check a Snakepit match's chance without Snakepit: Python 3.8+ and its standard library only.

    curl -s https://HOST/api/matches/42/export/ > match.json
    python3 verify_match.py match.json          # or: ... | python3 verify_match.py -

It checks, from the exported match alone (docs/fairness.md says what each step means):
1. the revealed seed hashes (SHA-256) to the commitment published when the match was created;
2. where the seats contributed entropy: every commitment is well formed and made once, every reveal
   hashes to its seat's commitment, every lapse carries the default the commitments fix, and every
   seat's part is in before the first chance event;
3. every chance event is exactly the draw that the seed (mixed with the parts) gives at its
   sequence number, for what the engine asked to be drawn there (the export lists it).

What it cannot check without the rules is that the engine asked for the right draw and applied it
correctly: `GET /api/matches/42/verify/` and `manage.py verify_matches` replay the rules as well.
Exit status 0 when everything checks, 1 when something does not, 2 when the file is unreadable.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import struct
import sys

HEX64 = re.compile(r"[0-9a-f]{64}")
WORD = 2**64
FOUR_WORDS = struct.Struct(">4Q")


# --- chance: the draws (the spec is engines/chance.py's docstring) --------------------------------
def words(key: bytes, seq: int):
    block = 0
    while True:
        yield from FOUR_WORDS.unpack(hmac.new(key, f"snakepit/v1/{seq}/{block}".encode(), "sha256").digest())
        block += 1


def uniform(stream, n: int) -> int:
    limit = WORD - (WORD % n)
    for word in stream:
        if word < limit:
            return word % n
    raise AssertionError("the word stream is infinite")


def draw(key: bytes, seq: int, request: dict) -> dict:
    stream = words(key, seq)
    if request["kind"] == "dice":
        return {"dice": [uniform(stream, request["sides"]) + 1 for _ in range(request["count"])]}
    if request["kind"] == "shuffle":
        perm = list(range(request["size"]))
        for i in range(request["size"] - 1, 0, -1):
            j = uniform(stream, i + 1)
            perm[i], perm[j] = perm[j], perm[i]
        return {"permutation": perm}
    if request["kind"] == "choice":
        return {"index": uniform(stream, request["size"])}
    raise ValueError(f"unknown kind of draw {request['kind']!r}")


# --- contributed entropy (the spec is engines/entropy.py's docstring) -----------------------------
def part_commitment(value: str) -> str:
    return hashlib.sha256(value.encode("ascii")).hexdigest()


def lapse_part(seat: int, commitments: list) -> str:
    text = f"snakepit/entropy/v1/lapse/{seat}/" + "/".join(c or "-" for c in commitments)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


class Parts:
    """The seats' commitments and parts, advanced one entropy event at a time."""

    def __init__(self, seats: int) -> None:
        self.seats = seats
        self.commitments: list = [None] * seats
        self.parts: list = [None] * seats
        self.lapsed_at_commit: set = set()
        self.commit_closed = False

    def awaited(self) -> list:
        if not self.commit_closed:
            return [
                s for s in range(self.seats) if self.commitments[s] is None and s not in self.lapsed_at_commit
            ]
        return [s for s in range(self.seats) if self.parts[s] is None]

    def done(self) -> bool:
        return self.commit_closed and all(part is not None for part in self.parts)

    def step(self, seat, payload) -> str | None:
        """Apply one entropy event; a problem as text, or None."""
        if not isinstance(seat, int) or not 0 <= seat < self.seats or not isinstance(payload, dict):
            return "an entropy event without a seat or a payload"
        kind = payload.get("step")
        if kind == "commit":
            commitment = payload.get("commitment")
            if self.commit_closed or seat not in self.awaited():
                return f"seat {seat} commits out of turn"
            if (
                not isinstance(commitment, str)
                or not HEX64.fullmatch(commitment)
                or commitment in self.commitments
            ):
                return f"seat {seat}'s commitment is malformed or copied"
            self.commitments[seat] = commitment
        elif kind == "reveal":
            value = payload.get("value")
            if not self.commit_closed or self.parts[seat] is not None:
                return f"seat {seat} reveals out of turn"
            if not isinstance(value, str) or part_commitment(value) != self.commitments[seat]:
                return f"seat {seat}'s value does not hash to its commitment"
            self.parts[seat] = value
        elif kind == "lapse":
            if seat not in self.awaited() or self.done():
                return f"seat {seat} lapses with nothing outstanding"
            if not self.commit_closed:
                if payload != {"step": "lapse", "missed": "commit"}:
                    return f"seat {seat}'s lapse of its commit is malformed"
                self.lapsed_at_commit.add(seat)
            else:
                default = lapse_part(seat, self.commitments)
                if payload != {"step": "lapse", "missed": "reveal", "value": default}:
                    return f"seat {seat}'s lapse does not carry the default part {default}"
                self.parts[seat] = default
        else:
            return f"unknown entropy step {kind!r}"
        if not self.commit_closed and not self.awaited():
            self.commit_closed = True
            for other in range(self.seats):
                if self.commitments[other] is None:
                    self.parts[other] = lapse_part(other, self.commitments)
        return None

    def key(self, seed: bytes) -> bytes:
        return hmac.new(
            seed, ("snakepit/entropy/v1/" + "/".join(self.parts)).encode("ascii"), "sha256"
        ).digest()


# --- the check ------------------------------------------------------------------------------------
def verify(match: dict) -> dict:
    problems = []
    if match.get("format") != "snakepit-match/1":
        problems.append(f"unknown export format {match.get('format')!r}")
    seed = bytes.fromhex(match["seed"])
    if hashlib.sha256(seed).hexdigest() != match["seed_commitment"]:
        problems.append("the revealed seed does not hash to the published commitment")
    contributed = match.get("entropy") == "contributed"
    parts = Parts(len(match["seats"])) if contributed else None
    key = None if contributed else seed
    checked = 0
    for event in match["events"]:
        seq, kind = event["seq"], event["kind"]
        if kind == "entropy":
            problem = (
                parts.step(event["seat"], event["payload"])
                if parts
                else "an entropy step in a match taking none"
            )
            if problem:
                problems.append(f"event {seq}: {problem}")
                break
        elif kind == "chance":
            if key is None:
                if not parts.done():
                    problems.append(f"event {seq}: a chance event before every seat's part was in")
                    break
                key = parts.key(seed)
            if "request" not in event:
                problems.append(f"event {seq}: the export does not say what was drawn here")
                break
            expected = draw(key, seq, event["request"])
            if event["payload"] != expected:
                problems.append(f"event {seq}: chance outcome {event['payload']} is not the draw {expected}")
            checked += 1
    return {
        "match": match.get("id"),
        "verified": not problems,
        "entropy": match.get("entropy"),
        "parts": parts.parts if parts else [],
        "chance_events_checked": checked,
        "problems": problems,
    }


def main(argv: list) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        print("usage: verify_match.py EXPORT.json | -", file=sys.stderr)
        return 2
    try:
        if argv[1] == "-":
            text = sys.stdin.read()
        else:
            with open(argv[1], encoding="utf-8") as export:
                text = export.read()
        match = json.loads(text)
    except (OSError, ValueError) as error:
        print(f"cannot read the export: {error}", file=sys.stderr)
        return 2
    try:
        report = verify(match)
    except (KeyError, TypeError, ValueError) as error:
        print(f"the export is malformed: {error!r}", file=sys.stderr)
        return 2
    print(json.dumps(report, indent=2))
    return 0 if report["verified"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
