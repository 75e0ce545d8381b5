"""Projections kept current one event at a time: after every action the stored rows equal a rebuild
from the whole log, the current state equals a full replay, whichever way the state was found (this
process's cache, an older cached state or a snapshot and the events after it, or the log alone); a
cached state older than the log is never taken for the current one, a rolled-back action leaves no
state behind, a snapshot is checked against the log, and an action writes only the rows it changed."""

from __future__ import annotations

import itertools

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import ApplicationError
from tournaments import selectors, services
from tournaments.formats import lifecycle
from tournaments.models import (
    Tournament,
    TournamentEvent,
    TournamentSnapshot,
    TournamentStanding,
    TournamentTable,
)

pytestmark = pytest.mark.django_db

_numbers = itertools.count(1)

FORMATS = [
    {"format": "swiss"},
    {"format": "round_robin"},
    {"format": "single_elimination"},
    {"format": "double_elimination"},
    {"format": "pods", "seats_per_match": 3, "config": {"rounds": 2}},
    {"format": "groups_playoffs", "config": {"groups": 2, "advance_per_group": 2}},
]


def running(django_user_model, players: int, **setup) -> tuple[Tournament, object, dict]:
    """A running tournament played at tables, built through the services: (it, organiser, users by
    player id)."""
    number = next(_numbers)
    organiser = django_user_model.objects.create_user(f"organiser-{number}")
    slug = f"projection-{number}"
    services.tournament_create(
        organiser=organiser,
        name=slug,
        slug=slug,
        game_key="rat-snake",
        result_mode="table",
        seeding="manual",
        **setup,
    )
    services.tournament_open(slug=slug, user=organiser)
    users = {}
    for k in range(players):
        user = django_user_model.objects.create_user(f"player-{number}-{k}")
        users[services.tournament_register(slug=slug, user=user).player] = user
    services.tournament_start(slug=slug, user=organiser)
    return Tournament.objects.get(slug=slug), organiser, users


def assert_projection_is_the_logs(tournament: Tournament) -> None:
    tournament = Tournament.objects.get(pk=tournament.pk)
    assert selectors.tournament_projection_stored(tournament) == selectors.tournament_projection(tournament)
    assert selectors.tournament_head(tournament).state == selectors.tournament_state(tournament)


OPERATIONS = (
    "report",
    "report",
    "confirm",
    "confirm",
    "dispute",
    "correct",
    "drop",
    "late",
    "forget",
    "next_round",
    "finish_round",
    "finish_round",
    "finish_round",
)


def steps(tournament: Tournament, organiser, users: dict, django_user_model, op: tuple) -> list:
    """The service calls one operation makes, their targets picked by the numbers in `op` among the
    current tables and players. "finish_round" settles every undecided table (a report and a
    confirmation, or the organiser's correction) and asks for the next round."""
    kind, x, y, z = op
    slug = tournament.slug
    state = selectors.tournament_state(tournament)
    tables = list(state.tables)
    undecided = [t for t in tables if not t.decided]
    players = sorted(users)

    def ranks(table, z=z):
        if len(table.players) == 2:
            return [[1, 2], [2, 1], [1, 1]][z % 3]
        return [1 + (z + k) % len(table.players) for k in range(len(table.players))]

    def player(table, k):
        return users[table.players[k % len(table.players)]]

    def report(table, k, z=z):
        return lambda: services.tournament_report(
            slug=slug, user=player(table, k), match_key=table.match_key, ranks=ranks(table, z)
        )

    def confirm(table, k):
        return lambda: services.tournament_confirm(
            slug=slug, user=player(table, k), match_key=table.match_key
        )

    def correct(table, z=z):
        return lambda: services.tournament_correct(
            slug=slug, user=organiser, match_key=table.match_key, ranks=ranks(table, z), reason="judge"
        )

    def late():
        user = django_user_model.objects.create_user(f"late-{next(_numbers)}")
        users[services.tournament_register(slug=slug, user=user).player] = user

    pick = undecided[x % len(undecided)] if undecided else None
    if kind == "report" and pick:
        return [report(pick, y)]
    if kind == "confirm" and pick:
        return [confirm(pick, y)]
    if kind == "dispute" and pick:
        return [
            lambda: services.tournament_dispute(
                slug=slug, user=player(pick, y), match_key=pick.match_key, reason="not so"
            )
        ]
    if kind == "correct" and tables:
        return [correct(tables[x % len(tables)])]
    if kind == "drop":
        return [lambda: services.tournament_drop(slug=slug, user=organiser, player=players[x % len(players)])]
    if kind == "late":
        return [late]
    if kind == "forget":
        return [selectors.tournament_heads_forget]  # as a process that has not seen this tournament yet
    if kind == "next_round":
        return [lambda: services.tournament_next_round(slug=slug, user=organiser)]
    if kind == "finish_round":
        settle = []
        for n, table in enumerate(undecided):
            if (x + n) % 3:
                settle += [report(table, y + n, z + n), confirm(table, y + n + 1)]
            else:
                settle.append(correct(table, z + n))
        return settle + [lambda: services.tournament_next_round(slug=slug, user=organiser)]
    return []


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    setup=st.sampled_from(FORMATS),
    players=st.integers(4, 7),
    snapshot_every=st.sampled_from([2, 5, 100]),
    ops=st.lists(
        st.tuples(st.sampled_from(OPERATIONS), st.integers(0, 50), st.integers(0, 50), st.integers(0, 50)),
        min_size=6,
        max_size=16,
    ),
)
def test_random_actions_keep_the_projection_equal_to_a_rebuild_after_every_step(
    django_user_model, django_capture_on_commit_callbacks, monkeypatch, setup, players, snapshot_every, ops
):
    monkeypatch.setattr(services, "SNAPSHOT_EVERY", snapshot_every)
    with django_capture_on_commit_callbacks(execute=True):
        tournament, organiser, users = running(django_user_model, players, **setup)
    assert_projection_is_the_logs(tournament)
    for op in ops:
        for step in steps(tournament, organiser, users, django_user_model, op):
            count = TournamentEvent.objects.filter(tournament=tournament).count()
            before = selectors.tournament_projection_stored(tournament)
            try:
                with django_capture_on_commit_callbacks(
                    execute=True
                ):  # each action commits, as in production
                    step()
            except ApplicationError as refused:
                assert 400 <= refused.status < 500, refused
                assert TournamentEvent.objects.filter(tournament=tournament).count() == count, (
                    "a refusal writes nothing"
                )
                assert selectors.tournament_projection_stored(tournament) == before
            assert_projection_is_the_logs(tournament)
    assert selectors.tournament_snapshot_problems(Tournament.objects.get(pk=tournament.pk)) == []


