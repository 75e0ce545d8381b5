"""Squeezing: a squeezed rat moves 1 space toward the head, pushes the rat ahead of it, is vomited to
the Pit at the head; heads cannot be squeezed, tails can; unsqueezable rats or parts are safe."""

from __future__ import annotations

from . import GAME, act, card, pass_all, table

SQUEEZE = card("squeeze")
R1, R2, R3 = card("rat", 0), card("rat", 1), card("rat", 2)
TWO_BODIES = {1: [card("rat", 5)]}  # seat 1: Head, Fashionable Body, a digested rat, Tail


def squeeze(rats, rat, **layout):
    state = table(3, hands={0: [SQUEEZE]}, rats={1: rats}, bodies=layout.pop("bodies", TWO_BODIES), **layout)
    action = {"type": "play", "card": SQUEEZE, "rat": rat}
    legal = action in GAME.legal_actions(state, 0)
    if not legal:
        return None
    return pass_all(act(state, 0, action))


def test_a_squeezed_rat_moves_one_space_toward_the_head() -> None:
    state = squeeze({2: R1}, R1)
    assert state.spaces[1] == [-1, R1, -1, -1]
    assert state.discard == [SQUEEZE]  # a Power Card is single-use


def test_tails_can_be_squeezed() -> None:
    state = squeeze({3: R1}, R1)
    assert state.spaces[1] == [-1, -1, R1, -1]


def test_reaching_the_head_the_rat_is_vomited_to_the_pit() -> None:
    state = squeeze({1: R1}, R1)
    assert state.spaces[1] == [-1, -1, -1, -1] and state.pit == [R1]


def test_a_rat_squeezed_into_another_pushes_it_one_space_too() -> None:
    state = squeeze({1: R1, 2: R2, 3: R3}, R3)
    assert state.spaces[1] == [-1, R2, R3, -1] and state.pit == [R1]


def test_heads_cannot_be_squeezed() -> None:
    assert squeeze({0: R1}, R1) is None
    # nor can a rat be pushed out of the Head: the rat behind it is stuck
    assert squeeze({0: R1, 1: R2}, R2) is None


def test_unsqueezable_rats_are_safe_and_so_is_a_rat_behind_one() -> None:
    armoured = card("armoured-rat")
    assert squeeze({2: armoured}, armoured) is None
    assert squeeze({1: armoured, 2: R1}, R1) is None


def test_an_unsqueezable_part_keeps_its_rat_safe() -> None:
    belly = card("iron-belly")
    assert squeeze({1: R1}, R1, gear={1: {0: belly}}) is None  # Iron Belly on the Fashionable Body
    state = squeeze({2: R1}, R1, gear={1: {0: belly}})  # the rat on the other Body Card moves
    assert state is not None and state.spaces[1][1] == R1


def test_fake_rat_is_squeezed_like_other_rats_and_discarded_when_vomited() -> None:
    fake = card("fake-rat")
    state = squeeze({1: fake}, fake)
    assert state.pit == [] and fake in state.discard


def test_squeezing_a_rat_that_moved_away_meanwhile_does_nothing() -> None:
    # Seat 0 squeezes seat 1's rat; seat 2 answers by squeezing it first, so it has been vomited.
    other = card("squeeze", 1)
    state = table(3, hands={0: [SQUEEZE], 2: [other]}, rats={1: {1: R1}})
    state = act(state, 0, {"type": "play", "card": SQUEEZE, "rat": R1})
    state = pass_all(act(state, 2, {"type": "play", "card": other, "rat": R1}))
    assert state.pit == [R1] and set(state.discard) == {SQUEEZE, other}
