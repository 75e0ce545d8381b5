"""The rulebook's "Example Turn", step by step through the engine (Alfie is seat 0, Jenna seat 1).

The example says both players drew up to six cards (*Locked & Loaded* is in the saloon), yet Alfie
then spends two 1s, plays four cards and still holds *Distract*: seven cards. The test starts after
the draw with those seven cards in his hand (docs/games/rattlesnake.md, "The example turn").
"""

from __future__ import annotations

from engines.protocol import Event
from engines.rattlesnake import GAME

from . import act, shuffle, table

ALFIE, JENNA = 0, 1


def start():
    return table(
        hands=(["1", "1", "3", "3", "4", "5", "distract"], ["2", "2", "2", "4", "hit", "1"]),
        decks=(["2", "2", "4"], ["3", "5", "5", "1"]),
        saloon=["switch-up", "locked-and-loaded", "dead-eye", "take-cover", "disarm"],
        saloon_deck=["scavenge", "patch-up"],
    )


def test_step_1_locked_and_loaded_makes_the_hand_size_six() -> None:
    state = start()
    assert state.rules.hand_size == 6
    assert GAME.view(state, JENNA)["rules"]["hand_size"] == 6


def test_the_example_turn() -> None:
    state = start()
    assert GAME.decision(state).seats == {ALFIE}

    # 2: "Alfie starts by buying Switch Up from the saloon by discarding his two 1s."
    state = act(state, ALFIE, {"type": "buy", "discard": ["1", "1"], "card": "switch-up"})
    assert state.hands[ALFIE] == ("3", "3", "4", "5", "switch-up", "distract")
    assert state.discards[ALFIE] == ("1", "1")
    assert state.saloon[0] == "patch-up"  # the empty slot refilled from the top of the saloon deck

    # 3: "He plays four cards face down, then Jenna plays three."
    attack = {"type": "attack", "cards": ["3", "3", "4", "5"]}
    assert GAME.event_audience(state, Event.action(ALFIE, attack)) == {ALFIE}
    state = act(state, ALFIE, attack)
    jenna_sees = GAME.view(state, JENNA)["attack"]
    assert jenna_sees["attack_count"] == 4 and jenna_sees["attack"] is None
    assert GAME.decision(state).seats == {JENNA} and GAME.decision(state).prompt == "defend"
    state = act(state, JENNA, {"type": "defend", "cards": ["2", "2", "2"]})

    # 4: "Alfie reveals a run of 3,4,5 and a second 3 – he bluffed with one! Jenna reveals a set of
    # 2,2,2. ... A set beats a run, so Jenna is set to win."
    revealed = GAME.view(state, None)["attack"]
    assert revealed["revealed"] and revealed["attack"] == ["3", "3", "4", "5"]
    assert revealed["attack_combo"] == {"kind": "run", "numbers": [3, 4, 5]}
    assert revealed["defense_combo"] == {"kind": "set", "numbers": [2, 2, 2]}
    # Only Alfie holds saloon cards, so only he is asked whether to use an ability.
    decision = GAME.decision(state)
    assert (decision.kind, decision.prompt, decision.seats) == ("response", "reveal", {ALFIE})

    # 5: "Alfie plays Distract from his hand to change Jenna's 2 to a 1 ... He then places the used
    # Distract in the graveyard." Jenna owns no Take Cover, so it resolves at once.
    assert {"type": "use", "card": "distract", "index": 0} in GAME.legal_actions(state, ALFIE)
    state = act(state, ALFIE, {"type": "use", "card": "distract", "index": 0})
    assert state.defense_values == (1, 2, 2)
    assert state.graveyard == ("distract",)
    assert GAME.view(state, JENNA)["attack"]["defense_combo"] == {"kind": "set", "numbers": [2, 2]}

    # 6: "Alfie now has the most cards in the combo ... she loses the attack and has to put a Hit in
    # her discard." Alfie is done: the window closes when he passes.
    state = act(state, ALFIE, {"type": "pass"})
    assert state.hits == (4, 3)
    assert state.discards[JENNA] == ("2", "2", "2", "hit")  # played cards keep their printed number
    assert state.discards[ALFIE] == ("1", "1", "3", "3", "4", "5")
    record = GAME.view(state, None)["last_attack"]
    assert record["winner"] == "attacker" and record["hits_taken"] == 1

    # "Alfie passes over the pistol, and a new turn begins." He has bought and attacked and his
    # Switch Up only changes an attack/defense, so the engine passes the pistol for him.
    assert state.active == JENNA and state.turn == 1
    # Step 1 of Jenna's turn: she draws first (3 cards to six); Alfie's deck holds only 3 of the 5 he
    # needs, so his discard is shuffled into a new deck (a chance event) and he draws the rest.
    assert len(state.hands[JENNA]) == 6
    assert GAME.decision(state).kind == "chance"
    request = GAME.chance_request(state)
    assert (request.kind, request.label, request.size) == ("shuffle", "shuffle_discard", 6)
    state = shuffle(state)
    assert state.discards[ALFIE] == () and len(state.hands[ALFIE]) == 6 and len(state.decks[ALFIE]) == 4
    assert GAME.decision(state).seats == {JENNA} and GAME.decision(state).prompt == "main"
