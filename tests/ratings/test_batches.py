"""Ratings applied in batches: in finish order, exactly once under duplicates and races, resumed
after a failure mid-run, one run queued per burst of finishes, and the sweep for lost runs.

Matches are played to the end in the test's own process with `bots_play="caller"`. In a `db` test
the on-commit callbacks (so the match_finished receiver) run only inside
`django_capture_on_commit_callbacks(execute=True)`; elsewhere the finished matches wait unrated.
"""

from __future__ import annotations

import random
import threading

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.db.models import Sum

from matches.models import Match
from matches.signals import match_finished
from matches.store import match_advance
from ratings import selectors, services, skill, tasks
from ratings.models import LadderMatch, RatedMatch, RatingChange
from ratings.rate import ladder_match_rate, ladder_ratings_apply
from ratings.rounds import ladder_round_create
from tests.support import require_postgresql
from tests.workers import wait_until


def bot_ladder(slug="rs", entries=4):
    ladder = services.ladder_create(game_key="rat-snake", name=slug, slug=slug, options={"passes": 1})
    for _ in range(entries):
        services.ladder_join(ladder=ladder, bot="random")
    return ladder


def start_round(ladder, seed=0) -> list[int]:
    return [
        match.pk
        for match in ladder_round_create(
            ladder_id=ladder.pk, rng=random.Random(seed), bots_play="caller"
        ).matches
    ]


def finish(match_ids) -> list[int]:
    for match_id in match_ids:
        match_advance(match_id=match_id)
    return list(match_ids)


def finish_rounds(ladder, rounds) -> list[int]:
    """Match ids in the order they finished."""
    return [match_id for number in range(rounds) for match_id in finish(start_round(ladder, seed=number))]


def rated_in_order(ladder) -> list[int]:
    return list(RatedMatch.objects.filter(ladder=ladder).order_by("pk").values_list("match_id", flat=True))


def games_played(ladder) -> int:
    return ladder.entries.aggregate(total=Sum("games"))["total"]


@pytest.fixture
def queued(monkeypatch):
    """The ladder ids whose rating run was queued; no run is executed."""
    ids = []
    monkeypatch.setattr(tasks.ladder_ratings_apply, "delay", ids.append)
    return ids


@pytest.mark.django_db
def test_batches_apply_ratings_in_the_order_the_matches_finished():
    ladder = bot_ladder(entries=10)
    created = start_round(ladder)  # five duels, finished in another order than they were created
    finished = finish([created[n] for n in (3, 0, 4, 2, 1)])
    assert finished != sorted(finished)
    assert ladder_ratings_apply(ladder_id=ladder.pk, batch=2) == 5
    assert rated_in_order(ladder) == finished
    assert selectors.ratings_rebuild(ladder=ladder).ok
    assert games_played(ladder) == 10


@pytest.mark.django_db
def test_rating_a_later_match_rates_the_earlier_ones_first():
    ladder = bot_ladder()
    finished = finish_rounds(ladder, 2)
    rated = ladder_match_rate(match_id=finished[-1])
    assert rated.match_id == finished[-1] and rated_in_order(ladder) == finished
    assert ladder_match_rate(match_id=finished[-1]).pk == rated.pk  # again: the same row


@pytest.mark.django_db
def test_the_same_run_delivered_twice_applies_each_rating_once():
    ladder = bot_ladder()
    finished = finish_rounds(ladder, 3)
    assert tasks.ladder_ratings_apply(ladder.pk) == 6
    after_first = {entry.pk: (entry.mu, entry.sigma, entry.games) for entry in ladder.entries.all()}
    assert tasks.ladder_ratings_apply(ladder.pk) == 0  # redelivered
    assert tasks.match_rate(finished[0])  # a message of the one-per-match days
    assert {entry.pk: (entry.mu, entry.sigma, entry.games) for entry in ladder.entries.all()} == after_first
    assert rated_in_order(ladder) == finished and RatingChange.objects.count() == 12


@pytest.mark.django_db(transaction=True)
def test_two_runs_racing_rate_each_match_once(queued, monkeypatch):
    """The first run stops inside its first batch, holding the ladder lock, until the second run has
    started (and, on PostgreSQL, is seen waiting for a lock). Between them they rate six matches."""
    ladder = bot_ladder()
    finished = finish_rounds(ladder, 3)
    first_in_batch, second_started = threading.Event(), threading.Event()
    real_rate = skill.rate

    def rate(*args):
        if threading.current_thread().name == "first" and not first_in_batch.is_set():
            first_in_batch.set()
            if not second_started.wait(60):
                raise AssertionError("the second run never started")
        return real_rate(*args)

    monkeypatch.setattr(skill, "rate", rate)
    done, errors = {}, []

    def run(name):
        try:
            done[name] = ladder_ratings_apply(ladder_id=ladder.pk, batch=4)
        except BaseException as error:  # noqa: BLE001 - reported by the assertion below
            errors.append(error)
        finally:
            connection.close()

    runs = {name: threading.Thread(target=run, args=(name,), name=name) for name in ("first", "second")}
    runs["first"].start()
    assert first_in_batch.wait(60)
    runs["second"].start()
    if connection.vendor == "postgresql":
        wait_until(
            lambda: _lock_waiters() >= 1, timeout=60, what="the second run to wait for the ladder lock"
        )
    second_started.set()
    for thread in runs.values():
        thread.join(120)
    assert not errors, errors
    assert done["first"] >= 4 and done["first"] + done["second"] == 6
    assert rated_in_order(ladder) == finished
    assert (
        RatingChange.objects.filter(rated_match__ladder=ladder).count() == 12 and games_played(ladder) == 12
    )
    assert selectors.ratings_rebuild(ladder=ladder).ok


