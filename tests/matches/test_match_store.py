"""The event store's guarantees: append-only in the database, expected-seq appends, idempotency,
nothing written on refusal, chance drawn from the committed seed, resumable bot play."""

from __future__ import annotations

import threading

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import DatabaseError, connection, transaction

from core.errors import ApplicationError
from engines.chance import seed_commitment
from engines.fairness import verify_log
from engines.protocol import Event
from engines.registry import get_game
from matches import live, selectors, services, store
from matches.models import Match, MatchEvent
from matches.services import SeatSpec

NO_BETS = {"side_bets": False}
SEED = b"fixed seed for the store tests"


def human_match(users, *names, options=None, seed=SEED):
    return services.match_create(
        game_key="rat-snake",
        seats=[SeatSpec(user=users[name]) for name in names],
        options=options if options is not None else NO_BETS,
        created_by=users[names[0]],
        seed=seed,
    )


def deciding(match):
    """(user seat index, a legal action) for whoever must decide now."""
    snapshot = selectors.match_snapshot(match)
    game = get_game(match.game)
    decision = game.decision(snapshot.state)
    seat = min(decision.seats)
    return seat, game.legal_actions(snapshot.state, seat)[0], snapshot.seq


def user_at(match, seat):
    return match.seats.get(index=seat).user


@pytest.mark.django_db
class TestAppend:
    def test_creation_commits_to_a_seed_and_draws_chance_from_it(self, users):
        match = human_match(users, "alice", "bob")
        assert match.seed_commitment == seed_commitment(bytes(match.seed))
        chance = list(match.events.filter(kind="chance"))
        assert chance, "with no side bets the first throw happens at creation"
        state = get_game("rat-snake").new_state(seats=2, options=match.options)
        request = get_game("rat-snake").chance_request(state)
        from engines.chance import draw

        assert chance[0].payload == draw(bytes(match.seed), chance[0].seq, request)

    def test_stale_expected_seq_is_a_conflict_and_writes_nothing(self, users):
        match = human_match(users, "alice", "bob")
        seat, action, seq = deciding(match)
        services.match_submit_action(
            match_id=match.pk, user=user_at(match, seat), action=action, expected_seq=seq
        )
        count = match.events.count()
        seat, action, _ = deciding(match)
        with pytest.raises(ApplicationError) as refused:
            services.match_submit_action(
                match_id=match.pk, user=user_at(match, seat), action=action, expected_seq=seq
            )
        assert refused.value.status == 409
        assert refused.value.code == "match/stale_seq"
        assert refused.value.extra["current_seq"] == count
        assert match.events.count() == count

    def test_same_idempotency_key_writes_once_and_returns_the_first_result(self, users):
        match = human_match(users, "alice", "bob")
        seat, action, seq = deciding(match)
        user = user_at(match, seat)
        first = services.match_submit_action(
            match_id=match.pk, user=user, action=action, expected_seq=seq, idempotency_key="k-1"
        )
        count = match.events.count()
        again = services.match_submit_action(
            match_id=match.pk, user=user, action=action, expected_seq=seq, idempotency_key="k-1"
        )
        assert again.replayed and not first.replayed
        assert (again.event.seq, again.event.payload) == (first.event.seq, first.event.payload)
        assert match.events.count() == count
        assert match.events.filter(idempotency_key=f"{user.pk}:k-1").count() == 1

    def test_reusing_a_key_for_another_action_is_refused(self, users):
        match = human_match(users, "alice", "bob")
        seat, action, seq = deciding(match)
        user = user_at(match, seat)
        services.match_submit_action(
            match_id=match.pk, user=user, action=action, expected_seq=seq, idempotency_key="k"
        )
        with pytest.raises(ApplicationError) as refused:
            services.match_submit_action(
                match_id=match.pk, user=user, action={"type": "other"}, expected_seq=seq, idempotency_key="k"
            )
        assert refused.value.code == "idempotency/key_reused"

    def test_an_illegal_action_is_refused_with_the_engine_code_and_writes_nothing(self, users):
        match = human_match(users, "alice", "bob")
        seat, _, seq = deciding(match)
        count = match.events.count()
        with pytest.raises(ApplicationError) as refused:
            services.match_submit_action(
                match_id=match.pk, user=user_at(match, seat), action={"type": "juggle"}, expected_seq=seq
            )
        assert refused.value.status == 422
        assert "/" in refused.value.code
        assert match.events.count() == count

    def test_a_seat_cannot_act_for_another(self, users):
        match = human_match(users, "alice", "bob")
        seat, action, seq = deciding(match)
        other = users["bob"] if user_at(match, seat) == users["alice"] else users["alice"]
        for intruder, kwargs in ((other, {"seat": seat}), (users["carol"], {})):
            with pytest.raises(ApplicationError) as refused:
                services.match_submit_action(
                    match_id=match.pk, user=intruder, action=action, expected_seq=seq, **kwargs
                )
            assert (refused.value.status, refused.value.code) == (403, "seat/not_yours")

    def test_a_finished_match_accepts_nothing(self, users):
        match = human_match(users, "alice", "bob")
        services.match_forfeit(match_id=match.pk, seat=0, reason="resigned", user=users["alice"])
        match.refresh_from_db()
        assert match.is_finished and match.outcome["ranks"][0] == 2
        count = match.events.count()
        with pytest.raises(ApplicationError) as refused:
            services.match_submit_action(
                match_id=match.pk, user=users["alice"], action={"type": "continue"}, expected_seq=count
            )
        assert refused.value.code == "match/finished"
        assert match.events.count() == count


