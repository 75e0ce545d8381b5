"""Re-verify history after an engine fix: replay every finished match of a game through the engine as
it is now, report what changed, and, once an operator applies the report, correct the changed matches
and recompute the ladders and tournaments they count in.

    manage.py reverify --game rat-snake --output report.json     # read: writes nothing
    manage.py reverify --apply report.json --by operator          # correct, then recompute

The per-match replay and the correction event are the match store's (`matches.selectors.match_reverify`,
`matches.services.match_correct`); this command lives here because applying a report reaches ladders
(`ratings.recompute`) and tournaments (`tournaments.services.tournament_correct`), which `matches` may
not import.
"""

from __future__ import annotations

import json
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from core.errors import ApplicationError
from engines.errors import UnknownGame
from engines.registry import get_game
from matches.models import Match
from matches.selectors import match_reverify
from matches.services import match_correct
from ratings.models import LadderMatch
from ratings.recompute import ladder_ratings_recompute
from tournaments.models import TournamentMatch
from tournaments.services import tournament_correct

REPORT_FORMAT = "snakepit-reverify/1"


def reverify_report(*, game_key: str, progress: bool = True) -> dict:
    """Every finished match of the game, replayed through the current engine: same, changed or broken."""
    engine = get_game(game_key)
    matches = Match.objects.filter(game=game_key, status=Match.Status.FINISHED).order_by("pk")
    results = [
        match_reverify(match).as_dict()
        for match in tqdm(
            matches.iterator(),
            total=matches.count(),
            desc=f"Re-verifying {game_key}",
            unit="match",
            disable=not progress,
        )
    ]
    counts = {
        verdict: sum(1 for row in results if row["verdict"] == verdict)
        for verdict in ("same", "changed", "broken")
    }
    return {
        "format": REPORT_FORMAT,
        "game": game_key,
        "engine_version": engine.spec.version,
        "counts": counts,
        "matches": results,
    }


def reverify_apply(*, report: dict, by) -> dict:
    """Append a correction to every changed match of the report, then recompute each ladder and
    tournament they count in; returns what was corrected and every rating and standing that moved.
    Matches that no longer replay are left for a person to judge (void them, or keep them)."""
    if report.get("format") != REPORT_FORMAT:
        raise CommandError(f"not a reverify report (format {report.get('format')!r})")
    if get_game(report["game"]).spec.version != report["engine_version"]:
        raise CommandError("the engine changed since the report was made: run the report again")
    corrected, ladders, tables = [], set(), []
    for row in report["matches"]:
        if row["verdict"] != "changed":
            continue
        event = match_correct(
            match_id=row["match"],
            previous_outcome=row["recorded_outcome"],
            outcome=row["replayed_outcome"],
            engine_version=report["engine_version"],
            reason=f"reverify: {row['engine_version']} -> {report['engine_version']}",
        )
        if event is None:
            continue
        corrected.append(
            {
                "match": row["match"],
                "seq": event.seq,
                "from": row["recorded_outcome"],
                "to": row["replayed_outcome"],
            }
        )
        ladder_id = (
            LadderMatch.objects.filter(match_id=row["match"])
            .values_list("round__ladder_id", flat=True)
            .first()
        )
        if ladder_id is not None:
            ladders.add(ladder_id)
        link = TournamentMatch.objects.filter(match_id=row["match"]).select_related("tournament").first()
        if link is not None:
            tables.append((link, row["replayed_outcome"]))
    ratings_moved = [
        moved for ladder_id in sorted(ladders) for moved in ladder_ratings_recompute(ladder_id=ladder_id)
    ]
    standings_moved, left_for_organisers = [], []
    for link, outcome in tables:
        tournament = link.tournament
        before = _standings(tournament)
        try:
            tournament_correct(
                slug=tournament.slug,
                user=by,
                match_key=link.match_key,
                ranks=outcome["ranks"],
                reason=f"match {link.match_id} corrected by reverify (engine {report['engine_version']})",
            )
        except ApplicationError as error:
            left_for_organisers.append(
                {"tournament": tournament.slug, "match": link.match_id, "why": error.detail}
            )
            continue
        tournament.refresh_from_db()
        after = _standings(tournament)
        for player in sorted(set(before) | set(after)):
            if before.get(player) != after.get(player):
                standings_moved.append(
                    {
                        "tournament": tournament.slug,
                        "player": player,
                        "before": before.get(player),
                        "after": after.get(player),
                    }
                )
    return {
        "corrected": corrected,
        "left_broken": [row["match"] for row in report["matches"] if row["verdict"] == "broken"],
        "ratings_moved": ratings_moved,
        "standings_moved": standings_moved,
        "left_for_organisers": left_for_organisers,
    }


