"""Properties over random games: no card is ever created or lost, and replay is exact."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines.playout import playout
from engines.rattlesnake import GAME
from engines.rattlesnake.rules import ABILITY
from engines.replay import replay

from . import every_card, full_set

GAMES = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@GAMES
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_no_card_is_created_or_lost(seed: int) -> None:
    final, log = playout(GAME, seats=2, seed=f"cards/{seed}".encode())
    player, saloon = full_set()
    state = GAME.new_state(seats=2)
    assert every_card(state)[0] == [player, player]
    for event in log:
        GAME.apply(state, event)
        seats, saloon_cards = every_card(state)
        if state.phase != "saloon_events":  # the moment between dealing the actions and the events
            assert saloon_cards == saloon
        assert seats == [player, player]
        for seat in (0, 1):
            assert len(state.hands[seat]) <= max(state.rules.hand_size, 7)
            # The count that lets a window skip a seat owning no saloon card is every one it owns.
            zones = (state.hands[seat], state.decks[seat], state.discards[seat])
            committed = state.attack if seat == state.active else state.defense
            owned = sum(card in ABILITY for zone in (*zones, committed) for card in zone)
            owned += sum(pending.seat == seat for pending in state.stack)
            assert state.owned[seat] == owned
    assert state == final


@GAMES
@given(seed=st.integers(min_value=0, max_value=2**32 - 1), pistol=st.sampled_from(["drawn", "seat_0"]))
def test_replay_is_exact(seed: int, pistol: str) -> None:
    options = {"pistol": pistol}
    final, log = playout(GAME, seats=2, seed=f"replay/{seed}".encode(), options=options)
    replayed = replay(GAME, seats=2, options=options, events=log)
    assert replayed.ok and replayed.applied == len(log)
    assert replayed.state == final
    for seat in (None, 0, 1):
        assert GAME.view(replayed.state, seat) == GAME.view(final, seat)
    assert GAME.outcome(final) is not None


@GAMES
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_no_seat_is_ever_asked_when_it_could_only_pass(seed: int) -> None:
    # Every window of "any time, on any turn" is opened only for a seat holding a card it can use, so
    # no decision waits on a person whose one legal action is "pass" (or passing the pistol).
    _, log = playout(GAME, seats=2, seed=f"asked/{seed}".encode())
    state = GAME.new_state(seats=2)
    for event in log:
        decision = GAME.decision(state)
        if decision.kind not in ("chance", "over"):
            for seat in decision.seats:
                assert GAME.legal_actions(state, seat) not in ([{"type": "pass"}], [{"type": "end_turn"}])
        GAME.apply(state, event)
