"""Recompute every ladder rating from the finished matches and prove it equals the live one."""

from django.core.management.base import BaseCommand, CommandError

from ratings.selectors import ratings_rebuild
from ratings.services import ladder_get, ladder_match_rate


class Command(BaseCommand):
    help = "Rebuild all ratings from finished matches in the order they were rated; fail on any difference."

    def add_arguments(self, parser):
        parser.add_argument("--ladder", help="Only this ladder (slug).")
        parser.add_argument(
            "--rate-missing", action="store_true",
            help="Rate finished ladder matches whose rating task never ran, then check again.",
        )

    def handle(self, *args, ladder=None, rate_missing=False, **_):
        only = ladder_get(slug=ladder) if ladder else None
        report = ratings_rebuild(ladder=only)
        if rate_missing and report.unrated_matches:
            for match_id in report.unrated_matches:
                ladder_match_rate(match_id=match_id)
            self.stdout.write(f"Rated {len(report.unrated_matches)} match(es) that had been missed.")
            report = ratings_rebuild(ladder=only)
        for line in report.disagreements:
            self.stderr.write(line)
        if report.unrated_matches:
            self.stderr.write(f"finished but never rated: matches {report.unrated_matches} (use --rate-missing)")
        if not report.ok:
            raise CommandError("the live ratings differ from a rebuild")
        self.stdout.write(
            self.style.SUCCESS(
                f"{report.ladders} ladder(s), {report.matches_rated} rated match(es): live ratings equal the rebuild."
            )
        )