@pytest.mark.django_db(transaction=True)
def test_a_match_finishing_while_a_batch_runs_is_rated_by_that_run(queued, monkeypatch):
    """Its receiver sees earlier matches unrated and queues nothing: the run under way must find it."""
    require_postgresql("SQLite serialises writers: no match can finish while a batch holds the database")
    ladder = bot_ladder(entries=6)
    created = start_round(ladder)
    finish(created[:2])
    assert queued == [ladder.pk]  # the first finish queued the run that now starts
    in_batch, finished_meanwhile = threading.Event(), threading.Event()
    real_rate = skill.rate

    def rate(*args):
        if threading.current_thread().name == "run" and not in_batch.is_set():
            in_batch.set()
            if not finished_meanwhile.wait(60):
                raise AssertionError("the third match never finished")
        return real_rate(*args)

    monkeypatch.setattr(skill, "rate", rate)
    done, errors = [], []

    def run():
        try:
            done.append(ladder_ratings_apply(ladder_id=ladder.pk, batch=10))
        except BaseException as error:  # noqa: BLE001 - reported by the assertion below
            errors.append(error)
        finally:
            connection.close()

    thread = threading.Thread(target=run, name="run")
    thread.start()
    assert in_batch.wait(60)
    finish(created[2:])  # commits, and its receiver runs here
    assert queued == [ladder.pk]
    finished_meanwhile.set()
    thread.join(120)
    assert not errors, errors
    assert done == [3] and rated_in_order(ladder) == created
    assert selectors.ratings_rebuild(ladder=ladder).ok


def _lock_waiters() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            ""
            "AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0]


@pytest.mark.django_db
def test_a_run_that_fails_mid_batch_applies_none_of_that_batch_and_the_next_run_finishes():
    ladder = bot_ladder(entries=6)
    finished = finish_rounds(ladder, 2)  # six duels, rated two at a time
    marks = []

    def die_at_the_second_mark(execute, sql, params, many, context):
        # A batch's last write marks its matches rated; by then the second batch has written its
        # RatedMatch and RatingChange rows and the entries' ratings.
        if sql.startswith('UPDATE "ratings_laddermatch"'):
            marks.append(sql)
            if len(marks) == 2:
                raise RuntimeError("the worker died here")
        return execute(sql, params, many, context)

    with connection.execute_wrapper(die_at_the_second_mark), pytest.raises(RuntimeError):
        ladder_ratings_apply(ladder_id=ladder.pk, batch=2)
    assert len(marks) == 2 and rated_in_order(ladder) == finished[:2]
    assert RatingChange.objects.filter(rated_match__ladder=ladder).count() == 4 and games_played(ladder) == 4
    report = selectors.ratings_rebuild(ladder=ladder)
    assert report.disagreements == [] and report.unrated_matches == sorted(finished[2:])
    assert ladder_ratings_apply(ladder_id=ladder.pk, batch=2) == 4
    assert rated_in_order(ladder) == finished
    assert (
        RatingChange.objects.filter(rated_match__ladder=ladder).count() == 12 and games_played(ladder) == 12
    )
    assert selectors.ratings_rebuild(ladder=ladder).ok


@pytest.mark.django_db
def test_a_burst_of_finishes_queues_one_run_that_rates_them_all(queued, django_capture_on_commit_callbacks):
    ladder = bot_ladder(entries=6)
    with django_capture_on_commit_callbacks(execute=True):
        finish_rounds(ladder, 1)  # three matches finish before any run
    assert queued == [ladder.pk]
    assert tasks.ladder_ratings_apply(ladder.pk) == 3
    with django_capture_on_commit_callbacks(execute=True):
        finish(start_round(ladder, seed=1))  # nothing is due any more: the next finish queues again
    assert queued == [ladder.pk, ladder.pk]


@pytest.mark.django_db
def test_two_finishes_whose_receivers_run_in_reverse_order_still_queue_a_run(queued):
    """Each sees the other unrated; only a match that finished earlier may defer the run."""
    ladder = bot_ladder()
    finished = finish_rounds(ladder, 2)
    for match_id in reversed(finished):
        match_finished.send(sender=Match, match_id=match_id)
    assert queued == [ladder.pk]


@pytest.mark.django_db
def test_the_sweep_queues_a_run_for_each_ladder_whose_run_was_lost(queued):
    ladder, _idle = bot_ladder(), bot_ladder(slug="idle")
    finish_rounds(ladder, 1)  # no receiver ran: as if its run had been lost
    assert tasks.ladders_enforce_deadlines() == 0 and queued == [ladder.pk]
    assert tasks.ladders_rate_missing() == [ladder.pk]
    ladder_ratings_apply(ladder_id=ladder.pk)
    assert tasks.ladders_rate_missing() == [] and queued == [ladder.pk, ladder.pk]


@pytest.mark.django_db
def test_rebuild_fails_when_the_rated_mark_disagrees_with_the_ratings():
    ladder = bot_ladder()
    finished = finish_rounds(ladder, 2)
    ladder_ratings_apply(ladder_id=ladder.pk)
    call_command("rebuild_ratings")
    LadderMatch.objects.filter(match_id=finished[0]).update(rated=False)
    report = selectors.ratings_rebuild(ladder=ladder)
    assert report.disagreements == [f"rs: match {finished[0]} is marked unrated but has a rating"]
    with pytest.raises(CommandError):
        call_command("rebuild_ratings")