def _standings(tournament) -> dict[str, dict]:
    """Each player's standings row (the tournament's projection): rank and the numbers behind it."""
    return {
        standing.player: {"rank": standing.rank, **standing.row} for standing in tournament.standings.all()
    }


class Command(BaseCommand):
    help = (
        "Replay every finished match of a game through the current engine and report which replay "
        "to the same "
        "outcome, which change, and which no longer replay; "
        "with --apply REPORT, correct the changed ones and "
        "recompute their ladders and tournaments."
    )

    def add_arguments(self, parser):
        parser.add_argument("--game", help="The game to re-verify (its key, e.g. rat-snake).")
        parser.add_argument(
            "--json", action="store_true", help="Print the report as JSON instead of a table."
        )
        parser.add_argument("--output", help="Also write the JSON report to this file (to --apply later).")
        parser.add_argument("--apply", metavar="REPORT", help="Apply a report written by --output.")
        parser.add_argument(
            "--by", help="With --apply: the staff username the tournament corrections are made as."
        )

    def handle(self, *args, game=None, json=False, output=None, apply=None, by=None, **_):
        if apply:
            self._apply(Path(apply), by, as_json=json)
            return
        if not game:
            raise CommandError("say which game: --game KEY (or --apply REPORT)")
        try:
            report = reverify_report(game_key=game)
        except UnknownGame as error:
            raise CommandError(str(error)) from None
        if output:
            Path(output).write_text(_dumps(report))
        if json:
            self.stdout.write(_dumps(report))
            return
        self.stdout.write(f"{'match':>8}  {'played with':<12} {'verdict':<8} detail")
        for row in report["matches"]:
            detail = row["failure"] or (
                ""
                if row["verdict"] == "same"
                else f"{row['recorded_outcome']['ranks']} -> {row['replayed_outcome']['ranks']}"
            )
            self.stdout.write(f"{row['match']:>8}  {row['engine_version']:<12} {row['verdict']:<8} {detail}")
        counts = report["counts"]
        self.stdout.write(
            f"{report['game']} through engine {report['engine_version']}: {counts['same']} same, "
            f"{counts['changed']} changed, {counts['broken']} no longer replay."
            + (f" Report written to {output}." if output else "")
        )

    def _apply(self, path: Path, by: str | None, *, as_json: bool) -> None:
        try:
            report = json.loads(path.read_text())
        except (OSError, ValueError) as error:
            raise CommandError(f"cannot read the report {path}: {error}") from None
        operator = None
        if by:
            operator = get_user_model().objects.filter(username=by, is_staff=True).first()
            if operator is None:
                raise CommandError(f"--by names no staff user {by!r}")
        needs_operator = any(
            TournamentMatch.objects.filter(match_id=row["match"]).exists()
            for row in report.get("matches", [])
            if row.get("verdict") == "changed"
        )
        if needs_operator and operator is None:
            raise CommandError(
                "changed matches count in tournaments: say which staff user corrects them (--by)"
            )
        result = reverify_apply(report=report, by=operator)
        if as_json:
            self.stdout.write(_dumps(result))
            return
        for row in result["corrected"]:
            self.stdout.write(
                f"match {row['match']}: corrected at event {row['seq']}: "
                f"{row['from']['ranks']} -> {row['to']['ranks']}"
            )
        for row in result["ratings_moved"]:
            self.stdout.write(
                f"ladder {row['ladder']}: {row['label']}: "
                f"ordinal {row['ordinal'][0]:.3f} -> {row['ordinal'][1]:.3f}"
            )
        for row in result["standings_moved"]:
            self.stdout.write(
                f"tournament {row['tournament']}: {row['player']}: {row['before']} -> {row['after']}"
            )
        for row in result["left_for_organisers"]:
            self.stderr.write(
                f"tournament {row['tournament']}, match {row['match']}: not corrected: {row['why']}"
            )
        if result["left_broken"]:
            self.stderr.write(
                f"no longer replay, left for a person to judge: matches {result['left_broken']}"
            )
        self.stdout.write(
            self.style.SUCCESS(
                f"{len(result['corrected'])} match(es) corrected; "
                f"{len(result['ratings_moved'])} rating(s) and "
                f"{len(result['standings_moved'])} standing(s) moved."
            )
        )


def _dumps(data: dict) -> str:
    return json.dumps(data, indent=2, default=str)
