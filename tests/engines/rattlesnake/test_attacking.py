"""Attacking & defending (rulebook "Attacking & Defending", steps 1 to 5, and the end of the game)."""

from __future__ import annotations

import pytest

from engines.errors import IllegalAction
from engines.protocol import Event
from engines.rattlesnake import GAME

from . import act, table


def attack(state, cards):
    return act(state, state.active, {"type": "attack", "cards": cards})


def defend(state, cards):
    return act(state, 1 - state.active, {"type": "defend", "cards": cards})


def test_the_attacker_must_play_at_least_one_card() -> None:
    state = table(hands=(["1", "2"], ["3"]))
    before = state.clone()
    with pytest.raises(IllegalAction) as raised:
        GAME.apply(state, Event.action(0, {"type": "attack", "cards": []}))
    assert raised.value.code == "attack/no_cards" and state == before
    assert {"type": "attack", "cards": []} not in GAME.legal_actions(state, 0)


def test_the_count_is_declared_and_the_cards_are_face_down() -> None:
    state = attack(table(hands=(["1", "2", "hit"], ["3"])), ["2", "hit"])
    assert GAME.event_audience(state, Event.action(0, {"type": "attack", "cards": ["2"]})) == {0}
    for seat in (1, None):
        seen = GAME.view(state, seat)["attack"]
        assert seen["attack_count"] == 2 and seen["attack"] is None and seen["attack_values"] is None
        assert GAME.view(state, seat)["players"][0]["hand_count"] == 1
    assert GAME.view(state, 0)["attack"]["attack"] == ["2", "hit"]


def test_the_defender_may_play_no_cards_and_loses_to_any_number() -> None:
    state = table(hands=(["1"], ["5", "5"]))
    state = attack(state, ["1"])
    assert {"type": "defend", "cards": []} in GAME.legal_actions(state, 1)
    state = defend(state, [])
    assert state.hits == (4, 3)


def test_the_winning_attack_moves_one_hit_to_the_defenders_discard() -> None:
    state = defend(attack(table(hands=(["3", "3"], ["4", "5"])), ["3", "3"]), ["4", "5"])
    # A set of two beats a run of two.
    assert state.hits == (4, 3)
    assert state.discards == (("3", "3"), ("4", "5", "hit"))


def test_a_defender_who_wins_dodges_and_nobody_takes_a_hit() -> None:
    state = defend(attack(table(hands=(["5", "hit", "hit"], ["5"])), ["5", "hit", "hit"]), ["5"])
    assert state.hits == (4, 4)
    # "Discard all played cards to their owner's discard, including any not in the combos."
    assert state.discards == (("5", "hit", "hit"), ("5",))
    assert GAME.view(state, None)["last_attack"]["winner"] == "defender"


def test_the_last_hit_ends_the_game_at_once() -> None:
    state = defend(attack(table(hands=(["2"], ["1"]), hits=(4, 1)), ["2"]), ["1"])
    assert GAME.decision(state).kind == "over"
    outcome = GAME.outcome(state)
    assert outcome.ranks == (1, 2) and outcome.reason == "no_hits"
    with pytest.raises(IllegalAction):
        GAME.apply(state, Event.action(0, {"type": "end_turn"}))


def test_high_noon_takes_two_hits_but_never_more_than_are_left() -> None:
    saloon = ["high-noon", "distract", "take-cover", "dead-eye", "disarm"]
    state = defend(attack(table(hands=(["2"], ["1"]), saloon=saloon), ["2"]), ["1"])
    assert state.hits == (4, 2) and state.discards[1] == ("1", "hit", "hit")
    state = defend(attack(table(hands=(["2"], ["1"]), saloon=saloon, hits=(4, 1)), ["2"]), ["1"])
    assert state.hits == (4, 0) and GAME.outcome(state).ranks == (1, 2)


def test_rattled_makes_the_defender_play_a_card() -> None:
    saloon = ["rattled", "distract", "take-cover", "dead-eye", "disarm"]
    state = attack(table(hands=(["2"], ["1", "hit"]), saloon=saloon), ["2"])
    assert {"type": "defend", "cards": []} not in GAME.legal_actions(state, 1)
    with pytest.raises(IllegalAction) as raised:
        GAME.apply(state, Event.action(1, {"type": "defend", "cards": []}))
    assert raised.value.code == "defend/too_few_cards"


def test_cards_must_come_from_the_hand() -> None:
    state = table(hands=(["1", "2"], ["3"]))
    for cards, code in (
        (["1", "1"], "attack/not_in_hand"),
        (["6"], "attack/bad_cards"),
        ("1", "attack/bad_cards"),
    ):
        with pytest.raises(IllegalAction) as raised:
            GAME.apply(state, Event.action(0, {"type": "attack", "cards": cards}))
        assert raised.value.code == code
