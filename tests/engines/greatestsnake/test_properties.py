"""Property tests over random matches of 3, 4 and 5 players: no card is created or lost, and replay is
exact."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines.chance import draw
from engines.protocol import Event
from engines.replay import replay

from . import GAME, deck_cards, every_card

SETTINGS = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def random_match(seats: int, seed: int, check_each_state=None) -> tuple[object, list[Event]]:
    rng = random.Random(seed)
    state = GAME.new_state(seats=seats)
    log: list[Event] = []
    while GAME.decision(state).kind != "over":
        assert len(log) < 20_000
        decision = GAME.decision(state)
        if decision.kind == "chance":
            event = Event.chance_outcome(draw(f"prop/{seed}".encode(), len(log), GAME.chance_request(state)))
        else:
            seat = rng.choice(sorted(decision.seats))
            event = Event.action(seat, rng.choice(GAME.legal_actions(state, seat)))
        GAME.apply(state, event)
        log.append(event)
        if check_each_state is not None:
            check_each_state(state)
    return state, log


@pytest.mark.parametrize("seats", [3, 4, 5])
@SETTINGS
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_no_card_is_created_or_lost(seats: int, seed: int) -> None:
    expected = Counter(deck_cards(GAME.new_state(seats=seats)))

    def conserved(state) -> None:
        assert Counter(every_card(state)) == expected

    random_match(seats, seed, conserved)


@pytest.mark.parametrize("seats", [3, 4, 5])
@SETTINGS
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_replay_is_exact(seats: int, seed: int) -> None:
    final, log = random_match(seats, seed)
    replayed = replay(GAME, seats=seats, options=None, events=log)
    assert replayed.ok and replayed.applied == len(log)
    assert replayed.state == final
    for seat in [None, *range(seats)]:
        assert GAME.view(replayed.state, seat) == GAME.view(final, seat)
    assert GAME.outcome(replayed.state) == GAME.outcome(final)


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_random_matches_end_well_before_the_round_limit(seats: int) -> None:
    reasons = Counter(random_match(seats, seed)[0].end_reason for seed in range(20))
    assert reasons["length_7"] >= 18, reasons


@SETTINGS
@given(seats=st.sampled_from([3, 4, 5]), seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_no_window_asks_a_seat_that_could_only_pass(seats: int, seed: int) -> None:
    # A response window (and the drawer's choice about a rat) is opened only for seats with something
    # to do, so no person is ever kept waiting for a lone "pass".
    def check(state) -> None:
        decision = GAME.decision(state)
        if decision.kind == "response" or decision.prompt == "rat":
            for seat in decision.seats:
                assert GAME.legal_actions(state, seat) != [{"type": "pass"}]

    random_match(seats, seed, check)
