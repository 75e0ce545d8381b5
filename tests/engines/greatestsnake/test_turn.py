"""Order of a Turn and Card Limit: wake up, draw, a drawn rat, "Digest!" for every snake, the turn
passing clockwise, and the hand limit of 7."""

from __future__ import annotations

from engines.greatestsnake.state import MAIN, RAT

from . import GAME, act, card, pass_all, table

RAT_CARD = card("rat")


def next_turn(state, seat):
    """`seat` declares "Digest!" and everyone lets it happen."""
    return pass_all(act(state, seat, {"type": "digest"}))


def test_a_sleeping_snake_wakes_up_at_the_start_of_its_turn() -> None:
    state = table(3, active=2)
    state.awake[0] = False
    state = next_turn(state, 2)
    assert state.active == 0 and state.awake[0]


def test_the_draw_goes_to_the_hand_unseen_by_the_others() -> None:
    glue = card("super-glue")
    state = next_turn(table(3, active=2, deck_top=[glue]), 2)
    assert state.hands[0] == [glue] and state.phase == MAIN
    assert GAME.view(state, 0)["hand"] == [{"id": glue, "key": "super-glue"}]
    for seat in (1, 2, None):
        view = GAME.view(state, seat)
        assert view["snakes"][0]["hand_count"] == 1
        assert glue not in {c["id"] for c in view["hand"] or []}


def test_a_drawn_rat_is_face_up_and_eaten_or_placed_in_the_pit() -> None:
    state = next_turn(table(3, active=2, deck_top=[RAT_CARD]), 2)
    assert state.phase == RAT and state.drawn == RAT_CARD
    assert GAME.view(state, 1)["drawn"] == {"id": RAT_CARD, "key": "rat"}  # "play it face up"
    assert GAME.legal_actions(state, 0) == [{"type": "eat"}, {"type": "to_pit"}]
    eaten = pass_all(act(state, 0, {"type": "eat"}))
    assert eaten.spaces[0][0] == RAT_CARD and eaten.phase == MAIN
    declined = act(state, 0, {"type": "to_pit"})
    assert declined.pit[-1] == RAT_CARD and declined.spaces[0][0] == -1 and declined.phase == MAIN


def test_digestion_always_empties_the_head_before_the_next_draw() -> None:
    # Every rat moves at "Digest!" unless a slower one blocks it, and the one nearest the Tail always
    # moves: so the next player draws with an empty mouth, and a drawn rat can always be offered.
    rats = {0: {0: card("rat", 1), 1: card("rat", 2), 2: card("rat", 3)}}
    state = next_turn(table(3, active=2, deck_top=[RAT_CARD], rats=rats), 2)
    assert state.spaces[0] == [-1, card("rat", 1), -1, card("rat", 2)]
    assert state.bodies[0][1:] == [card("rat", 3)]
    assert state.phase == RAT


def test_digest_moves_every_players_rats_and_the_turn_passes_clockwise() -> None:
    rats = {0: {0: card("rat", 0)}, 1: {1: card("rat", 1)}, 2: {2: card("rat", 2)}}
    state = next_turn(table(3, active=0, rats=rats, deck_top=[card("dodge")]), 0)
    assert state.spaces[0] == [-1, card("rat", 0), -1]  # "from the Head Card to the first Body Card"
    assert state.spaces[1] == [-1, -1, card("rat", 1)]
    # a rat passing the Tail is digested: the newest Body Card, between the others and the Tail
    assert state.bodies[2][1:] == [card("rat", 2)] and state.length(2) == 4
    assert state.spaces[2] == [-1, -1, -1, -1]
    assert state.active == 1 and state.turn_number == 2


def test_the_hand_limit_of_seven_is_checked_when_the_turn_ends() -> None:
    hand = [card("squeeze", i) for i in range(3)]
    hand += [card("dodge", i) for i in range(3)] + [card("steal", i) for i in range(2)]
    state = table(3, hands={0: hand})
    legal = GAME.legal_actions(state, 0)
    assert {"type": "digest"} not in legal
    assert {"type": "discard", "card": hand[0]} in legal
    state = act(state, 0, {"type": "discard", "card": hand[0]})
    assert state.discard[-1] == hand[0] and len(state.hands[0]) == 7
    assert {"type": "digest"} in GAME.legal_actions(state, 0)


def test_power_cards_and_equipment_may_be_played_on_the_turn_they_are_drawn() -> None:
    coils = card("coils")
    state = next_turn(table(3, active=2, deck_top=[coils]), 2)
    assert {"type": "equip", "card": coils, "body": 0} in GAME.legal_actions(state, 0)


# "Power Cards are single-use cards that can be played at any time, during any player's turn, except
# for the Digestion Phase!" and "If it's a Rat Card, you must play it face up and decide whether or not
# to eat it (see Rat Cards). Read its description out loud so other player's can figure out whether
# they want to do anything."
def test_the_drawer_may_play_power_cards_before_deciding_about_a_drawn_rat() -> None:
    squeeze = card("squeeze")
    their_rat = card("rat", 1)
    # seat 1's rat moves from its first Body Card to its second at seat 2's "Digest!"
    state = table(
        3,
        active=2,
        hands={0: [squeeze]},
        bodies={1: [card("rat", 2)]},
        rats={1: {1: their_rat}},
        deck_top=[RAT_CARD],
    )
    state = next_turn(state, 2)
    assert (state.phase, state.drawn) == (RAT, RAT_CARD)
    play = {"type": "play", "card": squeeze, "rat": their_rat}
    assert GAME.legal_actions(state, 0) == [{"type": "eat"}, {"type": "to_pit"}, play]
    state = act(state, 0, play)
    # Nobody else holds a card to answer with: the squeeze resolves, and the rat still lies face up.
    assert state.spaces[1] == [-1, their_rat, -1, -1] and state.discard[-1] == squeeze
    assert (state.phase, state.drawn) == (RAT, RAT_CARD)
    assert GAME.legal_actions(state, 0) == [{"type": "eat"}, {"type": "to_pit"}]
    eaten = pass_all(act(state, 0, {"type": "eat"}))
    assert eaten.spaces[0][0] == RAT_CARD and eaten.phase == MAIN


def test_an_answer_that_shuts_the_drawers_mouth_sends_the_drawn_rat_to_the_pit() -> None:
    # The others "figure out whether they want to do anything": seat 1 answers the drawer's squeeze
    # with Super Glue on the drawer's snake, which then cannot eat, so the rat goes to the Pit.
    squeeze, glue = card("squeeze"), card("super-glue")
    their_rat = card("rat", 1)
    state = table(
        3,
        active=2,
        hands={0: [squeeze], 1: [glue]},
        bodies={1: [card("rat", 2)]},
        rats={1: {1: their_rat}},
        deck_top=[RAT_CARD],
    )
    state = next_turn(state, 2)
    state = act(state, 0, {"type": "play", "card": squeeze, "rat": their_rat})
    assert GAME.decision(state).seats == {1} and state.drawn == RAT_CARD
    state = pass_all(act(state, 1, {"type": "play", "card": glue, "snake": 0}))
    assert state.glue[0] == glue and state.pit[-1] == RAT_CARD
    assert (state.phase, state.drawn) == (MAIN, -1)
