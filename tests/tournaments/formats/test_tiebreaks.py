"""Tie-break worked examples, computed by hand in the comments."""

import pytest

from tournaments.formats import (
    MATCH_POINTS,
    TIEBREAK_TABLE,
    MatchResult,
    StandingsConfig,
    Tiebreak,
    WinDrawLoss,
    bench_standings,
    standings,
)

W, D, L = WinDrawLoss.WIN, WinDrawLoss.DRAW, WinDrawLoss.LOSS

# Five players, three rounds, a bye each round.
#   R1: A beats B; C draws D; E bye.    R2: A draws C; E beats D; B bye.    R3: A beats E; C beats B; D bye.
# Points (1 / ½ / 0, bye = 1): A 1+½+1 = 2.5; B 0+1+0 = 1; C ½+½+1 = 2; D ½+0+1 = 1.5; E 1+1+0 = 2.
SWISS = [
    MatchResult(1, "A", "B", W),
    MatchResult(1, "C", "D", D),
    MatchResult(1, "E", None),
    MatchResult(2, "A", "C", D),
    MatchResult(2, "E", "D", W),
    MatchResult(2, "B", None),
    MatchResult(3, "A", "E", W),
    MatchResult(3, "C", "B", W),
    MatchResult(3, "D", None),
]
PLAYERS = ["A", "B", "C", "D", "E"]
ALL = StandingsConfig(
    tiebreaks=(Tiebreak.BUCHHOLZ, Tiebreak.BUCHHOLZ_CUT1, Tiebreak.MEDIAN_BUCHHOLZ, Tiebreak.SONNEBORN_BERGER)
)


def rows_by_player(rows):
    return {r.player: r for r in rows}


def test_points_and_buchholz_family():
    rows = rows_by_player(standings(PLAYERS, SWISS, ALL))
    assert {p: r.points for p, r in rows.items()} == {"A": 2.5, "B": 1.0, "C": 2.0, "D": 1.5, "E": 2.0}
    a = rows["A"]
    # A's opponents: B 1, C 2, E 2.  BH = 5; Cut-1 drops B (1): 4; Median-1 drops 1 and 2: 2.
    assert (a.value("BH"), a.value("BH-C1"), a.value("BH-M1")) == (5.0, 4.0, 2.0)
    # SB(A) = 1 (beat B) + 2/2 (drew C) + 2 (beat E) = 4.
    assert a.value("SB") == 4.0
    c = rows["C"]
    # C's opponents: D 1.5 (draw), A 2.5 (draw), B 1 (win). BH 5; Cut-1 4; SB 0.75 + 1.25 + 1 = 3.
    assert (c.value("BH"), c.value("BH-C1"), c.value("SB")) == (5.0, 4.0, 3.0)
    e = rows["E"]
    # E's bye in round 1 is a dummy opponent with E's own score 2 (C.07 Art. 16, our reading);
    # D 1.5 (win), A 2.5 (loss). BH = 2 + 1.5 + 2.5 = 6; Cut-1 drops 1.5: 4.5; SB = 2·1 + 1.5 + 0 = 3.5.
    assert (e.value("BH"), e.value("BH-C1"), e.value("SB")) == (6.0, 4.5, 3.5)
    cut = [v for v in e.values if v.code == "BH-C1"][0]
    assert cut.cut == ((2, "D", 1.5),) and (1, None, 2.0) in cut.terms
    assert "dummy" in e.explain() and "cut r2 'D' 1.5" in e.explain()


def test_order_uses_tiebreaks_in_order_only_for_ties():
    # C and E are tied on 2. Never met, so DE does not apply; BH-C1: E 4.5 > C 4.
    config = StandingsConfig(tiebreaks=(Tiebreak.DIRECT_ENCOUNTER, Tiebreak.BUCHHOLZ_CUT1))
    rows = standings(PLAYERS, SWISS, config)
    assert [r.player for r in rows] == ["A", "E", "C", "D", "B"]
    e = rows[1]
    assert e.values[0].value is None and "not all met" in e.values[0].note
    assert rows[0].values[0].note == "not needed"