@pytest.mark.django_db
class TestDatabaseRefusesChanges:
    def test_update_is_refused(self, users):
        match = human_match(users, "alice", "bob")
        event = match.events.first()
        original = (event.kind, event.payload, event.seat)
        with pytest.raises(DatabaseError), transaction.atomic():
            MatchEvent.objects.filter(pk=event.pk).update(payload={"forged": True}, seat=7)
        event.refresh_from_db()
        assert (event.kind, event.payload, event.seat) == original

    def test_delete_is_refused_through_the_orm_and_raw_sql(self, users):
        match = human_match(users, "alice", "bob")
        count = match.events.count()
        with pytest.raises(DatabaseError), transaction.atomic():
            match.events.all().delete()
        with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(f"DELETE FROM {MatchEvent._meta.db_table}")
        assert match.events.count() == count


@pytest.mark.django_db
class TestBotsAndWorkers:
    def test_a_match_of_bots_is_played_by_the_worker_task(
        self, users, settings, django_capture_on_commit_callbacks
    ):
        settings.CELERY_TASK_ALWAYS_EAGER = True
        from snakepit.celery import app

        app.conf.task_always_eager = True
        try:
            with django_capture_on_commit_callbacks(execute=True):
                match = services.match_create(
                    seed=SEED,
                    game_key="rat-snake",
                    seats=[SeatSpec(bot="heuristic"), SeatSpec(bot="random")],
                    options={"passes": 1},
                )
        finally:
            app.conf.task_always_eager = False
        match.refresh_from_db()
        assert match.is_finished
        assert list(match.events.values_list("seq", flat=True)) == list(range(1, match.events.count() + 1))

    def test_an_interrupted_bot_match_resumes_without_writing_anything_twice(self, users):
        match = services.match_create(
            seed=SEED,
            game_key="rat-snake",
            seats=[SeatSpec(bot="heuristic"), SeatSpec(bot="random")],
            options={"passes": 2},
            bots_play="caller",
        )
        # A worker that dies after its first committed chunk leaves exactly that prefix behind.
        with pytest.raises(RuntimeError), transaction.atomic():
            store.match_advance(match_id=match.pk, chunk=10)
            raise RuntimeError("worker killed")
        assert match.events.count() == 0
        store.match_advance(match_id=match.pk, chunk=7)  # this run commits in chunks, then finishes
        match.refresh_from_db()
        assert match.is_finished
        total = match.events.count()
        assert store.match_advance(match_id=match.pk) == 0  # a duplicate delivery finds nothing to do
        assert match.events.count() == total
        assert list(match.events.values_list("seq", flat=True)) == list(range(1, total + 1))

    def test_a_crashing_bot_forfeits_instead_of_hanging_the_match(self, users, monkeypatch):
        heuristic = get_game("rat-snake").bots()["heuristic"]

        def crash(self, **kwargs):
            raise ZeroDivisionError

        monkeypatch.setattr(type(heuristic), "act", crash)
        # With side bets on, the bot at seat 1 must bet before alice's first throw.
        match = services.match_create(
            seed=SEED,
            game_key="rat-snake",
            seats=[SeatSpec(user=users["alice"]), SeatSpec(bot="heuristic")],
        )
        match.refresh_from_db()
        forfeit = match.events.get(kind="forfeit")
        assert forfeit.seat == 1 and "crashed" in forfeit.payload["reason"]
        assert match.is_finished and match.outcome["ranks"] == [1, 2]


