"""Hidden information over many random games of every registered game.

For every action some seat may not read while the match runs (a face-down commit, a private choice),
each seat it is hidden from must see the same view whichever legal alternative was taken, as long as
the moment lasts (the service's event listing withholds the same payloads: tests/api/test_every_game.py
checks it against the engine's audiences). The default
suite plays 200 games of each game (spread over its table sizes); `pytest -m slow` plays 10,000.
"""

from __future__ import annotations

import random

import pytest

from engines.protocol import Event, Game
from engines.registry import game_keys, get_game
from tests.engines.test_conformance import applied, play, seat_counts

DEFAULT_GAMES = 200
SLOW_GAMES = 10_000


def leaks(game: Game, seats: int, seed: int) -> tuple[list[str], int]:
    """Every way one random game shows a seat something hidden from it (empty when none), and how
    many views were compared. A hidden choice whose moment ends at once (Rattlesnake's attack, which
    hands the decision to the defender) is compared by the game's own tests, which know what of it is
    public (the number of cards)."""
    playout = play(game, seats, seed)
    rng = random.Random(seed)
    found, compared = [], 0
    for index, (before, event) in enumerate(zip(playout.states, playout.events)):
        audience = game.event_audience(before, event) if event.kind == "action" else None
        if audience is None:
            continue
        decision, after = game.decision(before), playout.states[index + 1]
        after_decision = game.decision(after)
        if (after_decision.kind, after_decision.prompt) != (decision.kind, decision.prompt):
            continue  # the moment is over: the game may reveal the choice now
        hidden_from = [seat for seat in [None, *range(seats)] if seat not in audience]
        alternatives = [
            action for action in game.legal_actions(before, event.seat) if action != event.payload
        ]
        for alternative in rng.sample(alternatives, min(3, len(alternatives))):
            other = applied(game, before, Event.action(event.seat, alternative))
            if game.decision(other) != after_decision:
                continue
            for seat in hidden_from:
                compared += 1
                if game.view(other, seat) != game.view(after, seat):
                    found.append(
                        f"seed {seed}: seat {seat} can tell {dict(event.payload)} from {alternative}"
                    )
    return found, compared


def games_of(key: str, count: int) -> list[tuple[int, int]]:
    sizes = seat_counts(get_game(key))
    return [(sizes[number % len(sizes)], number) for number in range(count)]


@pytest.mark.parametrize("key", game_keys())
def test_two_hundred_random_games_show_no_seat_what_is_hidden_from_it(key: str) -> None:
    game = get_game(key)
    found = [leak for seats, seed in games_of(key, DEFAULT_GAMES) for leak in leaks(game, seats, seed)[0]]
    assert not found, found[:5]


@pytest.mark.slow
@pytest.mark.parametrize("key", game_keys())
def test_ten_thousand_random_games_show_no_seat_what_is_hidden_from_it(key: str) -> None:
    game = get_game(key)
    for seats, seed in games_of(key, SLOW_GAMES):
        found, _ = leaks(game, seats, 1_000_000 + seed)
        assert not found, found[:5]
