"""The Pit-y Rule: the shortest (or tied shortest, with someone ahead), not digesting, may take the top
rat of the Pit instead of drawing from the Deck."""

from __future__ import annotations

from engines.greatestsnake.state import DRAW, MAIN, RAT

from . import GAME, act, card, pass_all, table

TOP, UNDER = card("rat", 0), card("lab-rat", 0)
GLUE = card("super-glue")


def turn_of_seat_0(**layout):
    state = table(3, active=2, pit=[UNDER, TOP], deck_top=[GLUE], **layout)
    return pass_all(act(state, 2, {"type": "digest"}))


def test_the_shortest_snake_may_take_the_top_rat_of_the_pit() -> None:
    state = turn_of_seat_0(bodies={1: [card("rat", 3)]})
    assert state.phase == DRAW
    assert GAME.legal_actions(state, 0) == [{"type": "draw"}, {"type": "draw_from_pit"}]
    from_pit = act(state, 0, {"type": "draw_from_pit"})
    assert from_pit.phase == RAT and from_pit.drawn == TOP and from_pit.pit == [UNDER]
    from_deck = act(state, 0, {"type": "draw"})
    assert from_deck.phase == MAIN and from_deck.hands[0] == [GLUE]


def test_tied_for_shortest_counts_when_someone_is_ahead() -> None:
    state = turn_of_seat_0(bodies={2: [card("rat", 3)]})  # seats 0 and 1 tie, seat 2 is ahead
    assert state.phase == DRAW


def test_no_pity_when_nobody_is_ahead() -> None:
    state = turn_of_seat_0()
    assert state.phase == MAIN and state.hands[0] == [GLUE]


def test_no_pity_while_digesting_a_rat() -> None:
    state = turn_of_seat_0(bodies={1: [card("rat", 3)]}, rats={0: {1: card("rat", 4)}})
    assert state.phase == MAIN


def test_no_pity_from_an_empty_pit() -> None:
    state = table(3, active=2, deck_top=[GLUE], bodies={1: [card("rat", 3)]})
    state = pass_all(act(state, 2, {"type": "digest"}))
    assert state.phase == MAIN
