"""Ladders end to end through the services: rounds of bot matches, exactly-once rating, rebuild,
seasons, deadlines, entry rules."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import IntegrityError, transaction
from django.utils import timezone

from core.errors import ApplicationError
from engines.registry import game_keys
from matches.models import Match
from ratings import selectors, services, skill, tasks
from ratings.deadlines import ladder_deadlines_enforce
from ratings.models import Ladder, LadderMatch, RatedMatch
from ratings.rate import ladder_match_rate
from ratings.rounds import ladder_round_create
from ratings.seasons import ladder_season_close

pytestmark = pytest.mark.django_db


def bot_ladder(slug="rs", seats=2, bots=("random", "heuristic"), **kwargs):
    ladder = services.ladder_create(
        game_key="rat-snake", name=slug, slug=slug, seats_per_match=seats, options={"passes": 1}, **kwargs
    )
    for bot in bots:
        services.ladder_join(ladder=ladder, bot=bot)
    return ladder


def play_rounds(ladder, rounds, capture, seed=0):
    rng = random.Random(seed)
    for _ in range(rounds):
        with capture(execute=True):
            ladder_round_create(ladder_id=ladder.pk, rng=rng)


def test_every_registered_game_gets_an_open_ladder_with_its_bots(db):
    ladders = services.ladders_ensure_for_games()
    assert sorted(ladder.game for ladder in ladders) == game_keys()
    again = services.ladders_ensure_for_games()
    assert [ladder.pk for ladder in again] == [ladder.pk for ladder in ladders]
    rat_snake = Ladder.objects.get(game="rat-snake")
    assert sorted(rat_snake.entries.values_list("bot", flat=True)) == ["heuristic", "random"]
    for ladder in ladders:  # enough entries for a table of every game
        assert ladder.entries.count() >= ladder.seats_per_match


def test_a_ladder_is_scheduled_in_beat(db):
    from django_celery_beat.models import PeriodicTask

    ladder = bot_ladder(round_interval_seconds=420)
    task = PeriodicTask.objects.get(name="ladder round: rs")
    assert task.task == "ratings.tasks.ladder_play_round" and task.interval.every == 420 and task.enabled
    assert f'"ladder_id": {ladder.pk}' in task.kwargs


def test_rounds_play_bot_matches_and_rate_each_exactly_once(eager_celery, django_capture_on_commit_callbacks):
    ladder = bot_ladder(seats=2, bots=("random", "heuristic"))
    play_rounds(ladder, 3, django_capture_on_commit_callbacks)
    matches = Match.objects.filter(ladder_match__round__ladder=ladder)
    assert matches.count() == 3 and all(match.is_finished for match in matches)
    assert RatedMatch.objects.filter(ladder=ladder).count() == 3
    entries = list(ladder.entries.all())
    assert all(entry.games == 3 for entry in entries)
    assert all(entry.sigma < skill.Skill.initial().sigma for entry in entries)
    history = selectors.entry_history(entry=entries[0])
    assert history.count() == 3
    newest = history.first()
    assert newest.mu_after == pytest.approx(entries[0].mu)


def test_rating_a_match_twice_or_concurrently_applies_it_once(
    eager_celery, django_capture_on_commit_callbacks
):
    ladder = bot_ladder()
    play_rounds(ladder, 1, django_capture_on_commit_callbacks)
    match = Match.objects.get(ladder_match__round__ladder=ladder)
    before = {entry.pk: (entry.mu, entry.sigma, entry.games) for entry in ladder.entries.all()}
    for _ in range(2):  # a duplicated task, a retry
        tasks.match_rate(match.pk)
        ladder_match_rate(match_id=match.pk)
    assert {entry.pk: (entry.mu, entry.sigma, entry.games) for entry in ladder.entries.all()} == before
    with pytest.raises(IntegrityError), transaction.atomic():  # the database itself refuses a second row
        RatedMatch.objects.create(match=match, ladder=ladder, season=1)


def test_entries_still_playing_sit_the_next_round_out(db):
    ladder = services.ladder_create(game_key="rat-snake", name="people", slug="people")
    from django.contrib.auth import get_user_model

    users = [get_user_model().objects.create_user(name) for name in ("ann", "ben", "cat")]
    for user in users:
        services.ladder_join(ladder=ladder, user=user)
    first = ladder_round_create(ladder_id=ladder.pk, rng=random.Random(1))
    assert len(first.matches) == 1 and len(first.round.explanation["sat_out"]) == 1
    second = ladder_round_create(ladder_id=ladder.pk, rng=random.Random(2))
    assert second.matches == []  # one entry free: not enough for a match


def test_rebuild_equals_live_and_catches_a_tampered_rating(eager_celery, django_capture_on_commit_callbacks):
    ladder = bot_ladder(seats=2, bots=("random", "heuristic"))
    other = bot_ladder(slug="rs3", seats=3, bots=("random", "heuristic", "heuristic", "random"))
    play_rounds(ladder, 3, django_capture_on_commit_callbacks)
    play_rounds(other, 2, django_capture_on_commit_callbacks, seed=5)
    report = selectors.ratings_rebuild()
    assert report.ok and report.matches_rated == 5
    call_command("rebuild_ratings")
    entry = ladder.entries.first()
    entry.mu += 0.5
    entry.save()
    report = selectors.ratings_rebuild()
    assert not report.ok and str(entry.pk) in " ".join(report.disagreements)
    with pytest.raises(CommandError):
        call_command("rebuild_ratings")


def test_a_finished_match_whose_rating_task_was_lost_is_reported_and_rated_once(
    eager_celery, django_capture_on_commit_callbacks, monkeypatch
):
    ladder = bot_ladder()
    monkeypatch.setattr(
        tasks.ladder_ratings_apply, "delay", lambda ladder_id: None
    )  # the broker lost the message
    play_rounds(ladder, 1, django_capture_on_commit_callbacks)
    assert selectors.ratings_rebuild().unrated_matches
    call_command("rebuild_ratings", "--rate-missing")
    assert RatedMatch.objects.filter(ladder=ladder).count() == 1
    assert selectors.ratings_rebuild().ok


def test_closing_a_season_archives_the_leaderboard_and_resets_unless_carried_over(
    eager_celery, django_capture_on_commit_callbacks
):
    ladder = bot_ladder()
    play_rounds(ladder, 2, django_capture_on_commit_callbacks)
    top = selectors.leaderboard(ladder=ladder)[0]
    archived = ladder_season_close(ladder_id=ladder.pk)
    assert archived.number == 1 and archived.standings[0]["competitor"] == top["competitor"]
    ladder.refresh_from_db()
    assert ladder.season == 2
    initial = skill.Skill.initial()
    for entry in ladder.entries.all():  # the documented reset: mu kept, sigma inflated, games from 0
        closed = next(row for row in archived.standings if row["entry"] == entry.pk)
        assert entry.season == 2 and entry.games == 0 and entry.mu == closed["mu"]
        assert closed["sigma"] < entry.sigma <= initial.sigma
        assert (
            entry.sigma
            == skill.season_reset(skill.Skill(closed["mu"], closed["sigma"]), initial=initial).sigma
        )
    play_rounds(ladder, 1, django_capture_on_commit_callbacks)
    assert selectors.ratings_rebuild(ladder=ladder).ok
    carried = bot_ladder(slug="carried", carry_over=True)
    play_rounds(carried, 1, django_capture_on_commit_callbacks)
    before = {entry.pk: (entry.mu, entry.sigma, entry.games) for entry in carried.entries.all()}
    ladder_season_close(ladder_id=carried.pk)
    assert {entry.pk: (entry.mu, entry.sigma, entry.games) for entry in carried.entries.all()} == before


def test_a_seat_that_misses_its_move_deadline_forfeits_and_the_match_is_rated(
    eager_celery, django_capture_on_commit_callbacks
):
    from django.contrib.auth import get_user_model

    ladder = services.ladder_create(game_key="rat-snake", name="mixed", slug="mixed", options={"passes": 1})
    person = get_user_model().objects.create_user("sleepy")
    services.ladder_join(ladder=ladder, user=person)
    services.ladder_join(ladder=ladder, bot="heuristic")
    with django_capture_on_commit_callbacks(execute=True):
        result = ladder_round_create(ladder_id=ladder.pk, rng=random.Random(3))
    match = result.matches[0]
    assert ladder_deadlines_enforce() == []  # not late yet
    later = timezone.now() + timedelta(seconds=ladder.move_deadline_seconds + 1)
    with django_capture_on_commit_callbacks(execute=True):
        assert ladder_deadlines_enforce(now=later) == [match.pk]
    match.refresh_from_db()
    forfeit = match.events.get(kind="forfeit")
    assert "move deadline" in forfeit.payload["reason"]
    assert match.is_finished and RatedMatch.objects.filter(match=match).exists()
    seat_of_person = match.seats.get(user=person).index
    assert match.outcome["ranks"][seat_of_person] == 2


def test_entry_rules(db, django_user_model):
    person = django_user_model.objects.create_user("pat")
    bots_only = services.ladder_create(game_key="rat-snake", name="bots", slug="bots", entry_policy="bots")
    with pytest.raises(ApplicationError) as refused:
        services.ladder_join(ladder=bots_only, user=person)
    assert refused.value.code == "ladder/bots_only"
    open_ladder = services.ladder_create(game_key="rat-snake", name="open", slug="open")
    entry = services.ladder_join(ladder=open_ladder, user=person)
    with pytest.raises(ApplicationError) as refused:
        services.ladder_join(ladder=open_ladder, user=person)
    assert refused.value.code == "entry/already_joined"
    entry.mu = 30.0
    entry.save()
    services.ladder_leave(ladder=open_ladder, user=person)
    assert selectors.leaderboard(ladder=open_ladder) == []
    back = services.ladder_join(ladder=open_ladder, user=person)
    assert back.pk == entry.pk and back.mu == 30.0
    with pytest.raises(ApplicationError) as refused:
        services.ladder_create(game_key="rat-snake", name="open", slug="open")
    assert refused.value.code == "ladder/slug_taken"
    with pytest.raises(ApplicationError) as refused:
        services.ladder_create(game_key="rat-snake", name="x", rating_model="elo")
    assert refused.value.code == "ladder/unknown_rating_model"


def test_the_leaderboard_orders_by_ordinal_and_marks_provisional_entries(
    eager_celery, django_capture_on_commit_callbacks
):
    ladder = bot_ladder()
    play_rounds(ladder, 2, django_capture_on_commit_callbacks)
    rows = selectors.leaderboard(ladder=ladder)
    assert [row["ordinal"] for row in rows] == sorted((row["ordinal"] for row in rows), reverse=True)
    assert all(row["provisional"] for row in rows)  # two games are too few to trust
    assert LadderMatch.objects.filter(round__ladder=ladder).count() == 2
