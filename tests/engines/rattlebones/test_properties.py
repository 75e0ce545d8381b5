"""Properties over random games: nothing is created or lost, replay is exact, every game ends."""

from __future__ import annotations

import random
from itertools import pairwise

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines.chance import draw
from engines.protocol import Event
from engines.rattlebones.catalogue import CATALOGUE
from engines.replay import replay

from . import GAME, count_pieces

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def play(seats: int, seed: int):
    rng = random.Random(seed)
    state = GAME.new_state(seats=seats)
    events, states = [], [state.clone()]
    while GAME.decision(state).kind != "over":
        decision = GAME.decision(state)
        if decision.kind == "chance":
            event = Event.chance_outcome(
                draw(seed.to_bytes(8, "big"), len(events), GAME.chance_request(state))
            )
        else:
            event = Event.action(state.player, rng.choice(GAME.legal_actions(state, state.player)))
        GAME.apply(state, event)
        events.append(event)
        states.append(state.clone())
        assert len(events) < 20_000
    return events, states


@SETTINGS
@given(seats=st.integers(min_value=2, max_value=4), seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_no_side_piece_or_pip_is_created_or_lost(seats: int, seed: int) -> None:
    _, states = play(seats, seed)
    expected = {kind: 15 for kind in CATALOGUE.action_sides}
    expected |= {"pips": 5 * 3 * seats, "gold": 20, "stars": 20, "stock": 5}
    for state in states:
        assert count_pieces(state) == expected
        assert all(value >= 0 for value in state.sides.values())
        assert min(state.gold + state.stars + state.stock) >= 0
        assert all(sides[0] == "rattlebones" for sides in state.dice)  # "can never be changed"
        assert state.rattlebones > max(state.scores) or state.phase == "over"


@SETTINGS
@given(seats=st.integers(min_value=2, max_value=4), seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_replay_is_exact(seats: int, seed: int) -> None:
    events, states = play(seats, seed)
    result = replay(GAME, seats=seats, options=None, events=events)
    assert result.ok and result.applied == len(events)
    assert result.state == states[-1]
    assert GAME.view(result.state, None) == GAME.view(states[-1], None)
    assert GAME.outcome(result.state) == GAME.outcome(states[-1])


def test_random_games_end_and_the_rattlebones_pawn_only_moves_back() -> None:
    for seed in range(20):
        _, states = play(2, seed)
        track = [state.rattlebones for state in states]
        assert all(later <= earlier for earlier, later in pairwise(track))
        scores = [max(state.scores) for state in states]
        assert all(later >= earlier for earlier, later in pairwise(scores))
        assert states[-1].phase == "over"
