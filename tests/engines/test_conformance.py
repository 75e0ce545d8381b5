"""Every registered game against the engine protocol (OpenSpiel's `random_sim_test`, for our API).

Parametrised over `engines.registry.game_keys()`, so a game joins these tests by being registered.
Playouts pick legal actions with a seeded `random.Random` and draw chance with `engines.chance.draw`
from a fixed seed, exactly as the service would. They also hold every engine to the protocol's
contract about mutable states: `apply` changes the state in place only when it succeeds, a clone is
independent of its original, and a state's decision is worked out once.
"""

from __future__ import annotations

import copy
import json
import random
import re
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines.bots import RandomBot
from engines.chance import draw
from engines.errors import IllegalAction
from engines.protocol import Event, Game, Turn
from engines.registry import game_keys, get_game
from engines.replay import replay

MAX_EVENTS = 20_000  # a playout that has not ended by then is taken to loop
CODE = re.compile(r"^[a-z][a-z_]*/[a-z][a-z_]*$")  # "area/what"
GAMES = game_keys()


@dataclass
class Playout:
    game: Game
    seats: int
    events: list[Event] = field(default_factory=list)
    # states[i] is (a clone of) the state before events[i]; the last is the final state.
    states: list[Any] = field(default_factory=list)

    @property
    def final(self) -> Any:
        return self.states[-1]


