"""Writes for uploaded bots: a new version, the matches bots play, and a version's validation.

A bot's seat is held by the bot's own account, and its answers enter the log exactly as a person's
do (`matches.services.match_submit_action`); a fault is a `match_forfeit` whose reason says why. In a
game played with decks (Rag'n'Guns) a version carries one of its owner's saved deck versions, frozen,
and each of its seats brings it, as a person's ladder or tournament entry brings theirs.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from bots.archives import ENTRY, ArchiveLimits, archive_files
from bots.http import HttpBot, url_check
from bots.models import Bot, BotSeat, BotVersion
from bots.protocol import BotFault, answer_parse, decision_message
from bots.sandbox import SandboxedBot, SandboxLimits, SandboxUnavailable, sandbox_check
from core.errors import ApplicationError, Conflict, Forbidden, Rejected
from decks.selectors import deck_version_brought, deck_version_for_entry
from decks.services import deck_version_freeze
from engines.errors import UnknownGame
from engines.registry import get_game
from matches.models import Match, MatchEvent
from matches.selectors import match_entropy_status, match_get, match_snapshot
from matches.services import (
    SeatSpec,
    match_create,
    match_entropy_step_by_server,
    match_forfeit,
    match_submit_action,
)

_LOG_KEPT = 64 * 1024


def _setting(name: str, default):
    return getattr(settings, name, default)


def bot_version_upload(
    *,
    owner,
    name: str,
    game_key: str,
    source: str = "",
    archive: bytes = b"",
    url: str = "",
    deck: str = "",
    deck_number: int | None = None,
) -> BotVersion:
    """Store `source` (one Python file), `archive` (a zip with main.py: bots.archives) or `url` (an
    HTTP bot) as the next version of `owner`'s bot `name`, creating the bot on its first upload; the
    caller queues its validation (`bots.tasks.bot_version_validate`). Refused: a file too large, not
    Python, more versions today than allowed, or a server that cannot fence bots in.

    A game played with decks takes `deck`, the share id of one of `owner`'s saved decks (version
    `deck_number`, else its current one), which must be legal in the format the validation match
    plays, under the ban list in effect: the decks app's own entry check (`deck/not_found`,
    `deck/not_yours`, `deck/illegal` with its violations). The version is frozen with the upload."""
    if bool(source) + bool(archive) + bool(url) != 1:
        raise Rejected(
            "a bot version is exactly one of a source file, a zip archive or a URL", code="bot/source_or_url"
        )
    if archive:
        # The archive's main.py is the version's source to read; the archive is what runs.
        files = archive_files(archive, limits=ArchiveLimits.from_settings())
        source = files[ENTRY].decode("utf-8", "replace")
    if url:
        try:
            url_check(url)
        except ValueError as error:
            raise Rejected(str(error), code="bot/bad_url") from None
    max_bytes = _setting("SNAKEPIT_BOTS_MAX_SOURCE_BYTES", 64 * 1024)
    if not archive and len(source.encode()) > max_bytes:
        raise Rejected(f"a bot file is at most {max_bytes} bytes", code="bot/too_large")
    if not archive and "\x00" in source:
        raise Rejected("a bot file is Python source text", code="bot/not_python")
    try:
        if not archive:  # an archive's modules were each compiled as it was read
            compile(source, "bot.py", "exec", dont_inherit=True)  # compiled, never run, in this process
    except (SyntaxError, ValueError) as error:
        raise Rejected(f"the bot file is not valid Python: {error}", code="bot/not_python") from None
    try:
        game = get_game(game_key)
    except UnknownGame as error:
        raise Rejected(str(error), code="bot/unknown_game") from None
    if game.spec.needs_deck and not deck:
        raise Rejected(
            f"a {game.spec.name} bot brings one of your saved decks (`deck`: its share id)",
            code="bot/deck_required",
        )
    if deck and not game.spec.needs_deck:
        raise Rejected(f"{game.spec.name} is played without decks", code="bot/deck_not_needed")
    try:
        if source:
            sandbox_check()
    except SandboxUnavailable as error:
        raise ApplicationError(str(error), code="bot/sandbox_unavailable", status=503) from None
    deck_version = None
    if deck:
        # Judged in the format the validation match plays (the game's default options), as a person's
        # ladder entry is judged in its ladder's.
        deck_version = deck_version_for_entry(
            share_id=deck,
            version=deck_number,
            user=owner,
            format_key=game.spec.resolve_options(None).get("format"),
        )
    with transaction.atomic():
        bot = Bot.objects.select_for_update().filter(owner=owner, name=name).first()
        if bot is None:
            account = get_user_model().objects.create_user(
                username=f"bot-{secrets.token_hex(6)}", password=None
            )
            bot = Bot.objects.create(
                owner=owner, account=account, name=name, game=game.spec.key, secret=secrets.token_hex(32)
            )
        elif bot.game != game.spec.key:
            raise Rejected(f"bot {name!r} plays {bot.game}, not {game.spec.key}", code="bot/wrong_game")
        per_day = _setting("SNAKEPIT_BOTS_VERSIONS_PER_DAY", 20)
        today = BotVersion.objects.filter(
            bot__owner=owner, created_at__gte=timezone.now() - timedelta(days=1)
        )
        if not owner.is_staff and today.count() >= per_day:
            raise Rejected(f"at most {per_day} bot versions a day", code="bot/too_many_versions", status=429)
        number = (bot.versions.aggregate(last=Max("number"))["last"] or 0) + 1
        if deck_version is not None:
            deck_version = deck_version_freeze(deck_version=deck_version, purpose=f"bot {bot.pk} v{number}")
        version = BotVersion.objects.create(
            bot=bot,
            number=number,
            source=source,
            url=url,
            archive=archive,
            source_sha256=hashlib.sha256(archive or source.encode()).hexdigest() if source else "",
            deck_version=deck_version,
        )
    return version


def _brought(version: BotVersion) -> dict | None:
    """The deck each seat of `version` brings, as a person's entry brings its frozen version."""
    return deck_version_brought(version.deck_version) if version.deck_version_id else None


