"""Re-verifying history after an engine fix (issue #23): `reverify` replays every finished match of a
game through a deliberately changed Rat-Snake, reports same / changed / broken, and `--apply` appends
corrections, moves the projection and recomputes the ladder's ratings."""

from __future__ import annotations

import json
import random

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError

from engines.errors import IllegalAction
from engines.ratsnake import GAME as RAT_SNAKE
from engines.registry import _loaded
from matches import selectors
from matches.live import live_forget
from matches.models import Match
from matches.services import SeatSpec, match_create, match_forfeit, match_submit_action
from matches.store import match_advance
from ratings import services as ladders
from ratings.models import LadderEntry
from ratings.rate import ladder_ratings_apply
from ratings.rounds import ladder_round_create
from ratings.selectors import ratings_rebuild
from tournaments import selectors as tournament_selectors
from tournaments import services as tournaments
from tournaments.models import Tournament, TournamentMatch


class FixedRatSnake(type(RAT_SNAKE)):
    """Rat-Snake "-fix": a forfeit is no longer a legal event, and an odd score counts against its seat
    (so some results change, some stay, and some logs no longer replay)."""

    spec = RAT_SNAKE.spec.__class__(**{**RAT_SNAKE.spec.__dict__, "version": RAT_SNAKE.spec.version + "-fix"})

    def apply_forfeit(self, state, seat, reason):
        raise IllegalAction("forfeits were abolished", code="forfeit/abolished")

    def outcome(self, state):
        outcome = super().outcome(state)
        if outcome is None:
            return None
        scores = tuple(-score if score % 2 else score for score in outcome.scores)
        return type(outcome).from_scores(scores, outcome.reason)


SEEDS_WITH_CHANGED_AND_SAME = 0


def ladder_played(rounds=4):
    ladder = ladders.ladder_create(game_key="rat-snake", name="fix", slug="fix", options={"passes": 1})
    for _ in range(4):
        ladders.ladder_join(ladder=ladder, bot="random")
    for number in range(rounds):
        made = ladder_round_create(ladder_id=ladder.pk, rng=random.Random(number), bots_play="caller")
        for match in made.matches:
            match_advance(match_id=match.pk)
        ladder_ratings_apply(ladder_id=ladder.pk)
    return ladder


@pytest.mark.django_db
def test_report_then_apply_corrects_changed_matches_and_recomputes_the_ladder(tmp_path, capsys, monkeypatch):
    # Seeds drawn from a fixed generator, so the eight games (and which of them the fix changes) are
    # the same every run; from the operating system, all eight were sometimes changed.
    seeds = random.Random(SEEDS_WITH_CHANGED_AND_SAME)
    monkeypatch.setattr("matches.services.secrets.token_bytes", lambda size: seeds.randbytes(size))
    ladder = ladder_played()
    monkeypatch.undo()
    finished = list(Match.objects.filter(status="finished").order_by("pk"))
    assert len(finished) == 8
    forfeited = finished[0]

    dora = get_user_model().objects.create_user("dora")
    resigned = match_create(
        game_key="rat-snake", seats=[SeatSpec(user=dora), SeatSpec(bot="random")], entropy="server"
    )
    match_forfeit(match_id=resigned.pk, seat=0, reason="resigned", user=dora)
    before = {entry.pk: (entry.mu, entry.sigma) for entry in LadderEntry.objects.filter(ladder=ladder)}
    recorded = {match.pk: match.outcome for match in Match.objects.filter(status="finished")}

    monkeypatch.setitem(_loaded, "rat-snake", FixedRatSnake())
    live_forget()
    report_path = tmp_path / "report.json"
    call_command("reverify", "--game", "rat-snake", "--output", str(report_path))
    table = capsys.readouterr().out
    report = json.loads(report_path.read_text())
    verdicts = {row["match"]: row for row in report["matches"]}
    assert verdicts[resigned.pk]["verdict"] == "broken"
    assert (
        "forfeit/abolished" in verdicts[resigned.pk]["failure"]
        and "event" in verdicts[resigned.pk]["failure"]
    )
    changed = [row["match"] for row in report["matches"] if row["verdict"] == "changed"]
    same = [row["match"] for row in report["matches"] if row["verdict"] == "same"]
    assert changed and same, "the fixed scoring changes some results and leaves others"
    assert report["counts"] == {"same": len(same), "changed": len(changed), "broken": 1}
    assert f"{len(changed)} changed" in table and "1 no longer replay" in table
    assert {match.pk: match.outcome for match in Match.objects.filter(status="finished")} == recorded, (
        "a report writes nothing"
    )
    assert not forfeited.events.filter(kind="correction").exists()

    call_command("reverify", "--apply", str(report_path), "--json")
    applied = json.loads(capsys.readouterr().out)
    assert sorted(row["match"] for row in applied["corrected"]) == sorted(changed)
    assert applied["left_broken"] == [resigned.pk]
    for match_id in changed:
        match = Match.objects.get(pk=match_id)
        correction = match.events.order_by("-seq").first()
        assert correction.kind == "correction"
        assert correction.payload["previous_outcome"] == recorded[match_id]
        assert match.outcome == correction.payload["outcome"] == verdicts[match_id]["replayed_outcome"]
        assert selectors.match_verify(match).verified, "the log still verifies, through the fixed engine"
    for match_id in same:
        assert not Match.objects.get(pk=match_id).events.filter(kind="correction").exists()
    after = {entry.pk: (entry.mu, entry.sigma) for entry in LadderEntry.objects.filter(ladder=ladder)}
    moved = {row["entry"] for row in applied["ratings_moved"]}
    assert moved == {entry for entry in before if before[entry] != after[entry]} and moved
    for row in applied["ratings_moved"]:
        assert (row["mu"][0], row["sigma"][0]) == before[row["entry"]] and (
            row["mu"][1],
            row["sigma"][1],
        ) == after[row["entry"]]
    assert ratings_rebuild(ladder=ladder).ok, "the stored ratings equal a rebuild from the corrected outcomes"

    call_command("reverify", "--apply", str(report_path), "--json")
    again = json.loads(capsys.readouterr().out)
    assert again["corrected"] == [] and again["ratings_moved"] == [], "applying twice changes nothing"


