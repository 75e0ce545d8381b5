"""Rat Cards and Sleeping: eating, spaces never shared, digestion speeds and blocking, sleeping snakes
digest, and Rat King."""

from __future__ import annotations

from engines.greatestsnake.catalogue import RAT_KING, SPEED
from engines.greatestsnake.state import MAIN

from . import GAME, act, card, pass_all, table

RAT_CARD = card("rat")
LAB_RAT = card("lab-rat")


def digest(state, seat=0):
    return pass_all(act(state, seat, {"type": "digest"}))


def test_digestion_speeds_come_from_the_catalogue() -> None:
    assert SPEED[RAT_CARD] == 1 and SPEED[LAB_RAT] == 2 and SPEED[card("armoured-rat")] == 1


def test_a_fast_rat_moves_two_spaces() -> None:
    state = digest(table(3, rats={0: {0: LAB_RAT}}, bodies={0: [card("rat", 5)]}))
    assert state.spaces[0] == [-1, -1, LAB_RAT, -1]


def test_a_faster_rat_is_blocked_by_a_slower_one_and_does_not_push_it() -> None:
    # "A faster moving rat will be blocked by a slower rat, it won't push it through faster."
    rats = {0: {0: LAB_RAT, 1: RAT_CARD}}
    state = digest(table(3, rats=rats, bodies={0: [card("rat", 5), card("rat", 6)]}))
    assert state.spaces[0] == [-1, LAB_RAT, RAT_CARD, -1, -1]


def test_a_fast_rat_behind_a_digested_one_may_follow_it_out() -> None:
    rats = {0: {1: LAB_RAT, 2: RAT_CARD}}  # Body Card, then the Tail
    state = digest(table(3, rats=rats))
    assert state.bodies[0][1:] == [RAT_CARD, LAB_RAT] and state.length(0) == 5
    assert state.spaces[0] == [-1] * 5


def test_sleeping_snakes_cannot_eat_but_still_digest() -> None:
    state = table(3, rats={1: {0: RAT_CARD}})
    state.awake[1] = False
    state = digest(state)
    assert state.spaces[1][1] == RAT_CARD  # "Digestion takes place even if a snake is asleep"
    fake = card("fake-rat")
    state = table(3, hands={0: [fake]})
    state.awake[2] = False
    snakes = {action["snake"] for action in GAME.legal_actions(state, 0) if action.get("card") == fake}
    assert snakes == {0, 1}  # "Sleeping snakes cannot eat rats"


def test_rat_king_is_eaten_automatically_destroying_the_glue_that_blocks_it() -> None:
    # During seat 0's "Digest!" window seat 2 glues seat 1's mouth; seat 1 then draws Rat King.
    glue = card("super-glue")
    state = table(3, active=0, hands={2: [glue]}, deck_top=[RAT_KING])
    state = act(state, 0, {"type": "digest"})
    state = act(state, 2, {"type": "play", "card": glue, "snake": 1})
    state = pass_all(state)
    assert state.active == 1
    assert state.spaces[1][0] == RAT_KING and state.phase == MAIN  # no choice, no window
    assert state.glue[1] == -1 and state.discard[-1] == glue  # "Any card blocking it is destroyed"


def test_rat_king_destroys_a_rat_or_fake_rat_in_the_mouth_even_asleep() -> None:
    # Draws happen right after a "Digest!" has emptied every Head and the drawer woke up, so this
    # moment is laid out directly: the clarification says it holds "even if that snake is asleep"
    # and "If another rat is in the way, it would also be destroyed".
    from engines.greatestsnake.rules import _rat_king

    for blocker in (card("fake-rat"), RAT_CARD):
        state = table(3, rats={1: {0: blocker}})
        state.awake[1] = False
        _rat_king(state, 1, RAT_KING)
        assert state.spaces[1][0] == RAT_KING and state.discard == [blocker]


def test_a_glued_snake_cannot_eat_its_draw() -> None:
    glue = card("super-glue")
    state = table(3, active=2, hands={1: [glue]}, deck_top=[RAT_CARD])
    state = act(state, 2, {"type": "digest"})
    state = pass_all(act(state, 1, {"type": "play", "card": glue, "snake": 0}))
    # "If you can't eat it ... place it face up in the Pit": no question asked
    assert state.active == 0 and state.phase == MAIN and state.pit == [RAT_CARD]
    state = pass_all(act(state, 0, {"type": "digest"}))
    assert state.glue[0] == -1  # unstuck when its owner declares "Digest!"


def test_rat_king_drawn_from_the_pit_is_eaten_too() -> None:
    state = table(3, active=2, pit=[RAT_KING], bodies={1: [card("rat", 3)], 2: [card("rat", 4)]})
    state = pass_all(act(state, 2, {"type": "digest"}))
    assert state.phase == "draw"  # seat 0 is the shortest and digests nothing: the Pit-y Rule
    state = act(state, 0, {"type": "draw_from_pit"})
    assert state.spaces[0][0] == RAT_KING and state.phase == MAIN


def test_once_eaten_rat_king_is_like_any_other_rat() -> None:
    squeeze = card("squeeze")
    state = table(3, hands={0: [squeeze]}, rats={1: {1: RAT_KING}})
    state = pass_all(act(state, 0, {"type": "play", "card": squeeze, "rat": RAT_KING}))
    assert state.pit[-1] == RAT_KING  # vomited to the Pit like any rat


def test_a_snake_put_to_sleep_in_answer_to_its_meal_cannot_eat() -> None:
    lullaby = card("lullaby")
    state = table(3, active=2, hands={1: [lullaby]}, deck_top=[RAT_CARD])
    state = pass_all(act(state, 2, {"type": "digest"}))
    state = act(state, 0, {"type": "eat"})
    state = pass_all(act(state, 1, {"type": "play", "card": lullaby, "snake": 0}))
    assert not state.awake[0] and state.spaces[0][0] == -1 and state.pit == [RAT_CARD]


def test_a_sleeping_snake_still_vomits() -> None:
    squeeze = card("squeeze")
    state = table(3, hands={0: [squeeze]}, rats={1: {1: RAT_CARD}})
    state.awake[1] = False
    state = pass_all(act(state, 0, {"type": "play", "card": squeeze, "rat": RAT_CARD}))
    assert state.pit == [RAT_CARD]


def test_rats_never_share_a_space() -> None:
    rats = {0: {0: LAB_RAT, 1: card("lab-rat", 1), 2: RAT_CARD}}
    state = digest(table(3, rats=rats, bodies={0: [card("rat", 5)]}))
    occupied = [rat for rat in state.spaces[0] if rat >= 0]
    assert len(occupied) == len(set(occupied)) == 3
    assert state.spaces[0] == [-1, LAB_RAT, card("lab-rat", 1), RAT_CARD]  # RAT_CARD on the Tail
