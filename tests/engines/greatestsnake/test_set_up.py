"""Setting Up, and Who Goes First: snakes, the Deck's shuffle, the deal of 3 keepable cards, Rat King
shuffled back, and the options (first player, the Expansion Pack)."""

from __future__ import annotations

import pytest

from engines.errors import InvalidOptions
from engines.greatestsnake.catalogue import CARDS, IS_REAL_RAT, RAT_KING, SNAKES
from engines.greatestsnake.state import FIRST_PLAYER, RAT_KING_BACK, SHUFFLE

from . import GAME, card, chance, deck_cards, top_first


def test_each_snake_starts_as_an_awake_head_a_fashionable_body_and_a_tail() -> None:
    state = GAME.new_state(seats=4)
    for seat in range(4):
        assert state.length(seat) == 3
        assert CARDS[state.bodies[seat][0]].kind == "body"
        assert state.awake[seat]
        assert state.spaces[seat] == [-1, -1, -1]
    view = GAME.view(state, None)
    assert [snake["style"] for snake in view["snakes"]] == [snake.style for snake in SNAKES[:4]]
    assert view["snakes"][0]["head"]["awake"] is True


def test_the_first_player_is_drawn_by_chance_by_default() -> None:
    state = GAME.new_state(seats=3)
    assert state.phase == FIRST_PLAYER
    request = GAME.chance_request(state)
    assert (request.kind, request.size) == ("choice", 3)
    state = chance(state, {"index": 2})
    assert state.active == 2 and state.phase == SHUFFLE


def test_a_given_first_player_skips_the_draw() -> None:
    state = GAME.new_state(seats=3, options={"first_player": "1"})
    assert state.phase == SHUFFLE and state.active == 1
    with pytest.raises(InvalidOptions) as raised:
        GAME.new_state(seats=3, options={"first_player": "3"})
    assert raised.value.code == "options/out_of_range"


def test_deal_draws_until_three_keepable_cards_and_rats_go_to_the_pit() -> None:
    state = GAME.new_state(seats=3, options={"first_player": "0"})
    rats = [card("rat", 0), card("lab-rat", 0)]
    glue, dodge, fake = card("super-glue"), card("dodge"), card("fake-rat")
    # Seat 0 draws Rat, Super Glue, Lab Rat, Dodge, Fake Rat: the rats go to the Pit, Fake Rat is kept.
    order = [rats[0], glue, rats[1], dodge, fake]
    request = GAME.chance_request(state)
    assert (request.kind, request.size) == ("shuffle", len(deck_cards(state)))
    state = chance(state, {"permutation": top_first(state.deck, order)})
    assert state.hands[0][:3] == [glue, dodge, fake]
    assert state.pit[:2] == rats
    for seat in range(3):
        # seat 0 has already begun the first turn, drawing a fourth card unless it was a rat
        assert len(state.hands[seat][:3]) == 3
        assert not any(IS_REAL_RAT[c] for c in state.hands[seat])
    assert all(IS_REAL_RAT[c] for c in state.pit)
    assert state.turn_number == 1 and state.active == 0  # the first turn has begun


def test_rat_king_drawn_in_the_deal_is_shuffled_back() -> None:
    state = GAME.new_state(seats=3, options={"first_player": "0"})
    glue = card("super-glue")
    state = chance(state, {"permutation": top_first(state.deck, [glue, RAT_KING])})
    assert state.phase == RAT_KING_BACK
    assert state.hands[0] == [glue] and RAT_KING in state.deck and RAT_KING not in state.pit
    request = GAME.chance_request(state)
    assert (request.kind, request.size) == ("shuffle", len(state.deck))
    # The shuffle puts Rat King at the bottom; the deal goes on.
    perm = list(range(len(state.deck)))
    perm.remove(state.deck.index(RAT_KING))
    state = chance(state, {"permutation": [state.deck.index(RAT_KING), *perm]})
    assert state.deck[0] == RAT_KING
    assert state.hands[0][0] == glue and len(state.hands[1]) == len(state.hands[2]) == 3


def test_five_players_need_the_expansion() -> None:
    five = GAME.new_state(seats=5)  # expansion "auto": on with five
    four = GAME.new_state(seats=4)
    assert five.options.expansion and not four.options.expansion
    assert len(five.deck) > len(four.deck)
    assert GAME.new_state(seats=4, options={"expansion": "on"}).options.expansion
    with pytest.raises(InvalidOptions) as raised:
        GAME.new_state(seats=5, options={"expansion": "off"})
    assert raised.value.code == "options/expansion_needed"


def test_the_spec_keeps_three_to_five_players() -> None:
    assert (GAME.spec.min_players, GAME.spec.max_players) == (3, 5)
    assert {option.name for option in GAME.spec.options} == {
        "expansion",
        "first_player",
        "feed_sleeping",
        "round_limit",
    }