def bot_match_create(
    *, versions: list[BotVersion], options: dict | None = None, validation: bool = False
) -> Match:
    """A match between uploaded bot versions of one game, one seat each in the order given; chance
    plays up to the first bots' decision. `bot_match_play` plays it. Only passed versions play, but
    for a version's own validation match."""
    for version in versions:
        if version.status != BotVersion.Status.PASSED and not validation:
            raise Rejected(f"{version} has not passed its validation", code="bot/not_validated")
    games = {version.bot.game for version in versions}
    if len(games) != 1:
        raise Rejected("the bots of one match play the same game", code="bot/mixed_games")
    with transaction.atomic():
        match = match_create(
            game_key=games.pop(),
            options=options,
            entropy="server",
            bots_play="now",
            seats=[SeatSpec(user=version.bot.account, deck=_brought(version)) for version in versions],
        )
        BotSeat.objects.bulk_create(
            BotSeat(match=match, seat=index, version=version) for index, version in enumerate(versions)
        )
    return match


def ladder_seats_bind(*, match: Match, versions: dict[int, int]) -> list[BotSeat]:
    """A ladder seated uploaded bots (`versions`: seat -> version id) in `match`, each through its
    bot's account: record which version holds each seat, so `bot_match_play` can play them. Only
    passed versions enter ladders, and a version's status never changes once passed. A version with
    a deck must have brought it: the ladder seats an entry with the entry's deck, which for a bot's
    entry is its version's."""
    rows = {
        row.pk: row
        for row in BotVersion.objects.select_related("bot", "deck_version").filter(pk__in=versions.values())
    }
    seats = dict(match.seats.values_list("index", "user_id"))
    brought = {
        event.seat: {key: value for key, value in event.payload.items() if key != "type"}
        for event in MatchEvent.objects.filter(
            match=match, kind=MatchEvent.Kind.ACTION, seat__in=list(versions), payload__type="bring_deck"
        )
    }
    for seat, version_id in versions.items():
        version = rows.get(version_id)
        if version is None or version.status != BotVersion.Status.PASSED:
            raise Rejected(
                f"bot version {version_id} has not passed its validation", code="bot/not_validated"
            )
        if seats.get(seat) != version.bot.account_id:
            raise Rejected(f"seat {seat} is not held by {version.bot}", code="bot/wrong_seat")
        if brought.get(seat) != _brought(version):
            raise Rejected(f"seat {seat} did not bring {version}'s deck", code="bot/wrong_deck")
    return BotSeat.objects.bulk_create(
        BotSeat(match=match, seat=seat, version=rows[version_id])
        for seat, version_id in sorted(versions.items())
    )