def test_a_long_seeded_swiss_stays_equal_to_its_rebuild_through_every_kind_of_action(
    django_user_model, django_capture_on_commit_callbacks, monkeypatch
):
    """Not left to chance: a Swiss of 9 played to its end, every table reported, some disputed and
    corrected, a drop and a late entry, the cache forgotten now and then, snapshots every 7 events."""
    monkeypatch.setattr(services, "SNAPSHOT_EVERY", 7)
    with django_capture_on_commit_callbacks(execute=True):
        tournament, organiser, users = running(django_user_model, 9, format="swiss")
    slug = tournament.slug
    step = 0
    while Tournament.objects.get(pk=tournament.pk).status != Tournament.Status.FINISHED:
        step += 1
        with django_capture_on_commit_callbacks(execute=True):
            for table in [t for t in selectors.tournament_state(tournament).tables if not t.decided]:
                first, second = (users[p] for p in table.players)
                services.tournament_report(slug=slug, user=first, match_key=table.match_key, ranks=[1, 2])
                if step % 2:
                    services.tournament_dispute(
                        slug=slug, user=second, match_key=table.match_key, reason="no"
                    )
                    services.tournament_correct(
                        slug=slug, user=organiser, match_key=table.match_key, ranks=[1, 1], reason="judge"
                    )
                else:
                    services.tournament_confirm(slug=slug, user=second, match_key=table.match_key)
                assert_projection_is_the_logs(tournament)
            if step == 1:
                services.tournament_drop(slug=slug, user=organiser, player=sorted(users)[0])
                late = django_user_model.objects.create_user("late-comer")
                users[services.tournament_register(slug=slug, user=late).player] = late
            if step == 2:
                selectors.tournament_heads_forget()
            services.tournament_next_round(slug=slug, user=organiser)
        assert_projection_is_the_logs(tournament)
    assert step >= 4
    assert TournamentSnapshot.objects.filter(tournament=tournament).count() == services.SNAPSHOTS_KEPT
    call_command("rebuild_tournaments", "--tournament", slug)


