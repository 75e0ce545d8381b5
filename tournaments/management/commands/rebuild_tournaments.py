"""Rebuild every tournament's projections from its log and prove they equal the live ones; check
each saved state snapshot against the log too."""

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from core.checks import read_model_checked
from tournaments.models import Tournament
from tournaments.selectors import (
    tournament_log,
    tournament_projection,
    tournament_projection_stored,
    tournament_snapshot_problems,
    tournament_unrecorded_matches,
)
from tournaments.services import tournament_record_match


class Command(BaseCommand):
    help = (
        "Replay each tournament's event log and compare entries, tables, matches "
        ""
        "and standings with the stored ones, "
        "and each saved state snapshot with the state the log gives at its event."
    )

    def add_arguments(self, parser):
        parser.add_argument("--tournament", help="Only this tournament (slug).")
        parser.add_argument(
            "--record-missing",
            action="store_true",
            help="Record finished Snakepit matches whose result never reached the log, then compare.",
        )

    def handle(self, *args, tournament=None, record_missing=False, **_):
        tournaments = Tournament.objects.order_by("pk")
        if tournament:
            tournaments = tournaments.filter(slug=tournament)
        differences = []
        for current in tqdm(
            tournaments.iterator(),
            total=tournaments.count(),
            desc="Rebuilding tournaments",
            unit="tournament",
        ):
            missing = tournament_unrecorded_matches(current)
            if missing and record_missing:
                for match_id in missing:
                    tournament_record_match(match_id=match_id)
                current.refresh_from_db()
                missing = tournament_unrecorded_matches(current)
            if missing:
                differences.append(
                    f"{current.slug}: finished matches {missing} are not in the log (use --record-missing)"
                )
            events = tournament_log(current)
            rebuilt, stored = tournament_projection(current, events), tournament_projection_stored(current)
            for part in ("entries", "tables", "matches", "standings"):
                if rebuilt[part] != stored[part]:
                    differences.append(f"{current.slug}: {part} differ from a rebuild from the log")
            differences += [
                f"{current.slug}: {problem}" for problem in tournament_snapshot_problems(current, events)
            ]
        for line in differences:
            self.stderr.write(line)
        read_model_checked.send(
            sender=self.__class__,
            check="rebuild_tournaments",
            ok=not differences,
            problems=differences,
            summary=f"{tournaments.count()} tournament(s) rebuilt, {len(differences)} difference(s)",
        )
        if differences:
            raise CommandError(f"{len(differences)} projection(s) differ from their logs")
        self.stdout.write(
            self.style.SUCCESS(f"All {tournaments.count()} tournament(s): projections equal their logs.")
        )