# How many times a run looks again for a bot made due by a move during its last look.
_REPLAYS_AFTER_LATE_MOVES = 3


def bot_match_play(*, match_id: int) -> Match:
    """Play the uploaded bots' seats of a match to its end (or until no bot must decide): each bot is
    started once, asked at each of its decisions, and its answer appended like a person's action.
    A crash, a timeout, garbage, an illegal action or a flood is a forfeit with the reason in the
    event; the bot's process is killed and the match goes on without it where the game allows."""
    lock = f"snakepit/bots/playing/{match_id}"
    # One player per match: a second task (a redelivery, the stalled sweep, a person's move) leaves a
    # match being played alone rather than starting every bot a second time. The lock outlives a
    # dead worker by its timeout only.
    for _ in range(_REPLAYS_AFTER_LATE_MOVES + 1):
        if not cache.add(
            lock, secrets.token_hex(8), timeout=_setting("SNAKEPIT_BOTS_MATCH_LOCK_SECONDS", 3600)
        ):
            return match_get(match_id=match_id)
        try:
            match = _play(match_id)
        finally:
            cache.delete(lock)
        # A person who moved between this run's last look and the lock's release had their task
        # turned away by the lock: look once more now that it is free.
        if not _bots_due(match):
            break
    return match


def _bots_due(match: Match) -> bool:
    """Whether one of the match's uploaded bots that has not forfeited must act now: decide, or send
    the entropy step an open window awaits from its seat."""
    if match.is_over:
        return False
    seats = set(BotSeat.objects.filter(match=match, forfeit_reason="").values_list("seat", flat=True))
    if not seats:
        return False
    entropy = match_entropy_status(match)
    if entropy is not None and entropy["phase"] != "done":
        return bool(seats.intersection(entropy["awaited"]))
    return bool(seats.intersection(get_game(match.game).decision(match_snapshot(match).state).seats))


def _entropy_steps(match: Match, seats: dict[int, BotSeat]) -> None:
    """In a match taking entropy from its seats (a person plays the bots), send the steps the bots'
    seats owe: their commitments, then, once every seat has committed, their values (the last
    commitment may open the reveal window at once)."""
    if match.entropy != Match.Entropy.CONTRIBUTED:
        return
    for _ in range(2):
        sent = False
        for seat, row in sorted(seats.items()):
            try:
                step = match_entropy_step_by_server(
                    match_id=match.pk, user=row.version.bot.account, seat=seat
                )
            except Conflict:  # finished or voided meanwhile, or another writer moved first: asked again later
                return
            sent = sent or step is not None
        if not sent:
            return


