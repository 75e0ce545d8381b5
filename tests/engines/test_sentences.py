"""Every sentence of the log checked against its event (issue #30), for every registered game (the
test-only Cup Dice included, which has no describer and gets the plain sentence).

Random matches are played through the service's engine loop; each event is told to every viewer
(each seat and a spectator) as the listings tell it (no state) and as the replay page does (the state
before it), from the payload that viewer may read while the match runs (`event_audience`). A
sentence is non-empty, spells out no long hex, names its actor ("you" to the actor, the seat's name
to the others), names every card or space the readable payload names by its catalogue name, and
says nothing of a payload withheld from its viewer."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from engines.protocol import Event, Game
from engines.registry import game_keys, get_game

NAMES = ("alice", "bob", "carol", "dave", "erin", "fay", "gus", "hal")
LONG_HEX = re.compile(r"[0-9a-fA-F]{17,}")


def strings_in(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for item in value.values():
            yield from strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)
    else:
        yield value


def named_in(key: str, payload: dict | None, kind: str) -> set[str]:
    """The catalogue names of the cards (or spaces and sides) a payload names, read from the
    catalogues here rather than from the describers under test."""
    if payload is None or kind != "action":
        return set()
    if key == "rattlesnake":
        from engines.rattlesnake.catalogue import CATALOGUE

        titles = {card.name: card.title for card in (*CATALOGUE.actions, *CATALOGUE.events)}
        return {titles[value] for value in strings_in(payload) if isinstance(value, str) and value in titles}
    if key == "ragnguns":
        from engines.ragnguns.catalogue import load_catalogue

        cards = load_catalogue()
        return {
            cards.by_id(value).name
            for value in strings_in(payload)
            if isinstance(value, str) and cards.by_id(value) is not None
        }
    if key == "the-greatest-snake":
        from engines.greatestsnake.catalogue import CARDS

        fields = ("card", "equipment", "rat", "target", "ammo", "mine", "theirs")
        return {CARDS[payload[name]].name for name in fields if isinstance(payload.get(name), int)}
    if key == "rattlebones":
        side = payload.get("new_side")
        if not isinstance(side, str) or side.startswith("arrow_to_"):
            return set()
        if side.startswith("points_"):
            return {f"{side[-1]} POINTS"}
        return {"9-PIP" if side == "9_pip" else side.replace("_", " ").upper()}  # as the rulebook prints
    return set()


def sentence_of(game: Game, event: Event, payload, *, viewer, seats: int, state=None) -> str:
    return game.describe_event(
        Event(event.kind, payload, event.seat), viewer=viewer, seat_names=NAMES[:seats], state_before=state
    )


def check(game: Game, event: Event, sentence: str, *, viewer, readable: bool, seats: int) -> None:
    where = f"{game.spec.key}: {event} to {viewer}: {sentence!r}"
    assert sentence.strip(), where
    assert not LONG_HEX.search(sentence), where
    if event.kind in ("action", "forfeit"):
        actor = "you" if viewer == event.seat else NAMES[event.seat]
        assert re.search(rf"\b{actor}\b", sentence, re.IGNORECASE), where
    if readable:
        for name in named_in(game.spec.key, event.payload, event.kind):
            assert name.lower() in sentence.lower(), f"{where} lacks {name!r}"
    else:
        hidden = named_in(game.spec.key, event.payload, event.kind)
        assert not any(re.search(rf"\b{re.escape(name)}\b", sentence) for name in hidden), where
        for value in strings_in(event.payload):
            if isinstance(value, str) and len(value) > 3 and value != event.payload.get("type"):
                assert value not in sentence, where


@pytest.mark.parametrize("key", game_keys())
def test_every_sentence_of_random_matches_checks_against_its_event(key):
    from engines.playout import playout

    game = get_game(key)
    told = withheld = 0
    for seats in sorted({game.spec.min_players, game.spec.max_players}):
        for seed in range(2):
            _, log = playout(game, seats=seats, seed=bytes([seed, seats]) * 16)
            state = game.new_state(seats=seats)
            for event in log:
                audience = game.event_audience(state, event)
                for viewer in (None, *range(seats)):
                    readable = audience is None or viewer in audience
                    payload = event.payload if readable else None
                    for before in (None, state):
                        sentence = sentence_of(game, event, payload, viewer=viewer, seats=seats, state=before)
                        check(game, event, sentence, viewer=viewer, readable=readable, seats=seats)
                        told += 1
                        withheld += not readable
                game.apply(state, event)
    assert told > 100
    # a game with secrets had some of its sentences told without their payload
    assert withheld > 0 or not game.spec.has_hidden_information


@pytest.mark.parametrize("key", game_keys())
def test_a_forfeit_reads_as_one_whatever_the_game(key):
    game = get_game(key)
    forfeit = Event.forfeit(1, "missed the deadline")
    assert (
        game.describe_event(forfeit, viewer=0, seat_names=NAMES[:2]) == "bob forfeited: missed the deadline"
    )
    assert (
        game.describe_event(forfeit, viewer=1, seat_names=NAMES[:2]) == "you forfeited: missed the deadline"
    )


def test_rattlebones_names_the_landing_space_the_pawn_and_the_side_from_the_state_before():
    game = get_game("rattlebones")
    state = game.new_state(seats=2)
    game.apply(state, Event.chance_outcome({"permutation": [1, 0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]}))
    # the first blank space, space 2, holds tile 1: THIEF
    assert state.board[2] == "thief"
    game.apply(state, Event.action(0, {"type": "roll", "dice": [0]}))
    assert game.describe_event(Event.chance_outcome({"dice": [2]}), viewer=0, seat_names=NAMES[:2]) == (
        "the die rolled a 2"
    )
    told = game.describe_event(
        Event.chance_outcome({"dice": [2]}), viewer=0, seat_names=NAMES[:2], state_before=state
    )
    assert told == "the first die shows 2"  # a d6's 2 is side index 1, a new die's "2"
    game.apply(state, Event.chance_outcome({"dice": [2]}))
    move = {"type": "use_die", "die": 0, "from": 0, "steps": 2, "replace_side": None, "new_side": None}
    assert move in game.legal_actions(state, 0)
    listing = game.describe_event(Event.action(0, move), viewer=1, seat_names=NAMES[:2])
    replayed = game.describe_event(Event.action(0, move), viewer=1, seat_names=NAMES[:2], state_before=state)
    assert listing == "alice used the first die and moved a pawn 2 spaces from STORE/START to space 2"
    assert (
        replayed == "alice used the first die and moved their first pawn 2 spaces from STORE/START to THIEF"
    )


QUOTED = [
    # Rat-Snake: the SIDE BETS card's words, the rat on the one and the snake on the six
    ("rat-snake", Event.chance_outcome({"dice": [1, 6]}), 0, "the dice show a rat and a snake"),
    (
        "rat-snake",
        Event.action(1, {"type": "side_bet", "prediction": "rats_out", "stake": 3}),
        0,
        "bob bet 3 coins that the thrower rats out",
    ),
    ("rat-snake", Event(kind="action", payload=None, seat=1), 0, "bob answered the side bets face down"),
    (
        "rat-snake",
        Event.action(0, {"type": "double_down", "call": "gain"}),
        0,
        "you doubled down, calling a gain",
    ),
    ("rat-snake", Event.action(0, {"type": "bow_out"}), None, "alice bowed out with the silo"),
    # Rattlesnake: saloon cards by title, player cards by value
    (
        "rattlesnake",
        Event.action(0, {"type": "buy", "card": "take-cover", "discard": ["2", "3"]}),
        1,
        "alice bought Take Cover, discarding a 2 and a 3",
    ),
    (
        "rattlesnake",
        Event.action(1, {"type": "attack", "cards": ["5", "hit"]}),
        1,
        "you attacked with a 5 and a Hit",
    ),
    ("rattlesnake", Event(kind="action", payload=None, seat=1), 0, "bob played cards face down"),
    (
        "rattlesnake",
        Event.action(0, {"type": "use", "card": "switch-up", "index": 0, "value": 5}),
        None,
        "alice used Switch Up to set the first card to 5",
    ),
    ("rattlesnake", Event.chance_outcome({"index": 1}), 1, "the pistol goes to you"),
    # The Greatest Snake: every card by its printed name; a draw never names its card
    ("the-greatest-snake", Event.action(0, {"type": "draw"}), 1, "alice drew a card"),
    (
        "the-greatest-snake",
        Event.action(1, {"type": "play", "card": 40, "snake": 0}),
        0,
        "bob played Super Glue at your snake",
    ),
    (
        "the-greatest-snake",
        Event.action(0, {"type": "equip", "card": 60, "body": 1}),
        0,
        "you equipped Slippery Scales on your second Body Card",
    ),
    ("the-greatest-snake", Event.action(2, {"type": "digest"}), None, "carol declared “Digest!”"),
    # Rattlebones: the rulebook's capitals
    (
        "rattlebones",
        Event.action(0, {"type": "roll", "dice": [0, 2]}),
        0,
        "you rolled the first and third dice, paying 1 gold",
    ),
    ("rattlebones", Event.chance_outcome({"dice": [1]}), 0, "the die rolled the Rattlebones icon"),
    (
        "rattlebones",
        Event.action(1, {"type": "use_die", "die": 2, "steal": ["star", None]}),
        0,
        "bob used THIEF and stole a star from you",
    ),
    # Rag'n'Guns: cards by name, a face-down choice as one
    (
        "ragnguns",
        Event.action(0, {"type": "place", "card": "buffalo-rifle", "zone": "alley"}),
        1,
        "alice placed Buffalo Rifle in the ALLEY",
    ),
    (
        "ragnguns",
        Event.action(1, {"type": "set_trap", "card": "lure"}),
        1,
        "you set Lure face down as the TRAP",
    ),
    ("ragnguns", Event(kind="action", payload=None, seat=1), 0, "bob chose face down"),
    (
        "ragnguns",
        Event.action(0, {"type": "gunfight", "bullets": 2}),
        None,
        "alice started a GUNFIGHT with 2 Bullets",
    ),
    # Cup Dice has no describer: the plain sentence, for free
    ("cup-dice", Event.action(0, {"type": "stake", "chips": 2}), 1, "alice: stake (chips 2)"),
    ("cup-dice", Event(kind="action", payload=None, seat=0), 1, "alice acted (hidden until the match ends)"),
    ("cup-dice", Event.chance_outcome({"dice": [4]}), None, "the die shows 4"),
]


@pytest.mark.parametrize(("key", "event", "viewer", "expected"), QUOTED)
def test_sentences_read_as_quoted(key, event, viewer, expected):
    assert get_game(key).describe_event(event, viewer=viewer, seat_names=NAMES[:3]) == expected


def test_the_plain_sentence_shortens_long_hex_and_counts_long_lists():
    from engines.describe import plain_sentence

    event = Event.action(0, {"type": "commit", "value": "ab" * 32, "cards": list(range(15))})
    assert (
        plain_sentence(event, viewer=None, seat_names=NAMES[:2])
        == "alice: commit (value abababab…, cards 15 items)"
    )