@pytest.mark.django_db
class TestVerificationAndReplay:
    def _finished(self):
        match = services.match_create(
            seed=SEED,
            game_key="rat-snake",
            seats=[SeatSpec(bot="heuristic"), SeatSpec(bot="random"), SeatSpec(bot="random")],
            options={"passes": 1},
            bots_play="now",
        )
        match.refresh_from_db()
        assert match.is_finished
        return match

    def test_a_finished_match_verifies_from_its_revealed_seed(self, users):
        match = self._finished()
        report = selectors.match_verify(match)
        assert report.verified, report.problems
        assert report.chance_events_checked == match.events.filter(kind="chance").count() > 0
        assert report.events_replayed == match.events.count()

    def test_a_tampered_roll_or_seed_fails_verification(self, users):
        match = self._finished()
        events = [(row.seq, row.to_engine()) for row in match.events.order_by("seq")]
        seq, first_chance = next((seq, event) for seq, event in events if event.kind == "chance")
        die = first_chance.payload["dice"]
        forged = Event.chance_outcome({"dice": [die[0] % 6 + 1, die[1]]})
        forged_log = [(s, forged if s == seq else e) for s, e in events]
        common = dict(
            seats=3, options=match.options, commitment=match.seed_commitment, recorded_outcome=match.outcome
        )
        game = get_game("rat-snake")
        assert not verify_log(game, seed=bytes(match.seed), events=forged_log, **common).verified
        assert not verify_log(game, seed=b"another seed", events=events, **common).verified
        assert verify_log(game, seed=bytes(match.seed), events=events, **common).verified

    def test_a_running_match_cannot_be_verified_yet(self, users):
        match = human_match(users, "alice", "bob")
        with pytest.raises(ApplicationError) as refused:
            selectors.match_verify(match)
        assert refused.value.code == "match/not_finished"

    def test_replay_command_agrees_then_reports_a_forged_outcome(self, users, capsys):
        match = self._finished()
        call_command("replay_matches")
        Match.objects.filter(pk=match.pk).update(
            outcome={"ranks": [1, 1, 1], "scores": [0, 0, 0], "reason": "forged"}
        )
        with pytest.raises(CommandError):
            call_command("replay_matches")
        assert f"match {match.pk}" in capsys.readouterr().err

    def test_verify_command_accepts_honest_matches_then_reports_a_swapped_seed(self, users, capsys):
        match = self._finished()
        call_command("verify_matches")
        assert "All 1 finished match(es) verify" in capsys.readouterr().out
        Match.objects.filter(pk=match.pk).update(seed=b"another seed of thirty-two bytes")
        with pytest.raises(CommandError):
            call_command("verify_matches", "--game", "rat-snake")
        assert f"match {match.pk}:" in capsys.readouterr().err

    def test_state_is_rebuilt_from_the_log_when_no_live_state_is_kept(self, users):
        match = self._finished()
        kept = selectors.match_snapshot(match)
        live.live_forget()
        rebuilt = selectors.match_snapshot(match)
        assert rebuilt == kept


