"""Check every finished match's chance against its revealed seed, as any player could."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from matches.models import Match
from matches.selectors import match_verify


class Command(BaseCommand):
    help = (
        "For every finished match: the seed matches its commitment, every chance event is the draw the seed "
        "gives at its position, and the log replays to the stored outcome "
        "(what /api/matches/<id>/verify/ says)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--game", help="Only matches of this game.")
        parser.add_argument("--match", type=int, help="Only this match.")

    def handle(self, *args, game: str | None = None, match: int | None = None, **_):
        matches = Match.objects.filter(status=Match.Status.FINISHED).order_by("pk")
        if game:
            matches = matches.filter(game=game)
        if match is not None:
            matches = matches.filter(pk=match)
        failures = []
        total = matches.count()
        for current in tqdm(matches.iterator(), total=total, desc="Verifying matches", unit="match"):
            verification = match_verify(current)
            if not verification.verified:
                failures.append(f"match {current.pk}: " + "; ".join(verification.problems))
        for line in failures:
            self.stderr.write(line)
        if failures:
            raise CommandError(f"{len(failures)} of {total} finished match(es) fail verification")
        self.stdout.write(self.style.SUCCESS(f"All {total} finished match(es) verify against their seeds."))
