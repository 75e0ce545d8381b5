"""Card abilities (rulebook "Card Abilities" and "Graveyard"): from the hand only, resolved in the order
played, *Take Cover* cancels another ability before it resolves, used cards go to the graveyard."""

from __future__ import annotations

import pytest

from engines.errors import IllegalAction
from engines.protocol import Decision, Event
from engines.rattlesnake import GAME

from . import act, table


def revealed(hands, attack, defense, **kwargs):
    """Seat 0 attacks with `attack`, seat 1 defends with `defense`: the state after the reveal."""
    # Full decks, so that a turn ending after the attack draws without a shuffle.
    kwargs.setdefault("decks", (["1"] * 10, ["1"] * 10))
    state = table(hands=hands, **kwargs)
    state = act(state, 0, {"type": "attack", "cards": attack})
    return act(state, 1, {"type": "defend", "cards": defense})


def use(state, seat, card, **targets):
    return act(state, seat, {"type": "use", "card": card, **targets})


def test_switch_up_changes_any_one_value_of_your_own() -> None:
    state = revealed((["3", "4", "switch-up"], ["4", "4"]), ["3", "4"], ["4", "4"])
    state = use(state, 0, "switch-up", index=0, value=4)
    # Nobody owns another saloon card: the window closes and the winner is declared.
    assert state.last_attack.attack_values == (4, 4) and state.graveyard == ("switch-up",)
    assert state.hits == (4, 4)  # 4,4 against 4,4: the defender wins the tie


def test_dead_eye_raises_and_double_cross_swaps() -> None:
    state = revealed((["4", "4", "dead-eye", "double-cross"], ["5", "5"]), ["4", "4"], ["5", "5"])
    state = use(state, 0, "double-cross", index=0, other=0)
    assert state.attack_values == (5, 4) and state.defense_values == (4, 5)
    state = use(state, 0, "dead-eye", index=1)
    assert state.last_attack.attack_values == (5, 5)
    assert state.hits == (4, 3)  # 5,5 against a single 5
    assert state.graveyard == ("double-cross", "dead-eye")  # in the order resolved


def test_disarm_sends_a_card_to_its_owners_discard() -> None:
    state = revealed((["2", "disarm"], ["1", "1"]), ["2"], ["1", "1"])
    state = use(state, 0, "disarm", index=1)
    assert state.last_attack.defense == ("1",)
    assert state.hits == (4, 3)
    assert sorted(state.discards[1]) == ["1", "1", "hit"]


def test_combat_abilities_wait_for_the_reveal_and_use_the_hand_only() -> None:
    state = table(hands=(["2", "distract"], ["1"]))
    assert all(action["type"] != "use" for action in GAME.legal_actions(state, 0))
    with pytest.raises(IllegalAction) as raised:
        GAME.apply(state, Event.action(0, {"type": "use", "card": "distract", "index": 0}))
    assert raised.value.code == "ability/not_now"
    # "it must come from your hand, not from your attack or defense"
    state = revealed((["2", "distract", "dead-eye"], ["5"]), ["2", "distract"], ["5"])
    with pytest.raises(IllegalAction) as raised:
        GAME.apply(state, Event.action(0, {"type": "use", "card": "distract", "index": 0}))
    assert raised.value.code == "ability/not_in_hand"


def test_take_cover_cancels_an_ability_before_it_resolves() -> None:
    state = revealed((["2", "distract"], ["3", "take-cover"]), ["2"], ["3"])
    # Only seat 0 is asked: seat 1's Take Cover has nothing to cancel yet.
    assert GAME.decision(state).seats == {0}
    state = use(state, 0, "distract", index=0)
    # The Distract waits: seat 1 owns a Take Cover, so it may answer.
    decision = GAME.decision(state)
    assert (decision.kind, decision.prompt, decision.seats) == ("response", "respond", {1})
    assert GAME.view(state, 1)["stack"] == [{"seat": 0, "card": "distract", "ability": "lower", "index": 0}]
    state = use(state, 1, "take-cover")
    assert state.last_attack.defense_values == (3,)  # cancelled, never resolved
    assert state.graveyard == ("distract", "take-cover")
    assert state.hits == (4, 4)


def test_passing_on_a_pending_ability_lets_it_resolve() -> None:
    state = revealed((["2", "distract"], ["3", "take-cover"]), ["2"], ["3"])
    state = use(state, 0, "distract", index=0)
    state = act(state, 1, {"type": "pass"})
    assert state.last_attack.defense_values == (2,) and state.graveyard == ("distract",)


