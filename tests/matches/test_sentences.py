"""The store's own events in sentences (matches/sentences.py): entropy, a void, a correction; and a
describer's bug never breaks a listing."""

from __future__ import annotations

import pytest

from engines.registry import get_game
from matches import sentences
from matches.sentences import Narrator, distinct_names, store_sentence

NAMES = ("alice", "bob")
COMMITMENT = "0f" * 32


@pytest.mark.parametrize(
    ("kind", "seat", "payload", "viewer", "expected"),
    [
        (
            "entropy",
            0,
            {"step": "commit", "commitment": COMMITMENT},
            1,
            "alice committed to their part of the dice",
        ),
        (
            "entropy",
            0,
            {"step": "commit", "commitment": COMMITMENT},
            0,
            "you committed to your part of the dice",
        ),
        ("entropy", 1, {"step": "reveal", "value": COMMITMENT}, None, "bob revealed their part of the dice"),
        (
            "entropy",
            1,
            {"step": "lapse", "missed": "reveal", "value": COMMITMENT},
            None,
            "bob missed the deadline to reveal their part of the dice: a fixed part stands in",
        ),
        (
            "void",
            None,
            {"reason": "a bug in the engine"},
            None,
            "the match was called off: a bug in the engine",
        ),
        (
            "correction",
            None,
            {"previous_outcome": None, "outcome": None, "engine_version": "1.2.0", "reason": "rule fixed"},
            0,
            "the outcome was corrected under engine 1.2.0: rule fixed",
        ),
    ],
)
def test_the_stores_events_read_as_quoted(kind, seat, payload, viewer, expected):
    sentence = store_sentence(kind, seat, payload, viewer=viewer, seat_names=NAMES)
    assert sentence == expected
    assert "0f0f" not in sentence  # the hex stays in the payload


def test_a_describers_bug_gives_the_plain_sentence_not_an_error(monkeypatch):
    game = get_game("rat-snake")
    logged = []

    def broken(*args, **kwargs):
        raise KeyError("prediction")

    monkeypatch.setattr(game, "describe_event", broken)
    monkeypatch.setattr(sentences.logger, "exception", lambda *args: logged.append(args))
    narrator = Narrator(game, NAMES)
    assert narrator.sentence("action", 1, {"type": "no_bet"}, viewer=0) == "bob: no bet"
    assert logged and "could not describe" in logged[0][0]  # the bug is reported, not swallowed


def test_two_seats_of_one_bot_are_told_apart():
    names = distinct_names(["alice", "bot:random", "bot:random"])
    assert names == ("alice", "bot:random (seat 1)", "bot:random (seat 2)")
    narrator = Narrator(get_game("rat-snake"), names)
    assert (
        narrator.sentence("action", 2, {"type": "no_bet"}, viewer=0) == "bot:random (seat 2) made no side bet"
    )
