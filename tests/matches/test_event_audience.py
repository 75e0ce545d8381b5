"""Each event's audience is stored when it is appended, and a listing reads it instead of replaying
the log: for every registered game a spectator and each seat see exactly the payloads the replay rule
(every listing before the column) let them see. Rows without an audience (written before it existed)
are filled by migration 0006, through a guard that lets an audience be filled once and nothing else
change."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import DatabaseError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from engines.registry import game_keys, get_game
from matches import selectors, services
from matches.audience import PUBLIC
from matches.models import Match, MatchEvent
from matches.services import SeatSpec

SEEDS = range(4)


def readable_by_replay(match: Match) -> dict[int | None, set[int]]:
    """The seqs whose payload each viewer (None: a spectator; each seat) may read while the match runs,
    by the rule the listing followed before audiences were stored: replay the log from the start and
    ask the engine about each event with the state before it."""
    game = get_game(match.game)
    seats = match.seats.count()
    state = game.new_state(seats=seats, options=match.options)
    readable: dict[int | None, set[int]] = {viewer: set() for viewer in (None, *range(seats))}
    for row in match.events.order_by("seq"):
        event = row.to_engine() if row.is_engine_event else None
        audience = None if event is None else game.event_audience(state, event)
        for viewer, seqs in readable.items():
            if audience is None or (viewer is not None and viewer in audience):
                seqs.add(row.seq)
        if event is not None:
            game.apply(state, event)
    return readable


def readable_in_listing(match: Match, viewer: int | None, after: int = 0) -> set[int]:
    listing = selectors.match_event_listing(match, viewer_seat=viewer, after=after)
    payloads = {row.seq: row.payload for row in match.events.all()}
    for entry in listing:
        assert entry["redacted"] == (entry["payload"] is None)
        assert entry["payload"] in (None, payloads[entry["seq"]])
    assert [entry["seq"] for entry in listing] == sorted(seq for seq in payloads if seq > after)
    return {entry["seq"] for entry in listing if not entry["redacted"]}


def bot_match(key: str, seats: int, seed: int) -> Match:
    match = services.match_create(
        game_key=key,
        seats=[SeatSpec(bot="random")] * seats,
        bots_play="now",
        seed=f"audience {key} {seats} {seed}".encode(),
    )
    match.refresh_from_db()
    return match


@pytest.mark.django_db
@pytest.mark.parametrize("key", game_keys())
def test_a_running_listing_shows_each_viewer_exactly_what_the_replay_rule_did(key):
    spec = get_game(key).spec
    hidden_somewhere = False
    for seats in sorted({spec.min_players, spec.max_players}):
        for seed in SEEDS:
            match = bot_match(key, seats, seed)
            assert match.is_finished
            # The same log read as while it ran: the finished match's status set back in this copy only,
            # so the listing applies the rule for a running match to every event of a long random game.
            match.status = Match.Status.RUNNING
            expected = readable_by_replay(match)
            head = match.events.count()
            for viewer, seqs in expected.items():
                assert readable_in_listing(match, viewer) == seqs, (key, seats, seed, viewer)
                after = head // 2
                assert readable_in_listing(match, viewer, after) == {s for s in seqs if s > after}
            hidden_somewhere |= len(expected[None]) < head
            match.status = Match.Status.FINISHED
            everything = set(match.events.values_list("seq", flat=True))
            for viewer in expected:
                assert readable_in_listing(match, viewer) == everything
    assert hidden_somewhere == spec.has_hidden_information, "the games' hidden payloads were not exercised"


@pytest.fixture
def side_bets_match(users):
    """Alice and Bob at Rat-Snake with side bets: Bob's face-down side bet is the first decision."""
    match = services.match_create(
        game_key="rat-snake",
        seats=[SeatSpec(user=users["alice"]), SeatSpec(user=users["bob"])],
        options={"side_bets": True},
        created_by=users["alice"],
    )
    assert selectors.match_decision(match).seats == {1} and selectors.match_head_seq(match) == 0
    return match