def test_direct_encounter():
    # Round robin of four. B and A both finish on 2: B beat A, so B ranks first, whatever BH says.
    results = [
        MatchResult(1, "A", "B", L),
        MatchResult(1, "C", "D", D),
        MatchResult(2, "A", "C", W),
        MatchResult(2, "B", "D", L),
        MatchResult(3, "A", "D", W),
        MatchResult(3, "B", "C", W),
    ]
    # A: 0 + 1 + 1 = 2; B: 1 + 0 + 1 = 2; C: ½ + 0 + 0 = ½; D: ½ + 1 + 0 = 1.5.
    rows = standings(list("ABCD"), results, StandingsConfig(tiebreaks=(Tiebreak.DIRECT_ENCOUNTER,)))
    assert [r.player for r in rows] == ["B", "A", "D", "C"]
    assert rows[0].value("DE") == 1.0 and rows[1].value("DE") == 0.0


def test_mtr_percentages_with_floor():
    # X beats Y 2-0, Z beats W 2-1;  X beats Z 2-1, W beats Y 2-0;  X draws W 1-1-1, Z beats Y 2-0.
    results = [
        MatchResult(1, "X", "Y", W, games=(2, 0, 0)),
        MatchResult(1, "Z", "W", W, games=(2, 1, 0)),
        MatchResult(2, "X", "Z", W, games=(2, 1, 0)),
        MatchResult(2, "W", "Y", W, games=(2, 0, 0)),
        MatchResult(3, "X", "W", D, games=(1, 1, 1)),
        MatchResult(3, "Z", "Y", W, games=(2, 0, 0)),
    ]
    config = StandingsConfig(
        scoring=MATCH_POINTS,
        tiebreaks=(Tiebreak.OPPONENTS_MATCH_WIN, Tiebreak.GAME_WIN, Tiebreak.OPPONENTS_GAME_WIN),
    )
    rows = rows_by_player(standings(list("XYZW"), results, config))
    # Match points: X 3+3+1 = 7, Y 0, Z 3+0+3 = 6, W 0+3+1 = 4; possible 9 each.
    # MW%: X 7/9, Y 0 → floored to 1/3, Z 6/9, W 4/9.
    # OMW%(X) = (1/3 + 6/9 + 4/9) / 3 = 13/27 ≈ 0.4815 (it would be 10/27 without the floor).
    assert rows["X"].value("OMW%") == pytest.approx(13 / 27)
    # GW%(X): game wins 2+2+1 = 5, one drawn game, 8 games: (5·3 + 1) / (8·3) = 16/24 = 2/3.
    assert rows["X"].value("GW%") == pytest.approx(2 / 3)
    # GW%(Y): 0 points over 6 games = 0 → floor 1/3.
    assert rows["Y"].value("GW%") == pytest.approx(1 / 3)
    # OGW%(Y) = mean of the GW% of X (2/3), W and Z:
    # W: game wins 1 + 2 + 1 = 4, draws 1, games 3 + 2 + 3 = 8 → (12 + 1) / 24 = 13/24.
    # Z: game wins 2 + 1 + 2 = 5, games 3 + 3 + 2 = 8 → 15/24.  OGW%(Y) = (16/24 + 13/24 + 15/24) / 3 = 44/72.
    assert rows["Y"].value("OGW%") == pytest.approx(44 / 72)
    assert [r.player for r in standings(list("XYZW"), results, config)] == ["X", "Z", "W", "Y"]


def test_mtr_bye_is_not_an_opponent():
    results = [MatchResult(1, "A", None), MatchResult(2, "A", "B", W)]
    rows = rows_by_player(
        standings(
            ["A", "B"],
            results,
            StandingsConfig(scoring=MATCH_POINTS, tiebreaks=(Tiebreak.OPPONENTS_MATCH_WIN,)),
        )
    )
    # A's only opponent is B: MW%(B) = 0/3 → 1/3.
    assert rows["A"].value("OMW%") == pytest.approx(1 / 3)
    assert len([v for v in rows["A"].values][0].terms) == 1


def test_table_lists_every_enum_member_as_implemented():
    for tiebreak in Tiebreak:
        assert TIEBREAK_TABLE[tiebreak.value][1] is True
    assert TIEBREAK_TABLE["ARO"][1] is False


def test_seed_breaks_the_rest_and_bench_runs():
    rows = standings(["p", "q"], [], StandingsConfig(tiebreaks=()))
    assert [r.player for r in rows] == ["p", "q"]
    assert bench_standings(200, rounds=5) >= 0.0