def test_take_cover_can_be_cancelled_by_take_cover() -> None:
    state = revealed((["2", "distract", "take-cover"], ["3", "take-cover"]), ["2"], ["3"])
    state = use(state, 0, "distract", index=0)
    state = use(state, 1, "take-cover")
    assert GAME.decision(state).seats == {0}  # the answer to the answer
    state = use(state, 0, "take-cover")
    # Seat 1 has no Take Cover left in hand or deck: seat 0's cancels seat 1's, then Distract resolves.
    assert state.last_attack.defense_values == (2,)
    assert state.graveyard == ("take-cover", "take-cover", "distract")


def test_take_cover_only_answers_an_ability() -> None:
    state = revealed((["2", "take-cover", "dead-eye"], ["3"]), ["2"], ["3"])
    assert GAME.legal_actions(state, 0) == [{"type": "pass"}, {"type": "use", "card": "dead-eye", "index": 0}]
    with pytest.raises(IllegalAction) as raised:
        GAME.apply(state, Event.action(0, {"type": "use", "card": "take-cover"}))
    assert raised.value.code == "ability/nothing_to_cancel"


def test_a_seat_that_could_only_pass_is_not_asked_after_the_reveal() -> None:
    # Seat 0 owns only a Take Cover (nothing to cancel yet), seat 1 a Patch Up with no Hit in its
    # discard: both facts are public, and neither could do anything but pass.
    state = revealed((["2", "take-cover"], ["3", "patch-up"]), ["2"], ["3"])
    assert GAME.decision(state).kind == "turn" and state.last_attack is not None


def test_a_seat_whose_take_cover_is_in_its_deck_is_not_asked() -> None:
    # It could only pass: the Distract resolves at once rather than wait for a prompt offering "pass"
    # alone (asking by ownership would hide where the card is, at the price of such a prompt).
    state = revealed((["2", "distract"], ["3"]), ["2"], ["3"], decks=([], ["take-cover"]))
    state = use(state, 0, "distract", index=0)
    assert state.graveyard == ("distract",) and state.last_attack.defense_values == (2,)


def test_the_defender_may_scavenge_before_choosing_a_defence() -> None:
    # "Action cards may be used for their ability at **any** time, on **any** turn." Scavenge takes a
    # card back from the discard into the hand, where the defender can still play it.
    state = table(
        hands=(["4", "4"], ["1", "scavenge"]), discards=([], ["5", "5"]), decks=(["1"] * 5, ["1"] * 5)
    )
    state = act(state, 0, {"type": "attack", "cards": ["4"]})
    legal = GAME.legal_actions(state, 1)
    assert {"type": "use", "card": "scavenge", "pick": "5"} in legal
    assert {"type": "defend", "cards": []} in legal
    state = use(state, 1, "scavenge", pick="5")
    # Nobody holds a Take Cover: it resolves, and the defender is asked for its defense again.
    assert GAME.decision(state) == Decision.turn(1, "defend")
    assert state.hands[1] == ("1", "5") and state.discards[1] == ("5",) and state.graveyard == ("scavenge",)
    state = act(state, 1, {"type": "defend", "cards": ["5"]})
    assert state.last_attack.defense_values == (5,) and state.hits == (4, 4)


def test_the_attacker_may_cover_against_the_defenders_patch_up() -> None:
    state = table(hands=(["4", "take-cover"], ["1", "patch-up"]), discards=([], ["hit"]), hits=(4, 3))
    state = act(state, 0, {"type": "attack", "cards": ["4"]})
    state = use(state, 1, "patch-up")
    assert GAME.decision(state) == Decision.response({0}, "respond")
    # The attack is still face down for the defender while the Patch Up waits.
    attack = GAME.view(state, 1)["attack"]
    assert attack["attack_count"] == 1 and attack["attack"] is None and not attack["revealed"]
    state = use(state, 0, "take-cover")
    assert state.hits == (4, 3) and state.graveyard == ("patch-up", "take-cover")
    assert GAME.decision(state) == Decision.turn(1, "defend")


def test_the_defender_is_offered_only_the_abilities_it_can_use() -> None:
    # A Patch Up with no Hit in the discard does nothing: the defense alone is offered.
    state = table(hands=(["4"], ["1", "patch-up"]))
    state = act(state, 0, {"type": "attack", "cards": ["4"]})
    assert {action["type"] for action in GAME.legal_actions(state, 1)} == {"defend"}


