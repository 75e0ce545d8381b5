"""Skill ratings: a thin, typed layer over openskill (Weng-Lin Bayesian ranking).

Source: R. C. Weng and C.-J. Lin, "A Bayesian Approximation Method for Online Ranking",
JMLR 12 (2011) 267-300, as implemented by the `openskill` package (6.x, `openskill.models`).
Plackett-Luce is Algorithm 4 of the paper; the other four models are Algorithms 1-3 and their
"partial pairing" variants. See docs/ratings.md for why Plackett-Luce is the default.

Pure: no Django, no clock, no global random, no I/O. Every function is deterministic.

What openskill adds to the paper (and we keep, because stored ratings must be reproducible by
anyone re-running openskill with its defaults):
- before each update sigma becomes sqrt(sigma^2 + tau^2), tau = 25/300 (Glickman-style additive
  dynamics, so sigma never freezes);
- the new sigma is sigma * sqrt(max(1 - delta, kappa)), kappa = 1e-4;
- Plackett-Luce's gamma is sigma_i / c (paper, section 3.1, "gamma_q = sigma_q / c").
Openskill 6.2 also contains a tie-group "average the mu change" step in `_compute`; it compares
each result with the very object it just mutated, so it never changes anything. We rely on the
paper's behaviour (tied players move towards each other), which is what actually runs; the
hand-computed tests in tests/ratings/test_skill.py pin it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from openskill.models import (
    BradleyTerryFull,
    BradleyTerryPart,
    PlackettLuce,
    ThurstoneMostellerFull,
    ThurstoneMostellerPart,
)

DEFAULT_MODEL: Final = "plackett_luce"

# The names a ladder may choose, mapped to the openskill model class (Weng & Lin 2011, Algorithms 1-4).
_MODEL_CLASSES: Final[dict[str, type]] = {
    "plackett_luce": PlackettLuce,  # Algorithm 4: full ranking, scales to many players per match
    "bradley_terry_full": BradleyTerryFull,  # Algorithm 1: every pair of teams compared
    "bradley_terry_part": BradleyTerryPart,  # Algorithm 2: only adjacent ranks compared
    "thurstone_mosteller_full": ThurstoneMostellerFull,  # Algorithm 3 with all pairs
    "thurstone_mosteller_part": ThurstoneMostellerPart,  # Algorithm 3, adjacent ranks only
}

MODELS: Final[tuple[str, ...]] = tuple(_MODEL_CLASSES)

# openskill's `ordinal()` defaults: mu - z * sigma with z = 3 (alpha = 1, target = 0). The true
# skill is above the ordinal with ~99.9% one-sided (99.7% two-sided) confidence, so a newcomer starts
# at 25 - 3 * 25/3 = 0 and climbs as the system becomes sure of them. tests pin the equality.
ORDINAL_Z: Final = 3.0

# Provisional rule (see is_provisional and docs/ratings.md): at least 10 rated games AND sigma at or
# below two thirds of the initial 25/3. Simulated under Plackett-Luce, a newcomer's sigma after 10
# two-player games is ~5.4 against settled opponents (sigma 3) and ~6.4 against other newcomers, so
# the two conditions clear together for a typical entrant, and a pool of newcomers rating only each
# other stays provisional a few games longer.
PROVISIONAL_MIN_GAMES: Final = 10
PROVISIONAL_MAX_SIGMA: Final = (25.0 / 3.0) * (2.0 / 3.0)

# One shared instance per model name. The models are stateless during `rate` as we call it (we never
# pass `limit_sigma`, the only argument that writes to the model), so sharing is safe and saves
# building a model per match.
_SHARED_MODELS: dict[str, Any] = {}


def model_for(name: str) -> Any:
    """A new openskill model with the library defaults for `name` (one of MODELS).

    Unknown names raise ValueError listing the valid ones.
    """
    try:
        model_class = _MODEL_CLASSES[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown rating model {name!r}; valid models are: {', '.join(MODELS)}") from None
    return model_class()


def _shared_model(name: str) -> Any:
    model = _SHARED_MODELS.get(name)
    if model is None:
        model = _SHARED_MODELS[name] = model_for(name)
    return model


@dataclass(frozen=True, slots=True)
class Skill:
    """One competitor's rating: the mean and standard deviation of the belief about their skill."""

    mu: float
    sigma: float

    def __post_init__(self) -> None:
        if not math.isfinite(self.mu):
            raise ValueError(f"mu must be finite, not {self.mu!r}")
        if not (math.isfinite(self.sigma) and self.sigma > 0):
            raise ValueError(f"sigma must be finite and positive, not {self.sigma!r}")

    @property
    def ordinal(self) -> float:
        """The conservative skill estimate used for standings: mu - 3 * sigma.

        Equal to openskill's `rating.ordinal()` with its defaults (z=3, alpha=1, target=0).
        """
        return self.mu - ORDINAL_Z * self.sigma

    @classmethod
    def initial(cls, model_name: str = DEFAULT_MODEL) -> Skill:
        """The model's prior for a new competitor (mu 25, sigma 25/3 for every openskill model)."""
        model = _shared_model(model_name)
        return cls(float(model.mu), float(model.sigma))