def test_a_cached_state_older_than_the_log_is_never_taken_for_the_current_one(
    django_user_model, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        tournament, organiser, users = running(django_user_model, 4, format="swiss")
        first = selectors.tournament_state(tournament).tables[0]
        services.tournament_report(
            slug=tournament.slug, user=users[first.players[0]], match_key=first.match_key, ranks=[1, 2]
        )
    cached = selectors.tournament_head(tournament)
    assert selectors.tournament_head(tournament) is cached, "the committed state is this process's cache"
    # Another process confirms: its commit never reaches this process's cache.
    services.tournament_confirm(slug=tournament.slug, user=users[first.players[1]], match_key=first.match_key)
    head = selectors.tournament_head(tournament)
    assert head.seq == cached.seq + 1
    assert lifecycle.table(head.state, first.match_key)["status"] == "decided"
    assert head.state == selectors.tournament_state(tournament)
    assert_projection_is_the_logs(tournament)


def test_a_rolled_back_action_leaves_no_state_behind(
    django_user_model, django_capture_on_commit_callbacks, monkeypatch
):
    with django_capture_on_commit_callbacks(execute=True):
        tournament, organiser, users = running(django_user_model, 4, format="swiss")
    first, second = selectors.tournament_state(tournament).tables[:2]
    seq = selectors.tournament_head(tournament).seq
    project = services._Change.project

    def project_then_fail(change):
        project(change)
        raise RuntimeError("the database went away after the projection")

    monkeypatch.setattr(services._Change, "project", project_then_fail)
    with pytest.raises(RuntimeError), django_capture_on_commit_callbacks(execute=True):
        services.tournament_report(
            slug=tournament.slug, user=users[first.players[0]], match_key=first.match_key, ranks=[1, 2]
        )
    monkeypatch.setattr(services._Change, "project", project)
    head = selectors.tournament_head(tournament)
    assert head.seq == seq and lifecycle.table(head.state, first.match_key)["status"] == "open"
    # The next event takes the same number, and means something else.
    with django_capture_on_commit_callbacks(execute=True):
        services.tournament_report(
            slug=tournament.slug, user=users[second.players[0]], match_key=second.match_key, ranks=[2, 1]
        )
    head = selectors.tournament_head(tournament)
    assert head.seq == seq + 1
    assert lifecycle.table(head.state, first.match_key)["status"] == "open"
    assert lifecycle.table(head.state, second.match_key)["status"] == "reported"
    assert_projection_is_the_logs(tournament)


def test_a_state_is_rebuilt_from_the_latest_snapshot_which_the_rebuild_checks(
    django_user_model, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        tournament, organiser, users = running(django_user_model, 4, format="swiss")
    paired = TournamentEvent.objects.get(tournament=tournament, kind="round_paired")
    snapshot = TournamentSnapshot.objects.get(tournament=tournament, seq=paired.seq)
    assert snapshot.version == lifecycle.STATE_JSON_VERSION
    assert lifecycle.state_from_json(snapshot.state) == selectors.tournament_state(tournament)
    # Forge the snapshot: a process without the state cached now starts from it (proof that it is
    # read), and rebuild_tournaments, which checks snapshots against the log, fails.
    forged = dict(snapshot.state, dropped=[[sorted(users)[0], 1]])
    TournamentSnapshot.objects.filter(pk=snapshot.pk).update(state=forged)
    selectors.tournament_heads_forget()
    assert selectors.tournament_head(tournament).state.dropped == ((sorted(users)[0], 1),)
    with pytest.raises(CommandError):
        call_command("rebuild_tournaments", "--tournament", tournament.slug)
    # A snapshot of another version of the JSON form is not read at all.
    TournamentSnapshot.objects.filter(pk=snapshot.pk).update(version=lifecycle.STATE_JSON_VERSION + 1)
    selectors.tournament_heads_forget()
    assert selectors.tournament_head(tournament).state == selectors.tournament_state(tournament)
    call_command("rebuild_tournaments", "--tournament", tournament.slug)


def test_an_action_writes_only_the_rows_it_changed(django_user_model, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        tournament, organiser, users = running(django_user_model, 8, format="swiss")
    slug = tournament.slug

    def rows():
        return (
            {
                row.match_key: (row.pk, row.status)
                for row in TournamentTable.objects.filter(tournament=tournament)
            },
            {
                row.player: (row.pk, row.rank, row.row)
                for row in TournamentStanding.objects.filter(tournament=tournament)
            },
        )

    first = selectors.tournament_state(tournament).tables[0]
    tables, standings = rows()
    with django_capture_on_commit_callbacks(execute=True):
        services.tournament_report(
            slug=slug, user=users[first.players[0]], match_key=first.match_key, ranks=[1, 2]
        )
    after_tables, after_standings = rows()
    assert after_standings == standings, "a report changes no standing"
    assert {key for key in tables if after_tables[key] != tables[key]} == {first.match_key}
    assert after_tables[first.match_key][0] == tables[first.match_key][0], "the table row is updated in place"

    with django_capture_on_commit_callbacks(execute=True):
        services.tournament_confirm(slug=slug, user=users[first.players[1]], match_key=first.match_key)
    confirmed_tables, confirmed_standings = rows()
    rewritten = {player for player in standings if confirmed_standings[player][0] != standings[player][0]}
    new_numbers = {player for player in standings if confirmed_standings[player][2] != standings[player][2]}
    new_rank = {player for player in standings if confirmed_standings[player][1] != standings[player][1]}
    # The two players' numbers changed (and their opponents' Buchholz); others only moved a place,
    # which sets their rank column and leaves their row alone.
    assert rewritten == new_numbers and set(first.players) <= new_numbers
    assert new_rank - new_numbers, "some players only moved"
    assert len(new_numbers | new_rank) < len(standings), "some players did not move at all"
    assert {key for key in tables if confirmed_tables[key] != after_tables[key]} == {first.match_key}
    assert_projection_is_the_logs(tournament)
