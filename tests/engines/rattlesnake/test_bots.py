"""The bots: the generic random one, and the heuristic, which buys, attacks with everything but its
saloon cards, and uses abilities when they turn an attack round."""

from __future__ import annotations

import random

from engines.bots import RandomBot
from engines.playout import playout
from engines.protocol import Turn
from engines.rattlesnake import GAME
from engines.rattlesnake.bots import HeuristicBot

from . import act, table

HEURISTIC = HeuristicBot()


def choose(state, seat):
    return HEURISTIC.act(Turn(GAME, state, seat), random.Random(0))


def test_the_game_offers_a_random_and_a_heuristic_bot() -> None:
    assert set(GAME.bots()) == {"random", "heuristic"}


def test_it_buys_with_cards_outside_its_combo_then_attacks_with_the_rest() -> None:
    state = table(hands=(["hit", "1", "4", "4", "5"], ["1"]), decks=(["1"] * 5, ["1"] * 5))
    assert choose(state, 0) == {"type": "buy", "discard": ["1", "hit"], "card": "take-cover"}
    state = act(state, 0, choose(state, 0))
    assert choose(state, 0) == {"type": "attack", "cards": ["4", "4", "5"]}


def test_it_does_not_break_its_combo_to_buy() -> None:
    state = table(hands=(["3", "3", "3"], ["1"]))
    assert choose(state, 0) == {"type": "attack", "cards": ["3", "3", "3"]}


def test_it_defends_with_every_card_but_its_saloon_cards() -> None:
    state = act(table(hands=(["2"], ["1", "3", "hit", "distract"])), 0, {"type": "attack", "cards": ["2"]})
    assert choose(state, 1) == {"type": "defend", "cards": ["1", "3", "hit"]}


def test_it_uses_an_ability_only_to_turn_the_attack_round() -> None:
    state = table(hands=(["3", "distract"], ["3", "1"]), decks=(["1"] * 5, ["1"] * 5))
    state = act(state, 0, {"type": "attack", "cards": ["3"]})
    state = act(state, 1, {"type": "defend", "cards": ["3"]})
    assert choose(state, 0) == {"type": "use", "card": "distract", "index": 0}
    winning = act(
        act(table(hands=(["4", "distract"], ["3"])), 0, {"type": "attack", "cards": ["4"]}),
        1,
        {
            "type": "defend",
            "cards": ["3"],
        },
    )
    assert choose(winning, 0) == {"type": "pass"}


def test_it_takes_cover_from_an_ability_that_would_beat_it() -> None:
    state = table(hands=(["3", "distract"], ["3", "take-cover"]), decks=(["1"] * 5, ["1"] * 5))
    state = act(state, 0, {"type": "attack", "cards": ["3"]})
    state = act(state, 1, {"type": "defend", "cards": ["3"]})
    state = act(state, 0, {"type": "use", "card": "distract", "index": 0})
    assert choose(state, 1) == {"type": "use", "card": "take-cover"}


def test_heuristic_games_end_with_legal_actions_only() -> None:
    for seed in range(20):
        final, log = playout(GAME, seats=2, seed=f"hh/{seed}".encode(), bots=[HEURISTIC, HEURISTIC])
        assert GAME.outcome(final) is not None and len(log) < 2000


def test_the_heuristic_beats_the_random_bot_clearly() -> None:
    wins = 0
    games = 120
    for seed in range(games):
        seat = seed % 2  # the heuristic takes each seat in turn
        bots = [RandomBot(), RandomBot()]
        bots[seat] = HEURISTIC
        final, _ = playout(GAME, seats=2, seed=f"hr/{seed}".encode(), bots=bots)
        wins += GAME.outcome(final).ranks[seat] == 1
    assert wins / games >= 0.85
