"""Hidden information (rulebook "Setup": piles "face down", leftovers "to the box unseen"; "plays them
face down, declaring how many cards they played"): views show each seat only what it may see."""

from __future__ import annotations

import json

from engines.playout import playout
from engines.protocol import Decision
from engines.rattlesnake import GAME
from engines.replay import replay

from . import act, set_up, table


def test_a_hand_is_seen_by_its_owner_only() -> None:
    state = set_up()
    assert GAME.view(state, 0)["players"][0]["hand"] == list(state.hands[0])
    assert GAME.view(state, 0)["players"][1]["hand"] is None
    assert GAME.view(state, None)["players"][0]["hand"] is None
    assert GAME.view(state, 1)["players"][0]["hand_count"] == 5


def test_no_view_shows_a_deck_order_the_piles_or_the_box() -> None:
    state = set_up()
    for seat in (None, 0, 1):
        view = GAME.view(state, seat)
        text = json.dumps(view)
        assert "deck" not in {key for player in view["players"] for key in player if key != "deck_count"}
        assert view["saloon_deck_count"] == 13 and "high-noon" not in text
        for card in state.out_of_game:
            if card not in state.saloon and card not in state.saloon_deck:
                assert card not in text


def test_the_box_stays_unseen_until_the_end() -> None:
    _, log = playout(GAME, seats=2, seed=b"views/box")
    state = GAME.new_state(seats=2)
    for event in log:
        GAME.apply(state, event)
        if not state.out_of_game:
            continue
        texts = [json.dumps(GAME.view(state, seat)) for seat in (None, 0, 1)]
        boxed = set(state.out_of_game) - set(state.saloon) - set(state.saloon_deck) - set(state.graveyard)
        boxed -= {card for zone in (*state.hands, *state.decks, *state.discards) for card in zone}
        for card in boxed:  # a name only in the box: no copy of it anywhere in play
            assert all(f'"{card}"' not in text for text in texts)


def test_a_seat_cannot_tell_which_cards_the_other_committed() -> None:
    state = set_up()
    attacks = [action for action in GAME.legal_actions(state, 0) if action["type"] == "attack"]
    same_count = [action for action in attacks if len(action["cards"]) == 2]
    views = {json.dumps(GAME.view(act(state, 0, action), 1), sort_keys=True) for action in same_count}
    hand_views = {
        json.dumps({**GAME.view(act(state, 0, action), 1), "players": None}, sort_keys=True)
        for action in same_count
    }
    assert len(views) == 1 and len(hand_views) == 1


def test_replayed_views_are_json() -> None:
    _, log = playout(GAME, seats=2, seed=b"views/json")
    state = replay(GAME, seats=2, options=None, events=log).state
    for seat in (None, 0, 1):
        view = GAME.view(state, seat)
        assert json.loads(json.dumps(view)) == view
    assert GAME.view(state, None)["outcome"]["ranks"] in ([1, 2], [2, 1])


def test_a_seat_is_asked_only_when_it_holds_a_card_it_can_use() -> None:
    # Bought and attacked, seat 0 owns a Scavenge and has a card in its discard. In its hand, it is
    # asked after the reveal and again in its main phase; in its deck, it could only pass, so it is
    # asked neither time and the pistol passes by itself (docs/games/rattlesnake.md, "Who is asked").
    decisions = []
    for hand, deck in ((["2", "scavenge"], ["3"] * 5), (["2", "4"], ["scavenge", "3", "3", "3", "3"])):
        state = table(hands=(hand, ["1"]), decks=(deck, ["1"] * 5), discards=(["5"], []))
        state.bought = True
        state = act(state, 0, {"type": "attack", "cards": ["2"]})
        state = act(state, 1, {"type": "defend", "cards": []})
        if "scavenge" in hand:
            assert GAME.decision(state) == Decision.response({0}, "reveal")
            state = act(state, 0, {"type": "pass"})
        decisions.append(GAME.decision(state))
    assert decisions == [Decision.turn(0, "main"), Decision.turn(1, "main")]
