"""Tournament formats: pure functions over frozen values (no Django, no clock, no global random).

round_robin — circle-method schedules; elimination — single/double brackets and their progress;
swiss — matching-based Swiss pairing with explanations; pods — free-for-all pods; groups — groups
then playoffs; tiebreaks — standings with FIDE / MTR tie-breaks. See docs/tournaments.md.
"""

from .common import (
    CHESS,
    MATCH_POINTS,
    FormatError,
    MatchResult,
    Pairing,
    PlayerId,
    Problem,
    Scoring,
    WinDrawLoss,
    seed_players,
)
from .elimination import (
    Bracket,
    BracketMatch,
    BracketProgress,
    Report,
    Source,
    bracket_progress,
    double_elimination,
    seeding_order,
    single_elimination,
)
from .groups import groups_to_bracket, playoff_seeds, snake_groups
from .pods import (
    PodConfig,
    PodResult,
    PodRound,
    PodStanding,
    make_pod_round,
    placement_points,
    pod_sizes,
    pod_standings,
    pods_advance,
    pods_final_placements,
    snake_pods,
)
from .round_robin import Round, league_standings, round_robin_schedule
from .swiss import (
    ByeNote,
    Float,
    SwissConfig,
    SwissExplanation,
    SwissRound,
    bench_swiss,
    swiss_pair_round,
    swiss_rounds,
)
from .tiebreaks import (
    TIEBREAK_TABLE,
    StandingRow,
    StandingsConfig,
    Tiebreak,
    TiebreakValue,
    bench_standings,
    standings,
)

__all__ = [name for name in dir() if not name.startswith("_")]
