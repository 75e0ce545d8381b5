"""Writes for tournaments: set-up, registration, seeding, rounds, results, import. The API, the tasks
and the match_finished signal call these (as `tournaments.services.<name>`); nothing else writes a
tournament. Each module owns one part; `change` is what they all share: one action appended to the
log under the tournament's row lock and projected (its docstring says how)."""

from tournaments.services.imports import tournament_import
from tournaments.services.registration import (
    check_in_refusal,
    tournament_check_in,
    tournament_deck_change,
    tournament_drop,
    tournament_register,
)
from tournaments.services.results import (
    tournament_confirm,
    tournament_correct,
    tournament_dispute,
    tournament_report,
)
from tournaments.services.rounds import (
    tournament_forbidden_pairs_set,
    tournament_next_round,
    tournament_record_match,
    tournament_round_close,
    tournament_round_repair,
    tournament_round_start,
    tournament_rounds_start_due,
    tournament_start,
)
from tournaments.services.seeding import random_seed_order, tournament_seeds_set
from tournaments.services.setup import (
    tournament_cancel,
    tournament_configure,
    tournament_create,
    tournament_delete,
    tournament_open,
)