def rate(model_name: str, skills: Sequence[Skill], ranks: Sequence[int]) -> list[Skill]:
    """New skills after ONE match of 2..N individual competitors (one competitor per team).

    `ranks[i]` is the finishing place of `skills[i]`: 1 is best, equal ranks are ties; only the order
    of the ranks matters (1, 2, 2, 4 and 1, 2, 2, 3 rate the same). The result is in input order.

    Order-free: the competitors are handed to openskill in a canonical order (rank, mu, sigma), so
    permuting the input (ranks alike) permutes the output and changes no value, not even in the last
    bit. openskill sorts by rank itself, but in input order within a tie, which would let
    floating-point summation order leak into the result.
    """
    count = len(skills)
    if count != len(ranks):
        raise ValueError(f"{count} skills but {len(ranks)} ranks")
    if count < 2:
        raise ValueError(f"a match needs at least 2 competitors, not {count}")
    for rank in ranks:
        if isinstance(rank, bool) or not isinstance(rank, int) or rank < 1:
            raise ValueError(f"ranks must be integers >= 1 (1 = best), not {rank!r}")
    model = _shared_model(model_name)

    order = sorted(range(count), key=lambda i: (ranks[i], skills[i].mu, skills[i].sigma))
    teams = [[model.rating(mu=skills[i].mu, sigma=skills[i].sigma)] for i in order]
    rated = model.rate(teams, ranks=[ranks[i] for i in order])

    result: list[Skill] = [None] * count  # type: ignore[list-item]  # every slot is filled below
    previous_key: tuple[int, float, float] | None = None
    for position, i in enumerate(order):
        key = (ranks[i], skills[i].mu, skills[i].sigma)
        if key == previous_key:
            # Identical competitors get identical results: openskill's sums run in seat order, so
            # two identical seats can differ in the last bit (1e-19), which would break order-freedom.
            result[i] = result[order[position - 1]]
        else:
            player = rated[position][0]
            result[i] = Skill(player.mu, player.sigma)
        previous_key = key
    return result


def is_provisional(
    skill: Skill,
    games: int,
    *,
    seats: int = 2,
    min_games: int = PROVISIONAL_MIN_GAMES,
    max_sigma: float = PROVISIONAL_MAX_SIGMA,
) -> bool:
    """True while a rating is not yet trustworthy.

    Duels (`seats` 2): fewer than `min_games` rated games, or sigma still above `max_sigma` (default
    2/3 of the initial 25/3, about 5.56). Both conditions, because each alone fails somewhere: games
    alone would settle a newcomer who only met other newcomers (their sigma stays high); sigma alone
    would settle a player after three duels under Thurstone-Mosteller, which shrinks sigma far faster
    than Plackett-Luce (5.2 vs 7.1 after three games against settled opponents, simulated).

    Pods of 3 to 5: sigma above `max_sigma`, and nothing else. A game of k players compares each with
    k - 1 others, so a count of games means something different at each table size; sigma is what
    the model itself knows. A ladder names its threshold (`Ladder.provisional_sigma`): under
    Plackett-Luce a pool of newcomers clears 5.56 after about 17, 24 and 27 games at 3, 4 and 5
    seats, under Thurstone-Mosteller after 1 to 3 games, so a Thurstone-Mosteller ladder of pods
    wants a lower one (docs/ratings.md).
    """
    if seats >= 3:
        return skill.sigma > max_sigma
    return games < min_games or skill.sigma > max_sigma


# A new season keeps what the ladder learnt about everyone (mu) but is less sure of it: sigma grows as
# if a third of a newcomer's uncertainty came back, sigma' = sqrt(sigma^2 + (sigma0/3)^2), never past
# sigma0 (so a newcomer's rating is unchanged). A settled sigma of 1 becomes about 2.96, of 3 about
# 4.08: a returning player settles again within a few games, and the season's board starts from the
# last season's order without pinning it.
SEASON_SIGMA_RETURN: Final = 1.0 / 3.0


def season_reset(skill: Skill, *, initial: Skill) -> Skill:
    """The rating an entry starts the next season with: mu kept, sigma inflated (see above)."""
    sigma = math.sqrt(skill.sigma**2 + (initial.sigma * SEASON_SIGMA_RETURN) ** 2)
    return Skill(skill.mu, min(sigma, initial.sigma))