@pytest.mark.django_db
def test_a_face_down_action_is_stored_for_its_author_alone_and_read_without_replaying(
    side_bets_match, users, django_assert_num_queries
):
    services.match_submit_action(
        match_id=side_bets_match.pk, user=users["bob"], action={"type": "no_bet"}, expected_seq=0
    )
    rows = list(side_bets_match.events.order_by("seq"))
    assert rows[0].audience == 1 << 1  # Bob's seat
    assert all(row.audience == PUBLIC for row in rows[1:])  # the throw that follows is public
    with django_assert_num_queries(2):  # the log, and its seats' names for the sentences: no replay
        listing = selectors.match_event_listing(side_bets_match, viewer_seat=0)
    assert listing[0]["redacted"] and not any(entry["redacted"] for entry in listing[1:])


def unfilled_side_bet(match: Match) -> MatchEvent:
    """Bob's side bet as a process predating the audience column wrote it: no audience."""
    return MatchEvent.objects.create(match=match, seq=1, kind="action", seat=1, payload={"type": "no_bet"})


@pytest.mark.django_db
def test_a_row_with_no_audience_yet_is_judged_by_replay_not_shown(side_bets_match):
    unfilled_side_bet(side_bets_match)
    assert readable_in_listing(side_bets_match, None) == set()
    assert readable_in_listing(side_bets_match, 0) == set()
    assert readable_in_listing(side_bets_match, 1) == {1}


@pytest.mark.django_db
def test_the_database_lets_an_audience_be_filled_once_and_nothing_else_change(side_bets_match):
    row = unfilled_side_bet(side_bets_match)
    events = MatchEvent.objects.filter(pk=row.pk)
    with pytest.raises(DatabaseError), transaction.atomic():
        events.update(audience=PUBLIC, payload={"type": "side_bet", "prediction": "rats_out", "stake": 1})
    with pytest.raises(DatabaseError), transaction.atomic():
        events.update(seat=0)
    assert events.update(audience=1 << 1) == 1
    with pytest.raises(DatabaseError), transaction.atomic():
        events.update(audience=PUBLIC)  # a second write, which could publish a secret
    with pytest.raises(DatabaseError), transaction.atomic():
        events.update(audience=None)
    row.refresh_from_db()
    assert (row.audience, row.seat, row.payload) == (1 << 1, 1, {"type": "no_bet"})


@pytest.mark.django_db(transaction=True)
def test_the_migration_fills_old_logs_with_the_audiences_an_append_writes(users):
    matches = [bot_match(key, get_game(key).spec.min_players, 0) for key in game_keys()]
    running = services.match_create(
        game_key="rat-snake",
        seats=[SeatSpec(user=users["alice"]), SeatSpec(bot="random")],
        options={"side_bets": True},
    )
    matches.append(running)
    appended = dict(MatchEvent.objects.values_list("pk", "audience"))
    assert None not in appended.values() and len(set(appended.values())) > 2
    executor = MigrationExecutor(connection)
    executor.migrate([("matches", "0005_match_void_entropy_correction")])
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert dict(MatchEvent.objects.values_list("pk", "audience")) == appended
    with pytest.raises(DatabaseError), transaction.atomic():
        MatchEvent.objects.filter(match=running).update(audience=PUBLIC)  # filled: never again


@pytest.mark.django_db
def test_replay_matches_reports_an_audience_the_log_does_not_give(side_bets_match, capsys):
    row = unfilled_side_bet(side_bets_match)
    MatchEvent.objects.filter(pk=row.pk).update(audience=PUBLIC)  # filled, wrongly: Bob's bet for all
    with pytest.raises(CommandError):
        call_command("replay_matches")
    assert (
        f"match {side_bets_match.pk}: event 1's stored audience -1 but replay gives 2"
        in capsys.readouterr().err
    )
