"""engines.entropy, pure: the chance key depends on the seed and on every seat's part; steps out of
order are refused and change nothing; a lapse's default is fixed by the commitments."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engines.chance import ChanceRequest, draw
from engines.entropy import Contributions, chance_key, lapse_part, part_commitment
from engines.errors import IllegalAction

parts = st.lists(st.binary(min_size=32, max_size=32).map(bytes.hex), min_size=2, max_size=6, unique=True)


@given(seed=st.binary(min_size=32, max_size=32), values=parts, seat=st.integers(min_value=0, max_value=5))
def test_changing_any_one_part_or_the_seed_changes_the_key(seed, values, seat):
    seat %= len(values)
    key = chance_key(seed, values)
    other = list(values)
    other[seat] = hashlib.sha256(other[seat].encode()).hexdigest()
    assert chance_key(seed, other) != key
    assert chance_key(bytes(reversed(seed)) + b"x", values) != key
    assert key != seed, "a contributed match never draws with the bare seed"


def exchange(values):
    contributions = Contributions(seats=len(values))
    for seat, value in enumerate(values):
        contributions.apply(seat, {"step": "commit", "commitment": part_commitment(value)})
    return contributions


@given(values=parts)
def test_a_full_exchange_gives_every_part_in_seat_order(values):
    contributions = exchange(values)
    assert contributions.phase == "reveal" and contributions.awaited() == list(range(len(values)))
    for seat in reversed(range(len(values))):  # reveals in any order
        contributions.apply(seat, {"step": "reveal", "value": values[seat]})
    assert contributions.phase == "done"
    assert contributions.key(b"seed") == chance_key(b"seed", values)


def snapshot(contributions):
    return (
        list(contributions.commitments),
        list(contributions.parts),
        dict(contributions.lapsed),
        contributions.phase,
    )


@pytest.mark.parametrize(
    ("seat", "payload", "code"),
    [
        (0, {"step": "reveal", "value": "a" * 64}, "entropy/not_revealing"),
        (5, {"step": "commit", "commitment": "a" * 64}, "entropy/unknown_seat"),
        (0, {"step": "commit", "commitment": "A" * 63}, "entropy/malformed"),
        (1, {"step": "lapse", "missed": "commit"}, "entropy/no_lapse"),
        (0, {"step": "lapse", "missed": "reveal", "value": "c" * 64}, "entropy/wrong_lapse"),
        (1, {"step": "commit", "commitment": "a" * 64}, "entropy/already_committed"),
        (0, {"step": "commit", "commitment": part_commitment("b" * 64)}, "entropy/commitment_reused"),
        (0, {"step": "guess"}, "entropy/malformed"),
        (0, ["not", "an", "object"], "entropy/malformed"),
    ],
)
def test_a_step_out_of_order_or_malformed_is_refused_and_changes_nothing(seat, payload, code):
    contributions = Contributions(seats=2)
    contributions.apply(1, {"step": "commit", "commitment": part_commitment("b" * 64)})
    before = snapshot(contributions)
    with pytest.raises(IllegalAction) as refused:
        contributions.apply(seat, payload)
    assert refused.value.code == code
    assert snapshot(contributions) == before


def test_lapses_default_to_a_part_fixed_by_the_commitments():
    contributions = Contributions(seats=3)
    contributions.apply(0, {"step": "commit", "commitment": part_commitment("a" * 64)})
    contributions.apply(1, {"step": "commit", "commitment": part_commitment("b" * 64)})
    assert contributions.lapse_payload(2) == {"step": "lapse", "missed": "commit"}
    contributions.apply(2, contributions.lapse_payload(2))
    commitments = [part_commitment("a" * 64), part_commitment("b" * 64), None]
    assert contributions.phase == "reveal" and contributions.parts[2] == lapse_part(2, commitments)
    contributions.apply(0, {"step": "reveal", "value": "a" * 64})
    lapse = contributions.lapse_payload(1)
    assert lapse == {"step": "lapse", "missed": "reveal", "value": lapse_part(1, commitments)}
    with pytest.raises(IllegalAction):
        contributions.apply(1, {**lapse, "value": "c" * 64})  # a lapse cannot carry a chosen value
    contributions.apply(1, lapse)
    assert contributions.phase == "done" and contributions.lapsed == {2: "commit", 1: "reveal"}
    assert lapse_part(1, commitments) != lapse_part(2, commitments)


def test_draws_with_the_key_are_the_documented_algorithm_with_another_key():
    key = chance_key(b"s" * 32, ["a" * 64, "b" * 64])
    request = ChanceRequest.dice("throw", count=2)
    assert draw(key, 3, request) == draw(key, 3, request)
    assert all(1 <= die <= 6 for die in draw(key, 3, request)["dice"])
