"""ratings.skill against hand-computed Weng-Lin Plackett-Luce updates and its properties.

The expected values are worked out here with plain `math`, from Algorithm 4 of Weng & Lin (2011),
"A Bayesian Approximation Method for Online Ranking", JMLR 12, with openskill's defaults:
    mu0 = 25, sigma0 = 25/3, beta = sigma0 / 2 = 25/6, kappa = 1e-4, tau = 25/300.
For one-player teams (all ours), with q ranging over the competitors:
    sigma_t^2   = sigma^2 + tau^2                          (openskill's additive dynamics, first)
    c           = sqrt(sum_i (sigma_t,i^2 + beta^2))
    C_q         = {i : r(i) >= r(q)}   (q and everyone who finished no better than q)
    sum_q       = sum_{s in C_q} exp(mu_s / c)
    A_q         = |{s : r(s) = r(q)}|  (the size of q's tie group)
    p_{i,q}     = exp(mu_i / c) / sum_q
    Omega_i     = sigma_t,i^2 / c   * sum_{q : r(q) <= r(i)} ([q = i] - p_{i,q}) / A_q
    Delta_i     = gamma_i * sigma_t,i^2 / c^2 * sum_{q : r(q) <= r(i)} p_{i,q} (1 - p_{i,q}) / A_q
    gamma_i     = sigma_t,i / c
    mu_i'       = mu_i + Omega_i
    sigma_i'    = sigma_t,i * sqrt(max(1 - Delta_i, kappa))
From the initial ratings every mu is equal, so p_{i,q} = 1 / |C_q| and the sums are fractions.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ratings.skill import (
    MODELS,
    PROVISIONAL_MAX_SIGMA,
    PROVISIONAL_MIN_GAMES,
    Skill,
    is_provisional,
    model_for,
    rate,
)

MU0 = 25.0
SIGMA0 = 25.0 / 3.0
BETA = 25.0 / 6.0
KAPPA = 0.0001
TAU = 25.0 / 300.0
SIGMA_T2 = SIGMA0**2 + TAU**2  # sigma after openskill's tau step, squared
SIGMA_T = math.sqrt(SIGMA_T2)
TOLERANCE = 1e-9


def new_sigma(sigma_t: float, delta: float) -> float:
    return sigma_t * math.sqrt(max(1 - delta, KAPPA))


def assert_skills(actual: list[Skill], expected: list[tuple[float, float]]) -> None:
    assert len(actual) == len(expected)
    for got, (mu, sigma) in zip(actual, expected):
        assert got.mu == pytest.approx(mu, abs=TOLERANCE)
        assert got.sigma == pytest.approx(sigma, abs=TOLERANCE)


# --- hand-computed updates ------------------------------------------------------------------------


def test_two_player_win_from_initial_matches_hand_computation():
    c = math.sqrt(2 * (SIGMA_T2 + BETA**2))
    gamma = SIGMA_T / c
    # Winner (rank 1): q = winner only, C = both, p = 1/2: Omega = (1 - 1/2), Delta-sum = 1/4.
    # Loser (rank 2): q = winner (p = 1/2: -1/2, 1/4) and q = loser (C = {loser}, p = 1: 0, 0).
    omega_winner = SIGMA_T2 / c * (1 - 0.5)
    omega_loser = SIGMA_T2 / c * (0 - 0.5)
    delta = gamma * SIGMA_T2 / c**2 * 0.25
    expected = [
        (MU0 + omega_winner, new_sigma(SIGMA_T, delta)),
        (MU0 + omega_loser, new_sigma(SIGMA_T, delta)),
    ]

    assert_skills(rate("plackett_luce", [Skill.initial(), Skill.initial()], [1, 2]), expected)
    # The same numbers written out, so a reader can check them on paper.
    assert c == pytest.approx(math.sqrt(2 * ((25 / 3) ** 2 + (25 / 300) ** 2 + (25 / 6) ** 2)))
    assert expected[0][0] == pytest.approx(27.635389493140497, abs=1e-12)
    assert expected[0][1] == pytest.approx(8.06590141354368, abs=1e-12)


def test_four_player_ranking_from_initial_matches_hand_computation():
    c = math.sqrt(4 * (SIGMA_T2 + BETA**2))
    gamma = SIGMA_T / c
    # |C_q| = 4, 3, 2, 1 for the players placed 1st..4th, so p_{i,q} = 1/4, 1/3, 1/2, 1.
    omega_sums = [
        1 - 1 / 4,  # 1st: only q = itself
        -1 / 4 + (1 - 1 / 3),  # 2nd: 5/12
        -1 / 4 - 1 / 3 + (1 - 1 / 2),  # 3rd: -1/12
        -1 / 4 - 1 / 3 - 1 / 2 + (1 - 1),  # 4th: -13/12
    ]
    assert sum(omega_sums) == pytest.approx(0)  # a full ranking redistributes mu
    pq = [1 / 4 * 3 / 4, 1 / 3 * 2 / 3, 1 / 2 * 1 / 2, 1 * 0]  # p (1 - p) for q = 1st..4th
    delta_sums = [sum(pq[: i + 1]) for i in range(4)]
    expected = [
        (MU0 + SIGMA_T2 / c * omega, new_sigma(SIGMA_T, gamma * SIGMA_T2 / c**2 * delta))
        for omega, delta in zip(omega_sums, delta_sums)
    ]

    skills = [Skill.initial()] * 4
    assert_skills(rate("plackett_luce", skills, [1, 2, 3, 4]), expected)
    # Finishing order given out of seat order: the player in seat 0 came 3rd.
    assert_skills(
        rate("plackett_luce", skills, [3, 1, 4, 2]), [expected[2], expected[0], expected[3], expected[1]]
    )


def test_three_player_with_tie_for_second_matches_hand_computation():
    c = math.sqrt(3 * (SIGMA_T2 + BETA**2))
    gamma = SIGMA_T / c
    # Ranks 1, 2, 2: C = all (p = 1/3, A = 1) for the winner's q; C = the two tied (p = 1/2, A = 2)
    # for each tied q.
    first = (1 - 1 / 3, (1 / 3) * (2 / 3))
    tied = (-1 / 3 + (1 - 1 / 2) / 2 - (1 / 2) / 2, (1 / 3) * (2 / 3) + 2 * ((1 / 2) * (1 / 2) / 2))
    expected = [
        (MU0 + SIGMA_T2 / c * omega, new_sigma(SIGMA_T, gamma * SIGMA_T2 / c**2 * delta))
        for omega, delta in (first, tied, tied)
    ]
    assert_skills(rate("plackett_luce", [Skill.initial()] * 3, [1, 2, 2]), expected)


def test_draw_between_unequal_players_matches_hand_computation():
    low, high = Skill(20.0, 5.0), Skill(30.0, 5.0)
    sigma_t2 = 5.0**2 + TAU**2
    c = math.sqrt(2 * (sigma_t2 + BETA**2))
    gamma = math.sqrt(sigma_t2) / c
    total = math.exp(20 / c) + math.exp(30 / c)  # both are in C_q for both q (a tie)
    p_low, p_high = math.exp(20 / c) / total, math.exp(30 / c) / total
    # A = 2; for i the sum runs over q = i (1 - p) and q = other (-p), each halved.
    omega_low = sigma_t2 / c * ((1 - p_low) / 2 - p_low / 2)
    omega_high = sigma_t2 / c * ((1 - p_high) / 2 - p_high / 2)
    delta_low = gamma * sigma_t2 / c**2 * (2 * p_low * (1 - p_low) / 2)
    delta_high = gamma * sigma_t2 / c**2 * (2 * p_high * (1 - p_high) / 2)
    expected = [
        (20 + omega_low, new_sigma(math.sqrt(sigma_t2), delta_low)),
        (30 + omega_high, new_sigma(math.sqrt(sigma_t2), delta_high)),
    ]
    assert_skills(rate("plackett_luce", [low, high], [1, 1]), expected)


# --- behaviour ------------------------------------------------------------------------------------


def test_draw_moves_both_towards_each_other_symmetrically():
    low, high = rate("plackett_luce", [Skill(20.0, 5.0), Skill(30.0, 5.0)], [1, 1])
    assert low.mu > 20.0 and high.mu < 30.0
    assert low.mu - 20.0 == pytest.approx(30.0 - high.mu, abs=1e-12)
    assert low.sigma == pytest.approx(high.sigma, abs=1e-12)
    assert low.mu < high.mu  # one draw does not swap them


def test_draw_between_equals_changes_no_mu():
    a, b = rate("plackett_luce", [Skill.initial(), Skill.initial()], [1, 1])
    assert a.mu == b.mu == pytest.approx(MU0)
    assert a.sigma == b.sigma < SIGMA0


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("players", [2, 3, 5])
def test_winner_gains_and_every_sigma_shrinks_from_initial(model, players):
    before = [Skill.initial(model)] * players
    after = rate(model, before, list(range(1, players + 1)))
    assert after[0].mu > MU0
    assert after[-1].mu < MU0
    assert all(s.sigma < SIGMA0 for s in after)


@pytest.mark.parametrize("model", MODELS)
def test_initial_is_the_model_prior(model):
    assert Skill.initial(model) == Skill(25.0, 25.0 / 3.0)
    assert Skill.initial(model).ordinal == pytest.approx(0.0)


@pytest.mark.parametrize("model", MODELS)
def test_ordinal_is_the_library_ordinal(model):
    skill = Skill(31.5, 2.25)
    assert skill.ordinal == model_for(model).rating(mu=31.5, sigma=2.25).ordinal()
    assert skill.ordinal == pytest.approx(31.5 - 3 * 2.25)


def test_unknown_model_names_the_valid_ones():
    with pytest.raises(ValueError) as error:
        model_for("elo")
    for name in MODELS:
        assert name in str(error.value)
    with pytest.raises(ValueError):
        rate("glicko", [Skill.initial()] * 2, [1, 2])


def test_default_model_is_plackett_luce():
    assert MODELS[0] == "plackett_luce"
    assert type(model_for("plackett_luce")).__name__ == "PlackettLuce"


@pytest.mark.parametrize(
    ("skills", "ranks"),
    [
        ([Skill.initial()], [1]),
        ([Skill.initial()] * 2, [1]),
        ([Skill.initial()] * 2, [0, 1]),
        ([Skill.initial()] * 2, [1, 1.5]),
        ([Skill.initial()] * 2, [True, 2]),
    ],
)
def test_bad_match_is_refused(skills, ranks):
    with pytest.raises(ValueError):
        rate("plackett_luce", skills, ranks)


def test_skill_refuses_impossible_values():
    with pytest.raises(ValueError):
        Skill(25.0, 0.0)
    with pytest.raises(ValueError):
        Skill(float("nan"), 1.0)


def test_only_the_order_of_ranks_matters():
    skills = [Skill(22.0, 6.0), Skill(27.0, 4.0), Skill(25.0, 8.0), Skill(30.0, 3.0)]
    assert rate("plackett_luce", skills, [1, 2, 2, 4]) == rate("plackett_luce", skills, [1, 2, 2, 3])
    assert rate("plackett_luce", skills, [1, 2, 2, 4]) == rate("plackett_luce", skills, [3, 7, 7, 9])


def test_rate_does_not_touch_its_input():
    skills = [Skill(22.0, 6.0), Skill(27.0, 4.0)]
    kept = list(skills)
    rate("plackett_luce", skills, [2, 1])
    assert skills == kept


def test_provisional_rule():
    settled = Skill(25.0, PROVISIONAL_MAX_SIGMA)
    assert not is_provisional(settled, PROVISIONAL_MIN_GAMES)
    assert is_provisional(settled, PROVISIONAL_MIN_GAMES - 1)  # too few games
    assert is_provisional(Skill(25.0, PROVISIONAL_MAX_SIGMA + 0.01), 100)  # still uncertain
    assert is_provisional(Skill.initial(), 0)
    assert not is_provisional(Skill(25.0, 7.0), 3, min_games=3, max_sigma=7.0)


def test_modules_import_without_django():
    code = (
        "import sys, ratings.skill, ratings.matchmaking; "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('django', 'rest_framework', 'celery')]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).resolve().parents[2])


# --- properties -----------------------------------------------------------------------------------

skills_strategy = st.builds(
    Skill,
    mu=st.floats(min_value=0.0, max_value=50.0, allow_nan=False),
    sigma=st.floats(min_value=0.5, max_value=10.0, allow_nan=False),
)


@st.composite
def matches(draw, *, unique_winner: bool = False):
    size = draw(st.integers(min_value=2, max_value=6))
    skills = draw(st.lists(skills_strategy, min_size=size, max_size=size))
    if unique_winner:
        others = st.integers(min_value=2, max_value=size)
        ranks = [1] + draw(st.lists(others, min_size=size - 1, max_size=size - 1))
        order = draw(st.permutations(range(size)))
        ranks = [ranks[i] for i in order]
    else:
        ranks = draw(st.lists(st.integers(min_value=1, max_value=size), min_size=size, max_size=size))
    model = draw(st.sampled_from(MODELS))
    return model, skills, ranks


@settings(max_examples=300, deadline=None)
@given(matches(unique_winner=True))
def test_the_strict_winner_never_loses_mu(match):
    model, skills, ranks = match
    after = rate(model, skills, ranks)
    winner = ranks.index(1)
    assert after[winner].mu >= skills[winner].mu


@settings(max_examples=300, deadline=None)
@given(matches(), st.data())
def test_permuting_the_input_permutes_the_output_exactly(match, data):
    model, skills, ranks = match
    order = data.draw(st.permutations(range(len(skills))))
    straight = rate(model, skills, ranks)
    permuted = rate(model, [skills[i] for i in order], [ranks[i] for i in order])
    assert permuted == [straight[i] for i in order]


@settings(max_examples=100, deadline=None)
@given(matches())
def test_rate_is_deterministic(match):
    model, skills, ranks = match
    assert rate(model, skills, ranks) == rate(model, skills, ranks)