def _play(match_id: int) -> Match:
    match = match_get(match_id=match_id)
    seats = {
        row.seat: row for row in BotSeat.objects.select_related("version__bot__account").filter(match=match)
    }
    game = get_game(match.game)
    move_ms = _setting("SNAKEPIT_BOTS_MOVE_MS", 1000)
    overage_ms = _setting("SNAKEPIT_BOTS_OVERAGE_MS", 10_000)
    limits = SandboxLimits.from_settings()
    runners: dict[int, SandboxedBot] = {}
    faults: dict[int, BotFault] = {}
    unstarted: dict[int, str] = {}
    try:
        _entropy_steps(match, seats)
        snapshot = match_snapshot(match)
        # Every bot starts at once, so their interpreters load side by side rather than one after the
        # other at each bot's first decision; a start that fails is that bot's fault when it is asked.
        # None starts while no bot is due (a person's turn): the sweep asks again after they move.
        due = not match.is_finished and any(seat in seats for seat in game.decision(snapshot.state).seats)
        for seat, row in seats.items() if due else ():
            runners[seat] = _runner(row.version, limits=limits, overage_ms=overage_ms)
            try:
                runners[seat].start()
            except (OSError, SandboxUnavailable) as error:
                unstarted[seat] = f"the bot could not be started: {error}"
        while True:
            decision = game.decision(snapshot.state)
            if decision.kind not in ("turn", "simultaneous", "response"):
                break
            acting = sorted(seat for seat in decision.seats if seat in seats and seat not in faults)
            if not acting:
                break
            seat = acting[0]
            row = seats[seat]
            try:
                runner = runners[seat]
                if seat in unstarted:
                    raise BotFault("sandbox", unstarted[seat])
                message = decision_message(
                    game=game,
                    state=snapshot.state,
                    seat=seat,
                    match_id=match.pk,
                    seq=snapshot.seq,
                    deadline_ms=move_ms,
                    remaining_overage_ms=runner.remaining_overage_ms,
                )
                raw, elapsed_ms = runner.ask(message.line(), deadline_ms=move_ms)
                action = answer_parse(raw)
                row.moves += 1
                row.move_ms_total += elapsed_ms
                try:
                    result = match_submit_action(
                        match_id=match.pk,
                        user=row.version.bot.account,
                        action=action,
                        expected_seq=snapshot.seq,
                        seat=seat,
                    )
                except Conflict as error:
                    if error.code in ("match/finished", "match/voided"):
                        break
                    snapshot = match_snapshot(match)  # someone else (a person's seat) moved first
                    continue
                except (Rejected, Forbidden) as error:
                    raise BotFault("illegal_action", f"{error.code}: {error.detail}") from None
            except BotFault as fault:
                faults[seat] = fault
                runners[seat].close() if seat in runners else None
                try:
                    result = match_forfeit(
                        match_id=match.pk, seat=seat, reason=f"bot/{fault.reason}: {fault.detail}"
                    )
                except Conflict:
                    break
            snapshot = result.snapshot
    finally:
        for runner in runners.values():
            runner.close()
        now = timezone.now()
        for seat, row in seats.items():
            fault = faults.get(seat)
            parts = [f"forfeit: {fault.reason}: {fault.detail}"] if fault else []
            if seat in runners and runners[seat].stderr_tail():
                parts.append("stderr (its tail):\n" + runners[seat].stderr_tail())
            if fault:  # a later run (after a person's move) keeps an earlier run's forfeit
                row.forfeit_reason = fault.reason
            if parts:
                row.log = "\n".join([row.log, *parts] if row.log else parts)[-_LOG_KEPT:]
            row.played_at = now
        BotSeat.objects.bulk_update(
            seats.values(), ["moves", "move_ms_total", "forfeit_reason", "log", "played_at"]
        )
    match.refresh_from_db()
    return match


def _runner(version: BotVersion, *, limits: SandboxLimits, overage_ms: int) -> SandboxedBot | HttpBot:
    if version.url:
        return HttpBot(url=version.url, secret=version.bot.secret, limits=limits, overage_ms=overage_ms)
    if version.archive:
        files = archive_files(bytes(version.archive), limits=ArchiveLimits.from_settings())
        return SandboxedBot(files=files, limits=limits, overage_ms=overage_ms)
    return SandboxedBot(source=version.source, limits=limits, overage_ms=overage_ms)


def bot_version_validate(*, version_id: int) -> BotVersion:
    """The version plays its game against itself (the game's least number of seats); a forfeit of any
    seat fails it, with the log saying why. A failed version never plays another match."""
    version = BotVersion.objects.select_related("bot", "validation_match", "deck_version").get(pk=version_id)
    if version.status != BotVersion.Status.VALIDATING:
        return version
    match = version.validation_match  # set when an earlier run was cut short: it is played on
    if match is None:
        game = get_game(version.bot.game)
        match = bot_match_create(versions=[version] * game.spec.min_players, validation=True)
        version.validation_match = match
        version.save(update_fields=["validation_match"])
    bot_match_play(match_id=match.pk)
    rows = list(BotSeat.objects.filter(match=match).order_by("seat"))
    failed = [row for row in rows if row.forfeit_reason]
    match.refresh_from_db()
    if not failed and not match.is_finished:
        version.log = "the validation match did not finish"
        version.status = BotVersion.Status.FAILED
    else:
        version.status = BotVersion.Status.FAILED if failed else BotVersion.Status.PASSED
        version.log = "\n\n".join(f"seat {row.seat}:\n{row.log}" for row in rows if row.log)[-_LOG_KEPT:]
    version.save(update_fields=["status", "log"])
    return version
