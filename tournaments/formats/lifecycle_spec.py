"""Tournament specs: the format, its seats per match, and its options with defaults and docs.

Declared once, as data (OpenSpiel's `_DEFAULT_PARAMS`): `spec_check` validates a spec against these
tables and fills the defaults in; `spec_describe` serves the same tables to the API. A normalised
config holds only JSON values (str, int, float, bool, None, lists, dicts), so a spec survives
`json.dumps` / `json.loads` unchanged.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .common import CHESS, MATCH_POINTS, FormatError, Scoring
from .tiebreaks import Tiebreak

FORMATS = ("round_robin", "single_elimination", "double_elimination", "swiss", "pods", "groups_playoffs")
ELIMINATION = ("single_elimination", "double_elimination")


@dataclass(frozen=True)
class TournamentSpec:
    format: str
    seats_per_match: int = 2  # 2 for duels; 3..5 for pods (pods format only; also the pod size)
    config: Mapping[str, Any] = field(default_factory=dict)  # per-format options; see spec_describe()


def _bad(key: str, detail: str) -> FormatError:
    return FormatError(f"{key}: {detail}", code="tournament/bad_config")


# -- option checkers: (key, value, spec) -> normalised value --------------------------------------


def _choice(*choices):
    def check(key, value, spec):
        if value not in choices:
            raise _bad(key, f"must be one of {', '.join(map(repr, choices))}, got {value!r}")
        return value

    return check


def _int(lo: int, hi: int | None = None, *, auto: bool = False, none: bool = False):
    def check(key, value, spec):
        if auto and value == "auto":
            return value
        if none and value is None:
            return value
        if (
            isinstance(value, bool)
            or not isinstance(value, int)
            or value < lo
            or (hi is not None and value > hi)
        ):
            span = f">= {lo}" if hi is None else f"{lo}..{hi}"
            if auto:
                span += ' or "auto"'
            raise _bad(key, f"must be an integer {span}, got {value!r}")
        return value

    return check


def _bool(key, value, spec):
    if not isinstance(value, bool):
        raise _bad(key, f"must be true or false, got {value!r}")
    return value


def _best_of(per_round: bool, odd: bool):
    def one(key, v):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1 or (odd and v % 2 == 0):
            raise _bad(
                key,
                f"must be a positive {'odd ' if odd else ''}integer"
                f"{' or a list of them' if per_round else ''}, got {v!r}",
            )
        return v

    def check(key, value, spec):
        if per_round and isinstance(value, (list, tuple)):
            if not value:
                raise _bad(key, "an empty list")
            return [one(key, v) for v in value]
        return one(key, value)

    return check


def _scoring(key, value, spec):
    if value in ("match_points", "chess"):
        return value
    if isinstance(value, Mapping):
        extra = set(value) - {"win", "draw", "loss", "bye"}
        if extra or not {"win", "draw", "loss"} <= set(value):
            raise _bad(key, "a custom scoring is {win, draw, loss[, bye]}")
        out = {}
        for k in ("win", "draw", "loss", "bye"):
            if k in value:
                v = value[k]
                if isinstance(v, bool) or not isinstance(v, (int, float)):
                    raise _bad(key, f"{k} must be a number, got {v!r}")
                out[k] = v
        return out
    raise _bad(key, f'must be "match_points", "chess" or {{win, draw, loss}}, got {value!r}')


def _tiebreaks(key, value, spec):
    if value is None:
        return None
    if not isinstance(value, (list, tuple)):
        raise _bad(key, "must be a list of tie-break codes")
    known = {t.value for t in Tiebreak}
    for code in value:
        if code not in known:
            raise _bad(key, f"unknown tie-break {code!r} (known: {', '.join(sorted(known))})")
    return list(value)


def _forbidden(key, value, spec):
    if not isinstance(value, (list, tuple)):
        raise _bad(key, "must be a list of [player, player] pairs")
    out = []
    for pair in value:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2 or pair[0] == pair[1]:
            raise _bad(key, f"bad pair {pair!r}: need two different players")
        out.append([pair[0], pair[1]])
    return out


def _points(key, value, spec):
    if value is None:
        return list(range(spec.seats_per_match, 0, -1))
    if (
        not isinstance(value, (list, tuple))
        or not value
        or any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in value)
    ):
        raise _bad(key, "must be a non-empty list of numbers, best place first")
    return list(value)


def _number(key, value, spec):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _bad(key, f"must be a number, got {value!r}")
    return value


@dataclass(frozen=True)
class Option:
    name: str
    default: Any
    doc: str
    check: Callable[[str, Any, TournamentSpec], Any]


_SCORING_DOC = (
    '"match_points" (3/1/0), "chess" (1/½/0) or {"win", "draw", "loss"[, "bye"]}; '
    'a bye scores a win unless "bye" says otherwise'
)
_TB_DOC = (
    "tie-break codes after points, in order (DE, WIN, BH, BH-C1, BH-M1, SB, OMW%, GW%, OGW%); "
    "seed always breaks what is left"
)

OPTIONS: dict[str, tuple[Option, ...]] = {
    "round_robin": (
        Option("legs", 1, "1: everyone meets once; 2: twice, seats swapped", _choice(1, 2)),
        Option("scoring", "match_points", _SCORING_DOC, _scoring),
        Option("tiebreaks", ["DE", "SB", "WIN"], _TB_DOC, _tiebreaks),
        Option(
            "best_of",
            1,
            "games per match; drawn games count as draws, equal game wins draw the match",
            _best_of(False, False),
        ),
    ),
    "swiss": (
        Option("rounds", "auto", '"auto" = ceil(log2 players at the start), or a number', _int(1, auto=True)),
        Option("scoring", "chess", _SCORING_DOC, _scoring),
        Option("tiebreaks", ["DE", "BH-C1", "BH", "SB"], _TB_DOC, _tiebreaks),
        Option(
            "forbidden_pairs",
            [],
            "pairs of player ids who must never meet (the API's forbidden-pairs route "
            "takes usernames and stays editable)",
            _forbidden,
        ),
        Option(
            "best_of",
            1,
            "games per match; drawn games count as draws, equal game wins draw the match",
            _best_of(False, False),
        ),
        Option(
            "acceleration",
            "none",
            '"baku": the top half of the start list pairs with virtual points '
            "in the first half of the rounds (FIDE C.04.5.1)",
            _choice("none", "baku"),
        ),
        Option(
            "missed_rounds",
            "zero",
            'a late entrant\'s missed rounds: "zero" or "half_point_bye" each',
            _choice("zero", "half_point_bye"),
        ),
    ),
    "single_elimination": (
        Option(
            "best_of",
            1,
            "odd games per match, or a list per round (the last repeats); drawn games are replayed",
            _best_of(True, True),
        ),
        Option("third_place", False, "play a third-place match between the semi-final losers", _bool),
    ),
    "double_elimination": (
        Option(
            "best_of",
            1,
            "odd games per match, or a list per winners' round (the last repeats); drawn games are replayed",
            _best_of(True, True),
        ),
        Option("bracket_reset", True, "a second grand final if the losers' champion wins the first", _bool),
    ),
    "pods": (
        Option(
            "min_seats",
            3,
            "the game's minimum players per pod; never a smaller pod (lowest ranked sit out with a bye)",
            _int(2, 5),
        ),
        Option("rounds", 3, "pod rounds before the final pod", _int(1)),
        Option(
            "placement_points",
            None,
            "points per finishing place, best first; default pod size down to 1 (4-3-2-1)",
            _points,
        ),
        Option("bye_points", 0, "points for sitting out a round", _number),
        Option(
            "advance",
            "best_overall",
            '"best_overall" (top of the standings) or "pod_winners" (winners of the last round\'s pods)',
            _choice("best_overall", "pod_winners"),
        ),
        Option(
            "advance_count",
            None,
            "players in the final pod (best_overall); default the pod size",
            _int(2, 5, none=True),
        ),
        Option(
            "final_pod",
            True,
            "after the rounds the advancing players play one final pod that decides the top places",
            _bool,
        ),
    ),
    "groups_playoffs": (
        Option("groups", 2, "number of groups (snake-seeded)", _int(1)),
        Option(
            "group_format",
            "round_robin",
            '"round_robin" or "swiss" inside each group',
            _choice("round_robin", "swiss"),
        ),
        Option(
            "group_rounds",
            "auto",
            'swiss groups: rounds ("auto" = ceil(log2 group size))',
            _int(1, auto=True),
        ),
        Option(
            "group_best_of",
            1,
            "games per group-stage match (drawn games count as draws)",
            _best_of(False, False),
        ),
        Option("scoring", "match_points", _SCORING_DOC, _scoring),
        Option(
            "tiebreaks",
            None,
            _TB_DOC + "; default DE, SB, WIN (round robin) or DE, BH-C1, BH, SB (swiss)",
            _tiebreaks,
        ),
        Option("advance_per_group", 2, "top players of each group who reach the playoff", _int(1)),
        Option(
            "playoff",
            "single_elimination",
            '"single_elimination" or "double_elimination"',
            _choice(*ELIMINATION),
        ),
        Option(
            "best_of",
            1,
            "playoff: odd games per match or a list per round; drawn games are replayed",
            _best_of(True, True),
        ),
        Option("third_place", False, "playoff (single elimination): third-place match", _bool),
        Option("bracket_reset", True, "playoff (double elimination): second grand final if needed", _bool),
    ),
}


def spec_check(spec: TournamentSpec | Mapping[str, Any]) -> TournamentSpec:
    """Validate `spec` (a TournamentSpec or a {format, seats_per_match, config} mapping) and return it
    with every option filled in. Raises FormatError("tournament/bad_config") naming the bad key."""
    if isinstance(spec, Mapping):
        extra = set(spec) - {"format", "seats_per_match", "config"}
        if extra:
            raise _bad(sorted(extra)[0], "unknown spec field")
        spec = TournamentSpec(spec.get("format"), spec.get("seats_per_match", 2), spec.get("config") or {})
    if spec.format not in FORMATS:
        raise _bad("format", f"unknown format {spec.format!r} (known: {', '.join(FORMATS)})")
    seats = spec.seats_per_match
    if spec.format == "pods":
        if isinstance(seats, bool) or not isinstance(seats, int) or not 3 <= seats <= 5:
            raise _bad("seats_per_match", f"pods seat 3 to 5 players, got {seats!r}")
    elif seats != 2:
        raise _bad("seats_per_match", f"{spec.format} is played in duels (2), got {seats!r}")
    given = dict(spec.config or {})
    options = OPTIONS[spec.format]
    known = {o.name for o in options}
    for key in given:
        if key not in known:
            raise _bad(key, f"unknown option for {spec.format} (known: {', '.join(sorted(known))})")
    config = {}
    for option in options:
        value = copy.deepcopy(given.get(option.name, option.default))
        config[option.name] = option.check(option.name, value, spec)
    if spec.format == "pods":
        if config["min_seats"] > seats:
            raise _bad("min_seats", f"larger than the pod size {seats}")
        if config["advance_count"] is None:
            config["advance_count"] = seats
        if not config["min_seats"] <= config["advance_count"] <= seats:
            raise _bad("advance_count", f"the final pod seats {config['min_seats']}..{seats} players")
    if spec.format == "groups_playoffs" and config["tiebreaks"] is None:
        config["tiebreaks"] = (
            ["DE", "SB", "WIN"] if config["group_format"] == "round_robin" else ["DE", "BH-C1", "BH", "SB"]
        )
    if spec.format == "swiss":
        config["forbidden_pairs"] = [list(p) for p in config["forbidden_pairs"]]
    return TournamentSpec(spec.format, seats, config)


def spec_describe() -> dict:
    """Every format's options: {format: {"seats_per_match": ..., "options": {name: {default, doc}}}}."""
    seats = {f: {"default": 2, "allowed": [2]} for f in FORMATS}
    seats["pods"] = {"default": 4, "allowed": [3, 4, 5], "doc": "the pod size"}
    return {
        f: {
            "seats_per_match": seats[f],
            "options": {o.name: {"default": copy.deepcopy(o.default), "doc": o.doc} for o in OPTIONS[f]},
        }
        for f in FORMATS
    }


def scoring_of(value) -> Scoring:
    if value == "match_points":
        return MATCH_POINTS
    if value == "chess":
        return CHESS
    return Scoring(
        float(value["win"]),
        float(value["draw"]),
        float(value["loss"]),
        None if value.get("bye") is None else float(value["bye"]),
    )


def tiebreaks_of(codes) -> tuple[Tiebreak, ...]:
    return tuple(Tiebreak(c) for c in codes)