class LowestScoreRatSnake(type(RAT_SNAKE)):
    """Rat-Snake "-low": the lowest score wins, and a tie goes to seat 1 (every result changes)."""

    spec = RAT_SNAKE.spec.__class__(**{**RAT_SNAKE.spec.__dict__, "version": RAT_SNAKE.spec.version + "-low"})

    def outcome(self, state):
        outcome = super().outcome(state)
        if outcome is None:
            return None
        scores = tuple(-score - (0.5 if seat == 1 else 0) for seat, score in enumerate(outcome.scores))
        ranked = type(outcome).from_scores(scores, outcome.reason)
        return type(outcome)(ranked.ranks, outcome.scores, outcome.reason)


def play_out(match_id: int, rng: random.Random) -> None:
    game = RAT_SNAKE
    for _ in range(500):
        match = Match.objects.get(pk=match_id)
        if match.is_finished:
            return
        snapshot = selectors.match_snapshot(match)
        seat = min(game.decision(snapshot.state).seats)
        action = rng.choice(game.legal_actions(snapshot.state, seat))
        user = match.seats.get(index=seat).user
        match_submit_action(match_id=match_id, user=user, action=action, expected_seq=snapshot.seq, seat=seat)
    raise AssertionError("the match did not end")


@pytest.mark.django_db
def test_apply_corrects_the_tournament_table_and_lists_the_standings_that_moved(
    tmp_path, capsys, monkeypatch
):
    users = get_user_model().objects
    organiser = users.create_user("organiser")
    operator = users.create_user("operator", is_staff=True)
    tournaments.tournament_create(
        organiser=organiser,
        name="Fix cup",
        slug="fix-cup",
        game_key="rat-snake",
        format="round_robin",
        options={"passes": 1},
        seeding="manual",
    )
    tournaments.tournament_open(slug="fix-cup", user=organiser)
    for name in ("ann", "ben"):
        tournaments.tournament_register(slug="fix-cup", user=users.create_user(name))
    tournaments.tournament_start(slug="fix-cup", user=organiser)
    tournament = Tournament.objects.get(slug="fix-cup")
    links = list(TournamentMatch.objects.filter(tournament=tournament))
    assert len(links) == 1
    play_out(links[0].match_id, random.Random(3))
    tournaments.tournament_record_match(match_id=links[0].match_id)
    before = {row.player: row.rank for row in tournament.standings.all()}

    monkeypatch.setitem(_loaded, "rat-snake", LowestScoreRatSnake())
    live_forget()
    report_path = tmp_path / "report.json"
    call_command("reverify", "--game", "rat-snake", "--output", str(report_path), "--json")
    report = json.loads(capsys.readouterr().out)
    assert report["counts"] == {"same": 0, "changed": 1, "broken": 0}
    with pytest.raises(CommandError, match="--by"):
        call_command("reverify", "--apply", str(report_path))
    call_command("reverify", "--apply", str(report_path), "--by", "operator", "--json")
    applied = json.loads(capsys.readouterr().out)
    assert [row["match"] for row in applied["corrected"]] == [links[0].match_id]
    assert applied["left_for_organisers"] == []
    tournament.refresh_from_db()
    after = {row.player: row.rank for row in tournament.standings.all()}
    moved = {row["player"]: (row["before"], row["after"]) for row in applied["standings_moved"]}
    assert moved and set(moved) <= set(after)
    assert {player for player in after if before.get(player) != after[player]} <= set(moved)
    corrected = tournament.events.order_by("-seq").first()
    assert corrected.kind == "result_corrected" and corrected.actor_id == operator.pk
    assert corrected.payload["ranks"] == Match.objects.get(pk=links[0].match_id).outcome["ranks"]
    assert tournament_selectors.tournament_projection_stored(
        tournament
    ) == tournament_selectors.tournament_projection(tournament)


@pytest.mark.django_db
def test_the_command_refuses_what_it_cannot_do_and_a_report_made_before_another_fix(
    tmp_path, capsys, monkeypatch
):
    with pytest.raises(CommandError, match="no game"):
        call_command("reverify", "--game", "no-such-game")
    with pytest.raises(CommandError, match="--game"):
        call_command("reverify")
    with pytest.raises(CommandError, match="cannot read"):
        call_command("reverify", "--apply", str(tmp_path / "missing.json"))
    report_path = tmp_path / "report.json"
    call_command("reverify", "--game", "rat-snake", "--output", str(report_path))
    assert "0 same, 0 changed, 0 no longer replay" in capsys.readouterr().out
    monkeypatch.setitem(_loaded, "rat-snake", LowestScoreRatSnake())
    with pytest.raises(CommandError, match="engine changed"):
        call_command("reverify", "--apply", str(report_path))
    report_path.write_text(json.dumps({"format": "something else"}))
    with pytest.raises(CommandError, match="not a reverify report"):
        call_command("reverify", "--apply", str(report_path))