@pytest.mark.django_db(transaction=True)
def test_concurrent_appends_with_the_same_seq_one_wins_one_conflicts(django_user_model):
    """Two requests race with the same expected seq (a double click): exactly one is written."""
    alice = django_user_model.objects.create_user("alice")
    bob = django_user_model.objects.create_user("bob")
    match = services.match_create(
        seed=SEED, game_key="rat-snake", seats=[SeatSpec(user=alice), SeatSpec(user=bob)], options=NO_BETS
    )
    seat, action, seq = deciding(match)
    user = user_at(match, seat)
    barrier = threading.Barrier(2)
    outcomes = []

    def submit(key):
        from django.db import connections

        try:
            barrier.wait()
            services.match_submit_action(
                match_id=match.pk, user=user, action=action, expected_seq=seq, idempotency_key=key
            )
            outcomes.append("written")
        except ApplicationError as error:
            outcomes.append(error.code)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=submit, args=(key,)) for key in ("first", "second")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["match/stale_seq", "written"]
    assert match.events.filter(idempotency_key__in=[f"{user.pk}:first", f"{user.pk}:second"]).count() == 1


@pytest.mark.django_db
def test_only_matches_overdue_on_chance_or_a_bot_are_handed_to_a_worker_again(users, monkeypatch):
    from datetime import timedelta

    from django.utils import timezone

    from matches import tasks

    queued = []
    monkeypatch.setattr(tasks.match_play, "delay", queued.append)
    stalled = services.match_create(
        seed=SEED,
        game_key="rat-snake",
        seats=[SeatSpec(bot="random"), SeatSpec(bot="heuristic")],
        bots_play="caller",
    )
    waiting_for_people = human_match(users, "alice", "bob")
    assert tasks.matches_resume_stalled() == []  # nothing is overdue yet
    later = timezone.now() + timedelta(minutes=10)
    assert tasks.matches_resume_stalled(now=later) == [stalled.pk]
    assert queued == [stalled.pk] and waiting_for_people.pk not in queued


@pytest.mark.django_db
def test_a_state_reached_in_a_transaction_that_rolls_back_is_never_kept(
    users, django_capture_on_commit_callbacks
):
    match = human_match(users, "alice", "bob")
    seat, action, seq = deciding(match)
    with pytest.raises(RuntimeError), django_capture_on_commit_callbacks(execute=False) as callbacks:
        with transaction.atomic():
            services.match_submit_action(
                match_id=match.pk, user=user_at(match, seat), action=action, expected_seq=seq
            )
            raise RuntimeError("the request fails after the append")
    assert callbacks == []  # the rolled-back append queued no return of its live state
    assert match.events.count() == seq
    assert live.live_peek(match, seq + 1) is None
    after = selectors.match_snapshot(match)
    assert after.seq == seq and after.state == replayed(match)
    # and the action can be made again, from the log as it really is
    services.match_submit_action(
        match_id=match.pk, user=user_at(match, seat), action=action, expected_seq=seq
    )
    assert match.events.filter(seq=seq + 1).count() == 1


