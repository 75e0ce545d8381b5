"""Properties of whole duels (rules 0.3, with issue 15's hidden information): over random games,
no chip and no card is created or lost, replay is exact, and no view shows what its seat may not see
(a seat's view is the same whatever the opponent's hidden cards are)."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines.chance import draw
from engines.protocol import Event
from engines.ragnguns import GAME
from engines.ragnguns.state import RagnGunsState
from engines.replay import replay

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def cards_of(state: RagnGunsState, seat: int) -> Counter[str]:
    side = state.sides[seat]
    cards = Counter(side.deck + side.hand + side.discard + side.hideout[0] + side.hideout[1])
    cards.update(card for card in (side.alley, side.shelter) if card is not None)
    cards.update(card for card, _ in side.traps)
    return cards


def random_duel(seed: int, options=None) -> tuple[list[RagnGunsState], list[Event]]:
    rng = random.Random(seed)
    state = GAME.new_state(seats=2, options=options)
    states, events = [state.clone()], []
    while (decision := GAME.decision(state)).kind != "over":
        if decision.kind == "chance":
            event = Event.chance_outcome(
                draw(f"props/{seed}".encode(), len(events), GAME.chance_request(state))
            )
        else:
            seat = rng.choice(sorted(decision.seats))
            event = Event.action(seat, rng.choice(GAME.legal_actions(state, seat)))
        GAME.apply(state, event)
        events.append(event)
        states.append(state.clone())
    return states, events


def with_hidden_cards_reshuffled(state: RagnGunsState, seat: int, rng: random.Random) -> RagnGunsState:
    """The same table with `seat`'s hidden cards dealt otherwise: the hand, the deck and the face-up
    cards below the top of each Hideout slot mixed together; the face-down TRAPS swapped among
    themselves."""
    other = state.clone()
    side = other.sides[seat]
    lower = [
        (s, i)
        for s, slot in enumerate(side.hideout)
        for i in range(len(slot) - 1)
        if slot[i] not in side.face_down
    ]
    pool = side.hand + side.deck + [side.hideout[s][i] for s, i in lower]
    rng.shuffle(pool)
    side.hand, pool = pool[: len(side.hand)], pool[len(side.hand) :]
    for s, i in lower:
        side.hideout[s][i] = pool.pop()
    side.deck = pool
    traps = [card for card, _ in side.traps]
    rng.shuffle(traps)
    side.traps = [(card, bullets) for card, (_, bullets) in zip(traps, side.traps)]
    other.decision_cache = None
    return other


@SETTINGS
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_chips_and_cards_are_conserved_and_replay_is_exact(seed: int) -> None:
    states, events = random_duel(seed)
    brought = None
    for state in states:
        assert state.chips() == 0
        if state.phase not in ("bring_deck", "first_player", "shuffle") and brought is None:
            brought = [Counter(state.decks[0]), Counter(state.decks[1])]
        if brought is not None and state.shuffled == 2:
            assert [cards_of(state, 0), cards_of(state, 1)] == brought
            for side in state.sides:
                assert 0 <= side.cylinder <= 6 and side.bullets >= 0 and side.belt >= 0
    result = replay(GAME, seats=2, options=None, events=events)
    assert result.ok and result.state == states[-1]


@SETTINGS
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_no_view_shows_the_opponents_hidden_cards(seed: int) -> None:
    states, _ = random_duel(seed)
    rng = random.Random(seed)
    for state in states[:: max(1, len(states) // 25)]:
        if state.shuffled < 2 or state.phase == "over":
            continue
        for hidden in (0, 1):
            other = with_hidden_cards_reshuffled(state, hidden, rng)
            assert GAME.view(other, 1 - hidden) == GAME.view(state, 1 - hidden)
            assert GAME.view(other, None) == GAME.view(state, None)


def test_a_spectator_sees_no_hand_and_no_deck() -> None:
    states, _ = random_duel(7)
    for state in states:
        view = GAME.view(state, None)
        for shown in view.get("seats", []):
            assert "hand" not in shown and "deck" not in shown
            assert all(trap["card"] is None for trap in shown["traps"])
