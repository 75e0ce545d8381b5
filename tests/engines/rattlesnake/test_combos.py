"""Valid combos and winning combos (rulebook "Attacking & Defending"), one test per ranking rule."""

from __future__ import annotations

import pytest

from engines.rattlesnake.combos import NO_COMBO, RUN, SET, SINGLE, Combo, attacker_wins, strongest


@pytest.mark.parametrize(
    ("values", "combo"),
    [
        ([2, 2, 2], Combo(SET, (2, 2, 2))),  # "Set: two or more of the same number e.g. three 2s"
        ([2, 3, 4], Combo(RUN, (2, 3, 4))),  # "Run: ascending string of numbers ... e.g. 2 3 4"
        ([4, 2], Combo(SINGLE, (4,))),  # no set, no run: the "Single card", the highest
        ([5, 3, 1], Combo(SINGLE, (5,))),
        ([3, 4, 5, 3], Combo(RUN, (3, 4, 5))),  # the example: a run of 3,4,5 and a second 3
        ([1, 2, 4, 5, 5], Combo(SET, (5, 5))),  # two runs of 2 and a set of 2: the set beats the runs
        ([1, 2, 3, 5, 5], Combo(RUN, (1, 2, 3))),  # more cards beats the set
        ([None, None], NO_COMBO),  # Hits "may never be used in a combo"
        ([None, 3], Combo(SINGLE, (3,))),
        ([], NO_COMBO),
    ],
)
def test_the_strongest_combo(values, combo) -> None:
    assert strongest(values) == combo


def test_only_one_combo_counts() -> None:
    # "You may not count multiple combos": a set of two and a run of two are not four cards.
    assert len(strongest([2, 2, 4, 5]).numbers) == 2


def test_a_the_most_cards_wins() -> None:
    assert attacker_wins(strongest([1, 2, 3]), strongest([5, 5]))
    assert not attacker_wins(strongest([5, 5]), strongest([1, 1, 1]))
    assert attacker_wins(strongest([1, 1]), strongest([5]))


def test_b_a_set_beats_a_run_of_as_many_cards() -> None:
    assert attacker_wins(strongest([1, 1, 1]), strongest([3, 4, 5]))
    assert not attacker_wins(strongest([3, 4, 5]), strongest([2, 2, 2]))


def test_b_turned_round_by_straight_shooter() -> None:
    assert attacker_wins(
        strongest([3, 4, 5], run_beats_set=True), strongest([2, 2, 2], run_beats_set=True), run_beats_set=True
    )


def test_c_the_highest_card_decides_between_equal_combos() -> None:
    assert attacker_wins(strongest([3, 3]), strongest([2, 2]))
    assert attacker_wins(strongest([3, 4, 5]), strongest([2, 3, 4]))
    assert attacker_wins(strongest([5]), strongest([4]))
    assert not attacker_wins(strongest([2, 3]), strongest([3, 4]))


def test_d_a_full_tie_goes_to_the_defender() -> None:
    assert not attacker_wins(strongest([4, 4]), strongest([4, 4]))
    assert not attacker_wins(strongest([1, 2, 3]), strongest([1, 2, 3]))
    assert not attacker_wins(strongest([5]), strongest([5, 1]))


def test_a_bluff_of_only_hits_never_wins() -> None:
    # Nothing against nothing is a tie, and the defender who played no cards wins it.
    assert not attacker_wins(strongest([None, None]), strongest([]))
    assert attacker_wins(strongest([1]), strongest([None]))