@pytest.mark.django_db
def test_an_append_to_a_live_match_reads_no_event_and_writes_in_one_insert(
    users, django_capture_on_commit_callbacks, monkeypatch
):
    """The live state is kept in memory: an action costs the match row read and one INSERT of every
    event it brings (the action, the dice, the bot's answer), with no lock and no replay."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for number in range(50):  # a seed after whose first throw Alice may throw again
        with django_capture_on_commit_callbacks(execute=True):  # committed: the live state is kept
            match = services.match_create(
                game_key="rat-snake",
                seats=[SeatSpec(user=users["alice"]), SeatSpec(bot="heuristic")],
                options={"side_bets": False},
                seed=bytes([number]) * 32,
            )
        snapshot = selectors.match_snapshot(match)
        if {"type": "continue"} in get_game("rat-snake").legal_actions(snapshot.state, 0):
            break
    inserts = []
    real_insert = store.events_insert
    monkeypatch.setattr(
        services, "events_insert", lambda rows: inserts.append(len(rows)) or real_insert(rows)
    )
    with CaptureQueriesContext(connection) as queries:
        result = services.match_submit_action(
            match_id=match.pk, user=users["alice"], action={"type": "continue"}, expected_seq=snapshot.seq
        )
    # (PostgreSQL writes with COPY, which Django's query log does not see; SQLite with one INSERT.)
    statements = [query["sql"].split()[0].upper() for query in queries.captured_queries]
    assert inserts == [1 + len(result.appended)] and len(result.appended) >= 1  # action and dice, one write
    assert match.events.count() == snapshot.seq + inserts[0]
    assert not any("FOR UPDATE" in query["sql"].upper() for query in queries.captured_queries)
    assert not any(
        query["sql"].upper().startswith("SELECT") and "MATCHES_MATCHEVENT" in query["sql"].upper()
        for query in queries.captured_queries
    ), "an append read the log"
    assert statements.count("SELECT") == 1  # the match row
    assert statements.count("INSERT") == (0 if connection.vendor == "postgresql" else 1)
    assert set(statements) <= {"SELECT", "INSERT", "UPDATE", "SAVEPOINT", "RELEASE"}


@pytest.mark.django_db
def test_a_live_state_that_another_process_overtook_is_caught_up_not_trusted(users):
    match = human_match(users, "alice", "bob")
    stale = live.live_checkout(match)  # as another process would hold it: a copy at this seq
    stale_seq = stale.seq
    stale = live.LiveMatch(
        stale.match, stale.game, stale.seat_users, stale.seat_bots, stale.seq, stale.state.clone()
    )
    seat, action, seq = deciding(match)
    services.match_submit_action(
        match_id=match.pk, user=user_at(match, seat), action=action, expected_seq=seq
    )
    head = selectors.match_head_seq(match)
    assert head > stale_seq
    live.live_return_unchanged(stale)  # this process still believes the log is at stale_seq
    with pytest.raises(ApplicationError) as refused:
        services.match_submit_action(
            match_id=match.pk, user=user_at(match, seat), action=action, expected_seq=stale_seq
        )
    assert refused.value.code == "match/stale_seq" and refused.value.extra["current_seq"] == head
    live.live_return_unchanged(stale)
    assert selectors.match_snapshot(match).state == replayed(match)
    seat, action, seq = deciding(match)
    assert seq == head
    services.match_submit_action(
        match_id=match.pk, user=user_at(match, seat), action=action, expected_seq=seq
    )
    rows = list(match.events.order_by("seq").values_list("seq", flat=True))
    assert rows == list(range(1, len(rows) + 1))
    assert selectors.match_snapshot(match).state == replayed(match)


def replayed(match):
    from engines.replay import replay

    result = replay(
        get_game(match.game),
        seats=match.seats.count(),
        options=match.options,
        events=[row.to_engine() for row in match.events.order_by("seq")],
    )
    assert result.ok
    return result.state


@pytest.mark.django_db
def test_matches_sharing_a_seed_never_share_a_cached_state(users, django_capture_on_commit_callbacks):
    from engines.replay import replay

    with django_capture_on_commit_callbacks(execute=True):  # let the cache be written, as after a commit
        # Both wait at seq 0 for side bets, with different purses: one key would mean one state.
        first = human_match(users, "alice", "bob", options={"starting_purse": 60})
        second = human_match(users, "bob", "carol", options={"starting_purse": 90})
    assert first.events.count() == second.events.count() == 0
    for match in (first, second):
        cached = selectors.match_snapshot(match)
        rebuilt = replay(
            get_game("rat-snake"),
            seats=2,
            options=match.options,
            events=[row.to_engine() for row in match.events.order_by("seq")],
        )
        assert cached.state == rebuilt.state
