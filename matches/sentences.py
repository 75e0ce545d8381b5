"""Every event of a match log as one sentence, from a viewer's side: the engine tells its own events
(`Game.describe_event`, docs/engines.md "The log in sentences"), and this module tells the store's
(a seat's entropy commit, reveal or lapse; a match called off; an outcome corrected), which no engine
ever sees. The listings (`matches.selectors.match_event_listing`, the API, the stream) and the pages
read the sentence from here, so each event reads the same wherever it is shown.

A sentence is made from the payload as the viewer may read it (None when withheld), never from the
stored one, so it can say no more than the payload beside it."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model

from engines.describe import own, plain_sentence, plain_value, seat_name
from engines.protocol import EngineState, Event, Game
from engines.registry import get_game
from matches.models import ENGINE_KINDS, Match, MatchEvent, MatchSeat

logger = logging.getLogger(__name__)

PART = "part of the dice"  # docs/fairness.md: each seat's entropy, mixed into every draw


def store_sentence(
    kind: str, seat: int | None, payload: Any, *, viewer: int | None, seat_names: Sequence[str]
) -> str:
    """The store's own events in words (their payloads are public: commitments, revealed parts,
    reasons). Hex is never spelt out: the payload beside the sentence keeps it."""
    who = seat_name(seat, viewer=viewer, seat_names=seat_names)
    fields = payload if isinstance(payload, dict) else {}
    if kind == MatchEvent.Kind.ENTROPY:
        step = fields.get("step")
        if step == "commit":
            return f"{who} committed to {own(who)} {PART}"
        if step == "reveal":
            return f"{who} revealed {own(who)} {PART}"
        if step == "lapse":
            missed = "commit" if fields.get("missed") == "commit" else "reveal"
            return f"{who} missed the deadline to {missed} {own(who)} {PART}: a fixed part stands in"
    if kind == MatchEvent.Kind.VOID:
        reason = plain_value(fields.get("reason", ""))
        return "the match was called off" + (f": {reason}" if reason else "")
    if kind == MatchEvent.Kind.CORRECTION:
        version = plain_value(fields.get("engine_version", ""))
        reason = plain_value(fields.get("reason", ""))
        return f"the outcome was corrected under engine {version}" + (f": {reason}" if reason else "")
    return plain_sentence(Event(kind, payload, seat), viewer=viewer, seat_names=seat_names)


@dataclass(frozen=True)
class Narrator:
    """What telling one match's events needs once: its game and its seats' names."""

    game: Game
    seat_names: tuple[str, ...]

    def sentence(
        self,
        kind: str,
        seat: int | None,
        payload: Any,
        *,
        viewer: int | None,
        state_before: EngineState | None = None,
    ) -> str:
        """The event as `viewer` reads it; `payload` is what they may read (None: withheld)."""
        if kind not in ENGINE_KINDS:
            return store_sentence(kind, seat, payload, viewer=viewer, seat_names=self.seat_names)
        event = Event(kind, payload if isinstance(payload, dict) or payload is None else None, seat)
        try:
            return self.game.describe_event(
                event, viewer=viewer, seat_names=self.seat_names, state_before=state_before
            )
        except Exception:  # noqa: BLE001  a describer's bug (or an old payload) must not break a listing
            logger.exception("%s could not describe a %s event", self.game.spec.key, kind)
            return plain_sentence(event, viewer=viewer, seat_names=self.seat_names)


def match_narrator(match: Match) -> Narrator:
    """The match's narrator: one query for its seats' names, read as plain values (building the
    seat and user models cost more than the query itself)."""
    username = f"user__{get_user_model().USERNAME_FIELD}"
    seats = match.seats.order_by("index").values_list("user_id", username, "bot")
    names = [MatchSeat.label_of(name if user_id else None, bot) for user_id, name, bot in seats]
    return Narrator(get_game(match.game), distinct_names(names))


def distinct_names(names: list[str]) -> tuple[str, ...]:
    """Seat names a sentence can tell apart: two seats of one bot (or one person) get their seat
    numbers ("bot:random (seat 1)")."""
    return tuple(
        f"{name} (seat {index})" if names.count(name) > 1 else name for index, name in enumerate(names)
    )
