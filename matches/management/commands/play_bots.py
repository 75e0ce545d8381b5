"""Play bot-vs-bot matches through the event store, with a progress bar, and print the results."""

from __future__ import annotations

import json
import time
from collections import defaultdict

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from core.errors import ApplicationError
from engines.registry import bot_names, game_keys, get_game
from matches.models import Match
from matches.services import SeatSpec, match_create


class Command(BaseCommand):
    help = "Play N matches between built-in bots through the event store and print a results table."

    def add_arguments(self, parser):
        parser.add_argument("game", choices=game_keys())
        parser.add_argument("--matches", type=int, default=10)
        parser.add_argument(
            "--bots",
            nargs="+",
            help="Bots in seat order, repeated to fill the seats; seats rotate between matches so no bot "
            "always goes first. Default: every bot of the game, its default bot first.",
        )
        parser.add_argument("--seats", type=int, help="Seats per match (default: the game's smallest table).")
        parser.add_argument(
            "--options", default="{}", help="Rule options as JSON, e.g. '{\"house\": false}'."
        )

    def handle(
        self, *args, game: str, matches: int, bots: list[str] | None, seats: int | None, options: str, **_
    ):
        try:
            parsed_options = json.loads(options)
        except json.JSONDecodeError as error:
            raise CommandError(f"--options is not JSON: {error}") from None
        if matches < 1:
            raise CommandError("--matches must be at least 1")
        spec = get_game(game).spec
        bots = bots or bot_names(game)
        seats = seats or max(spec.min_players, len(bots))
        if not spec.min_players <= seats <= spec.max_players:
            raise CommandError(
                f"{spec.name} takes {spec.min_players} to {spec.max_players} players, not {seats}"
            )
        bots = [bots[seat % len(bots)] for seat in range(seats)]
        totals = defaultdict(lambda: {"matches": 0, "wins": 0, "rank_sum": 0, "score_sum": 0.0})
        events = 0
        started = time.perf_counter()
        for number in tqdm(range(matches), desc=f"{spec.name} bot matches", unit="match"):
            seating = bots[number % len(bots) :] + bots[: number % len(bots)]
            try:
                match = match_create(
                    game_key=game,
                    seats=[SeatSpec(bot=bot) for bot in seating],
                    options=parsed_options,
                    bots_play="now",
                )
            except ApplicationError as error:
                raise CommandError(f"{error.code}: {error.detail}") from None
            match = Match.objects.get(pk=match.pk)
            events += match.events.count()
            for seat, bot in enumerate(seating):
                row = totals[bot]
                row["matches"] += 1
                row["rank_sum"] += match.outcome["ranks"][seat]
                row["score_sum"] += match.outcome["scores"][seat]
                row["wins"] += match.outcome["ranks"][seat] == 1
        elapsed = time.perf_counter() - started
        self.stdout.write(f"\n{matches} matches, {events} events in {elapsed:.1f} s\n")
        self.stdout.write(f"{'bot':<16}{'seats':>7}{'wins':>7}{'avg rank':>10}{'avg score':>11}")
        for bot, row in sorted(totals.items(), key=lambda item: item[1]["rank_sum"] / item[1]["matches"]):
            self.stdout.write(
                f"{bot:<16}{row['matches']:>7}{row['wins']:>7}"
                f"{row['rank_sum'] / row['matches']:>10.2f}{row['score_sum'] / row['matches']:>11.1f}"
            )
