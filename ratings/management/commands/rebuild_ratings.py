"""Recompute every ladder rating from the finished matches and prove it equals the live one."""

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from core.checks import read_model_checked
from ratings.models import Ladder
from ratings.rate import ladder_ratings_apply
from ratings.selectors import RebuildReport, ratings_rebuild
from ratings.services import ladder_get


class Command(BaseCommand):
    help = "Rebuild all ratings from finished matches in the order they were rated; fail on any difference."

    def add_arguments(self, parser):
        parser.add_argument("--ladder", help="Only this ladder (slug).")
        parser.add_argument(
            "--rate-missing",
            action="store_true",
            help="Rate finished ladder matches whose rating run never came, then check again.",
        )

    def handle(self, *args, ladder=None, rate_missing=False, **_):
        ladders = [ladder_get(slug=ladder)] if ladder else list(Ladder.objects.order_by("pk"))
        report = RebuildReport()
        for current in tqdm(ladders, desc="Rebuilding ratings", unit="ladder"):
            part = ratings_rebuild(ladder=current)
            if rate_missing and part.unrated_matches:
                rated = ladder_ratings_apply(ladder_id=current.pk)  # in finish order, as the runs do
                self.stdout.write(f"{current.slug}: rated {rated} match(es) that had been missed.")
                part = ratings_rebuild(ladder=current)
            report.ladders += part.ladders
            report.matches_rated += part.matches_rated
            report.unrated_matches += part.unrated_matches
            report.disagreements += part.disagreements
        for line in report.disagreements:
            self.stderr.write(line)
        if report.unrated_matches:
            self.stderr.write(
                f"finished but never rated: matches {report.unrated_matches} (use --rate-missing)"
            )
        read_model_checked.send(
            sender=self.__class__,
            check="rebuild_ratings",
            ok=report.ok,
            problems=list(report.disagreements),
            summary=f"{report.ladders} ladder(s), {report.matches_rated} rated match(es), "
            f"{len(report.disagreements)} disagreement(s), {len(report.unrated_matches)} never rated",
        )
        if not report.ok:
            raise CommandError("the live ratings differ from a rebuild")
        self.stdout.write(
            self.style.SUCCESS(
                f"{report.ladders} ladder(s), {report.matches_rated} rated match(es): "
                f"live ratings equal the rebuild."
            )
        )