def seat_counts(game: Game) -> list[int]:
    low, high = game.spec.min_players, game.spec.max_players
    return sorted({low, (low + high) // 2, high})


def chance_event(game: Game, state: Any, seed: int, seq: int) -> Event:
    return Event.chance_outcome(draw(f"conformance/{seed}".encode(), seq, game.chance_request(state)))


def play(game: Game, seats: int, seed: int) -> Playout:
    rng = random.Random(seed)
    state = game.new_state(seats=seats)
    playout = Playout(game, seats, states=[state.clone()])
    while game.decision(state).kind != "over":
        assert len(playout.events) < MAX_EVENTS, f"{game.spec.key}: no outcome after {MAX_EVENTS} events"
        decision = game.decision(state)
        if decision.kind == "chance":
            event = chance_event(game, state, seed, len(playout.events))
        else:
            assert decision.seats, f"{game.spec.key}: a {decision.kind} decision names no seat"
            seat = rng.choice(sorted(decision.seats))
            actions = game.legal_actions(state, seat)
            assert actions, f"{game.spec.key}: seat {seat} must act but has no legal action"
            event = Event.action(seat, rng.choice(actions))
        game.apply(state, event)
        playout.events.append(event)
        playout.states.append(state.clone())
    return playout


def applied(game: Game, state: Any, event: Event) -> Any:
    """The state after `event`, leaving `state` itself as it was."""
    after = state.clone()
    game.apply(after, event)
    return after


def round_trips(value: Any) -> bool:
    return json.loads(json.dumps(value)) == value


def cases() -> list[tuple[str, int]]:
    return [(key, seats) for key in GAMES for seats in seat_counts(get_game(key))]


SEEDS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("key", GAMES)
def test_spec_describes_itself_as_json(key: str) -> None:
    game = get_game(key)
    assert game.spec.key == key
    assert round_trips(game.spec.describe())
    assert "random" in game.bots()
    defaults = game.spec.resolve_options(None)
    assert set(defaults) == {option.name for option in game.spec.options}


@pytest.mark.parametrize(("key", "seats"), cases())
@SEEDS
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_random_games_reach_an_outcome_and_replay_exactly(key: str, seats: int, seed: int) -> None:
    game = get_game(key)
    playout = play(game, seats, seed)
    outcome = game.outcome(playout.final)
    assert outcome is not None
    assert len(outcome.ranks) == len(outcome.scores) == seats
    assert round_trips(outcome.to_json())
    for state in playout.states[:-1]:
        assert game.outcome(state) is None

    first = replay(game, seats=seats, options=None, events=playout.events)
    second = replay(game, seats=seats, options=None, events=playout.events)
    assert first.ok and second.ok
    assert first.applied == second.applied == len(playout.events)
    assert first.state == second.state == playout.final
    for seat in [None, *range(seats)]:
        assert game.view(first.state, seat) == game.view(second.state, seat)


@pytest.mark.parametrize(("key", "seats"), cases())
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_legal_action_applies(key: str, seats: int, seed: int) -> None:
    game = get_game(key)
    playout = play(game, seats, seed)
    for state in playout.states[:-1]:
        decision = game.decision(state)
        for seat in range(seats):
            actions = game.legal_actions(state, seat)
            if seat not in decision.seats:
                assert actions == [], f"seat {seat} is not deciding yet has legal actions"
                continue
            for action in actions:
                assert round_trips(action) and isinstance(action.get("type"), str)
                applied(game, state, Event.action(seat, action))


@pytest.mark.parametrize(("key", "seats"), cases())
@pytest.mark.parametrize("seed", [4, 5])
def test_views_decisions_and_outcomes_are_json(key: str, seats: int, seed: int) -> None:
    game = get_game(key)
    playout = play(game, seats, seed)
    for state in playout.states:
        assert round_trips(game.decision(state).to_json())
        for seat in [None, *range(seats)]:
            view = game.view(state, seat)
            assert isinstance(view, dict) and round_trips(view), view
    assert round_trips(game.outcome(playout.final).to_json())


@pytest.mark.parametrize(("key", "seats"), cases())
@pytest.mark.parametrize("seed", [6, 7, 8])
def test_views_do_not_show_what_event_audience_hides(key: str, seats: int, seed: int) -> None:
    """An action hidden from a seat must not show in that seat's view while the moment lasts.

    "The moment lasts" means the decision after the action is of the same kind and prompt as before
    (a face-down window still open). Then a hidden seat's view must be the same whichever legal action
    the author chose, so nothing of the choice (not even a purse that shrank) gives it away. When the
    moment moves on, the game may reveal the choices (a window that closes turns the bets up).
    """
    game = get_game(key)
    playout = play(game, seats, seed)
    rng = random.Random(seed)
    for before, event in zip(playout.states, playout.events):
        if event.kind != "action":
            continue
        audience = game.event_audience(before, event)
        if audience is None:
            continue
        decision = game.decision(before)
        after = applied(game, before, event)
        after_decision = game.decision(after)
        if (after_decision.kind, after_decision.prompt) != (decision.kind, decision.prompt):
            continue
        hidden_from = [seat for seat in [None, *range(seats)] if seat not in audience]
        alternatives = game.legal_actions(before, event.seat)
        for alternative in rng.sample(alternatives, min(8, len(alternatives))):
            other = applied(game, before, Event.action(event.seat, alternative))
            if game.decision(other) != after_decision:
                continue
            for seat in hidden_from:
                assert game.view(other, seat) == game.view(after, seat), (
                    f"seat {seat} can tell {event.payload} from {alternative}"
                )


@pytest.mark.parametrize(("key", "seats"), cases())
def test_illegal_actions_raise_a_namespaced_code_and_change_nothing(key: str, seats: int) -> None:
    game = get_game(key)
    playout = play(game, seats, 9)
    decisions = [(state, game.decision(state)) for state in playout.states]
    acting = [(state, decision) for state, decision in decisions if decision.kind not in ("chance", "over")]
    assert acting, "a playout with no seat ever acting"
    for state, decision in acting[:50]:
        seat = min(decision.seats)
        snapshot = copy.deepcopy(state)
        for bad in ({"type": "__no_such_action__"}, {"no": "type"}, {"type": 7}):
            with pytest.raises(IllegalAction) as raised:
                game.apply(state, Event.action(seat, bad))
            assert CODE.match(raised.value.code), raised.value.code
            assert state == snapshot
        with pytest.raises(IllegalAction) as raised:
            game.apply(state, Event.chance_outcome({"dice": [1]}))
        assert CODE.match(raised.value.code)
        assert state == snapshot


@pytest.mark.parametrize(("key", "seats"), cases())
def test_acting_out_of_turn_is_refused(key: str, seats: int) -> None:
    game = get_game(key)
    playout = play(game, seats, 10)
    found = 0
    for state in playout.states:
        decision = game.decision(state)
        if decision.kind in ("chance", "over"):
            if decision.kind == "chance":
                with pytest.raises(IllegalAction) as raised:
                    game.apply(state, Event.action(0, {"type": "anything"}))
                assert raised.value.code == "turn/chance_pending"
            continue
        idle = [seat for seat in range(seats) if seat not in decision.seats]
        if not idle:
            continue
        seat = min(decision.seats)
        action = game.legal_actions(state, seat)[0]
        snapshot = copy.deepcopy(state)
        with pytest.raises(IllegalAction) as raised:
            game.apply(state, Event.action(idle[0], action))
        assert raised.value.code == "turn/not_your_turn"
        assert state == snapshot
        found += 1
    assert found, "no state had a seat that was not to act"


@pytest.mark.parametrize("key", GAMES)
def test_a_finished_match_refuses_everything(key: str) -> None:
    game = get_game(key)
    final = play(game, game.spec.min_players, 11).final
    with pytest.raises(IllegalAction) as raised:
        game.apply(final, Event.action(0, {"type": "anything"}))
    assert raised.value.code == "match/over"
    with pytest.raises(IllegalAction) as raised:
        game.apply(final, Event.forfeit(0, "late"))
    assert raised.value.code == "match/over"


@pytest.mark.parametrize("key", GAMES)
def test_a_forfeit_ends_the_match_with_the_seat_last(key: str) -> None:
    game = get_game(key)
    seats = game.spec.min_players
    playout = play(game, seats, 12)
    state = playout.states[len(playout.states) // 2]
    after = applied(game, state, Event.forfeit(seats - 1, "left"))
    outcome = game.outcome(after)
    if outcome is not None:  # a game may instead drop the seat and go on
        assert outcome.ranks[seats - 1] == max(outcome.ranks)
        assert round_trips(outcome.to_json())


# --- the protocol's contract on mutable states ----------------------------------------------------


@pytest.mark.parametrize(("key", "seats"), cases())
@pytest.mark.parametrize("seed", [13, 14])
def test_a_clone_is_independent_of_its_original(key: str, seats: int, seed: int) -> None:
    game = get_game(key)
    playout = play(game, seats, seed)
    for before, event in zip(playout.states, playout.events):
        original = copy.deepcopy(before)
        views = [game.view(before, seat) for seat in [None, *range(seats)]]
        clone = before.clone()
        assert clone == before and clone is not before
        game.apply(clone, event)  # advancing the clone ...
        assert before == original  # ... leaves the original, its decision and its views as they were
        assert game.decision(before) == game.decision(original)
        assert [game.view(before, seat) for seat in [None, *range(seats)]] == views
        game.apply(before, event)  # and the original then advances to the same state
        assert before == clone


def scrambled_actions(game: Game, state: Any, seat: int, rng: random.Random) -> list[dict]:
    """Legal-looking actions that are not legal: a legal one with one field changed or dropped, or
    with a field added."""
    legal = game.legal_actions(state, seat)
    wrong: list[dict] = []
    for action in rng.sample(legal, min(5, len(legal))):
        for name in action:
            if name == "type":
                continue
            for value in (None, -1, 10**9, "?", [action[name]]):
                changed = {**action, name: value}
                if changed not in legal:
                    wrong.append(changed)
            wrong.append({key: value for key, value in action.items() if key != name})
        wrong.append({**action, "extra": 1})
    return [action for action in wrong if action not in legal]


@pytest.mark.parametrize(("key", "seats"), cases())
@pytest.mark.parametrize("seed", [15, 16])
def test_a_refused_event_leaves_the_state_exactly_as_it_was(key: str, seats: int, seed: int) -> None:
    game = get_game(key)
    playout = play(game, seats, seed)
    rng = random.Random(seed)
    refused = 0
    for state in playout.states[:-1]:
        decision = game.decision(state)
        if decision.kind in ("chance", "over"):
            continue
        original = copy.deepcopy(state)
        for seat in decision.seats:
            for action in scrambled_actions(game, state, seat, rng):
                with pytest.raises(IllegalAction) as raised:
                    game.apply(state, Event.action(seat, action))
                assert CODE.match(raised.value.code), raised.value.code
                assert state == original, f"{action} was refused but changed the state"
                assert game.decision(state) == game.decision(original)
                refused += 1
        # The state is still usable: a legal action applies to it afterwards.
        seat = min(decision.seats)
        applied(game, state, Event.action(seat, game.legal_actions(state, seat)[0]))
    assert refused, "no legal-looking illegal action was tried"


@pytest.mark.parametrize("key", GAMES)
def test_a_state_works_out_its_decision_once(key: str, monkeypatch) -> None:
    game = get_game(key)
    calls = []
    decide = type(game).decide

    def counting(self, state):
        calls.append(id(state))
        return decide(self, state)

    monkeypatch.setattr(type(game), "decide", counting)
    playout = play(game, game.spec.min_players, 17)
    # The playout advances one state in place and asks its decision several times per event: it is
    # worked out once per event, and once for the first state.
    assert len(calls) == len(playout.events) + 1
    # Each kept clone (taken right after an event) works its decision out once, however often asked.
    for state in playout.states:
        for _ in range(3):
            game.decision(state)
            game.legal_actions(state, 0)
    assert len(calls) == 2 * (len(playout.events) + 1)


@pytest.mark.parametrize("key", GAMES)
def test_the_random_bot_never_asks_for_a_view(key: str) -> None:
    game = get_game(key)

    class Blindfolded(type(game)):
        def view(self, state, seat):
            raise AssertionError("the random bot asked for a view")

    blind = Blindfolded()
    state = blind.new_state(seats=game.spec.min_players)
    rng = random.Random(18)
    for _ in range(200):
        decision = blind.decision(state)
        if decision.kind == "over":
            break
        if decision.kind == "chance":
            event = chance_event(blind, state, 18, 0)
        else:
            seat = min(decision.seats)
            event = Event.action(seat, RandomBot().act(Turn(blind, state, seat), rng))
        blind.apply(state, event)