def test_the_other_player_may_patch_up_during_the_opponents_main_phase() -> None:
    # "Action cards may be used for their ability at **any** time, on **any** turn." Before the
    # pistol passes, the other player may use a Patch Up it holds.
    state = table(
        hands=(["2"], ["1", "patch-up"]), discards=([], ["hit"]), hits=(4, 3), decks=(["1"] * 5, ["1"] * 5)
    )
    state = act(state, 0, {"type": "end_turn"})
    assert GAME.decision(state) == Decision.response({1}, "turn_end")
    assert GAME.legal_actions(state, 1) == [{"type": "pass"}, {"type": "use", "card": "patch-up"}]
    assert state.active == 0 and state.turn == 0  # still seat 0's turn
    state = use(state, 1, "patch-up")
    # Nothing else to use: the pistol passes, and both draw up.
    assert state.hits == (4, 4) and state.graveyard == ("patch-up",)
    assert state.active == 1 and state.turn == 1 and GAME.decision(state) == Decision.turn(1, "main")


def test_passing_at_the_end_of_the_opponents_turn_lets_the_pistol_pass() -> None:
    state = table(hands=(["2"], ["1", "scavenge"]), discards=([], ["5"]), decks=(["1"] * 5, ["1"] * 5))
    state = act(state, 0, {"type": "end_turn"})
    assert GAME.legal_actions(state, 1) == [
        {"type": "pass"},
        {"type": "use", "card": "scavenge", "pick": "5"},
    ]
    state = act(state, 1, {"type": "pass"})
    assert state.active == 1 and state.hands[1] == ("1", "1", "1", "1", "scavenge")


def test_no_window_at_the_end_of_a_turn_for_a_seat_that_could_only_pass() -> None:
    # Its Patch Up is in its deck, or in its hand with no Hit in the discard: the pistol passes at once.
    for hand, deck, discard in (
        (["1"], ["patch-up"] + ["1"] * 4, ["hit"]),
        (["1", "patch-up"], ["1"] * 5, ["5"]),
    ):
        state = table(hands=(["2"], hand), decks=(["1"] * 5, deck), discards=([], discard), hits=(4, 3))
        state = act(state, 0, {"type": "end_turn"})
        assert state.active == 1 and GAME.decision(state) == Decision.turn(1, "main")


def test_patch_up_and_scavenge_work_on_any_turn() -> None:
    state = table(hands=(["1", "patch-up", "scavenge"], ["1"]), discards=(["hit", "5"], []), hits=(3, 4))
    legal = GAME.legal_actions(state, 0)
    assert {"type": "use", "card": "patch-up"} in legal
    assert {"type": "use", "card": "scavenge", "pick": "5"} in legal
    state = use(state, 0, "patch-up")
    assert state.hits == (4, 4) and state.discards[0] == ("5",)
    state = use(state, 0, "scavenge", pick="5")
    assert state.hands[0] == ("1", "5") and state.graveyard == ("patch-up", "scavenge")


def test_the_defender_may_use_abilities_on_the_attackers_turn() -> None:
    state = revealed((["4"], ["3", "dead-eye"]), ["4"], ["3"])
    assert GAME.decision(state).seats == {1}
    state = use(state, 1, "dead-eye", index=0)
    assert state.last_attack.defense_values == (4,)
    assert state.hits == (4, 4)  # 4 against 4: the defender wins


@pytest.mark.parametrize(
    ("action", "code"),
    [
        ({"type": "use", "card": "switch-up", "index": 0, "value": 3}, "ability/bad_value"),  # no change
        ({"type": "use", "card": "switch-up", "index": 0, "value": 6}, "ability/bad_value"),
        ({"type": "use", "card": "switch-up", "index": 1, "value": 2}, "ability/no_value"),  # a Hit
        ({"type": "use", "card": "switch-up", "index": 2, "value": 2}, "ability/bad_target"),
        ({"type": "use", "card": "switch-up", "index": True, "value": 2}, "ability/bad_target"),
        ({"type": "use", "card": "switch-up", "index": 0}, "action/malformed"),
        ({"type": "use", "card": "lasso"}, "ability/unknown_card"),
    ],
)
def test_a_bad_ability_changes_nothing(action, code) -> None:
    state = revealed((["3", "hit", "switch-up"], ["4"]), ["3", "hit"], ["4"])
    before = state.clone()
    with pytest.raises(IllegalAction) as raised:
        GAME.apply(state, Event.action(0, action))
    assert raised.value.code == code and state == before
