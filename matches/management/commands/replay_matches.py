"""Replay every match from its log and report any whose replay disagrees with what is stored."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from core.checks import read_model_checked
from engines.registry import get_game
from engines.replay import replay
from matches.models import Match


class Command(BaseCommand):
    help = (
        "Replay every match's event log through its engine and compare status and outcome with the "
        "stored ones."
    )

    def add_arguments(self, parser):
        parser.add_argument("--game", help="Only matches of this game.")

    def handle(self, *args, game: str | None = None, **_):
        matches = Match.objects.order_by("pk")
        if game:
            matches = matches.filter(game=game)
        disagreements = []
        for match in tqdm(matches.iterator(), total=matches.count(), desc="Replaying matches", unit="match"):
            engine = get_game(match.game)
            result = replay(
                engine,
                seats=match.seats.count(),
                options=match.options,
                # Entropy (and void) events are the store's, not the rules': the engine never sees them.
                events=(row.to_engine() for row in match.events.order_by("seq") if row.is_engine_event),
            )
            if not result.ok:
                disagreements.append(
                    f"match {match.pk}: event {result.applied + 1} fails ({result.failure.code})"
                )
                continue
            outcome = engine.outcome(result.state)
            replayed = outcome.to_json() if outcome else None
            if replayed != match.outcome:
                disagreements.append(
                    f"match {match.pk}: stored outcome {match.outcome} but replay gives {replayed}"
                )
            if (outcome is not None) != match.is_finished:
                disagreements.append(
                    f"match {match.pk}: stored status {match.status} disagrees with the replay"
                )
        for line in disagreements:
            self.stderr.write(line)
        read_model_checked.send(
            sender=self.__class__,
            check="replay_matches",
            ok=not disagreements,
            problems=disagreements,
            summary=f"{matches.count()} match(es) replayed, {len(disagreements)} disagreement(s)",
        )
        if disagreements:
            raise CommandError(f"{len(disagreements)} disagreement(s) between logs and stored results")
        self.stdout.write(
            self.style.SUCCESS(f"All {matches.count()} match(es) replay to their stored results.")
        )
