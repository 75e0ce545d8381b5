"""Uploaded bot versions on ladders: only a passed version enters, its owner chooses whether it
enters beside the bot's other versions or replaces them (their history stays), a worker plays its
ladder matches, they are rated, and the ladder's deadline sweep never forfeits a bot for a late
worker. Also the plain-text log downloads."""

from __future__ import annotations

import contextlib
import random
from datetime import timedelta

import pytest
from django.utils import timezone

from bots.models import Bot, BotSeat, BotVersion
from bots.services import bot_match_create, ladder_seats_bind
from core.errors import Rejected
from matches.models import Match
from ratings import services as ladders
from ratings.deadlines import ladder_deadlines_enforce
from ratings.models import LadderEntry, RatedMatch, RatingChange
from ratings.rounds import ladder_round_create
from tests.bots.conftest import program

pytestmark = pytest.mark.django_db
needs_root = pytest.mark.usefixtures("root_worker")


def upload(client, name="rando", source=None, game="rat-snake") -> int:
    response = client.post(
        "/api/bots/", {"name": name, "game": game, "source": source or program("random_bot")}, format="json"
    )
    assert response.status_code == 201, response.json()
    return response.json()["bot"]


def passed(bot_id: int, number: int) -> None:
    """Mark a version passed without playing its validation (tests of who may enter what)."""
    BotVersion.objects.filter(bot_id=bot_id, number=number).update(status=BotVersion.Status.PASSED)


def join(client, bot_id: int, *, ladder="duel", version=1, replace=False):
    return client.post(
        f"/api/bots/{bot_id}/ladders/",
        {"ladder": ladder, "version": version, "replace": replace},
        format="json",
    )


@pytest.fixture
def duel(db):
    return ladders.ladder_create(game_key="rat-snake", name="Duel", slug="duel", seats_per_match=2)


@needs_root
def test_uploaded_bots_join_through_the_api_play_their_rounds_on_the_worker_and_are_rated(
    users, client_for, duel, bot_settings, eager_celery, django_capture_on_commit_callbacks
):
    alice, bob = client_for(users["alice"]), client_for(users["bob"])
    with django_capture_on_commit_callbacks(execute=True):
        mine, theirs = upload(alice), upload(bob, name="other")
    assert join(alice, mine).status_code == 201
    assert join(bob, theirs).status_code == 201
    for _ in range(2):
        with django_capture_on_commit_callbacks(execute=True):
            played = ladder_round_create(ladder_id=duel.pk, rng=random.Random(3)).matches
        assert len(played) == 1
        match = Match.objects.get(pk=played[0].pk)
        assert match.is_finished
        seats = BotSeat.objects.filter(match=match).order_by("seat")
        assert {seat.version.bot_id for seat in seats} == {mine, theirs}
        assert all(seat.moves > 0 and not seat.forfeit_reason for seat in seats)
        assert RatedMatch.objects.filter(match=match).exists()
    entries = LadderEntry.objects.filter(ladder=duel)
    assert sorted(entries.values_list("games", flat=True)) == [2, 2]
    assert RatingChange.objects.filter(entry__ladder=duel).count() == 4
    board = client_for().get("/api/ladders/duel/leaderboard/").json()
    rows = board["results"] if isinstance(board, dict) else board
    assert {row["user"] for row in rows} == set(Bot.objects.values_list("account__username", flat=True))
    assert {row["competitor"] for row in rows} == {"rando v1 (alice)", "other v1 (bob)"}
    assert client_for().get(f"/api/bots/{mine}/").json()["stats"]["games"] == 3  # validation + 2 rounds


def test_a_new_version_enters_beside_the_old_or_replaces_it_and_the_old_history_stays(
    users, client_for, duel
):
    alice = client_for(users["alice"])
    bot_id = upload(alice)
    upload(alice)
    passed(bot_id, 1)
    passed(bot_id, 2)
    assert join(alice, bot_id, version=1).status_code == 201
    first = LadderEntry.objects.get(ladder=duel)
    first.games, first.mu = 7, 31.0
    first.save(update_fields=["games", "mu"])
    beside = join(alice, bot_id, version=2)
    assert beside.status_code == 201 and beside.json()["version"] == 2
    assert beside.json()["competitor"] == "rando v2 (alice)"
    assert LadderEntry.objects.filter(ladder=duel, left_at__isnull=True).count() == 2
    assert join(alice, bot_id, version=2).json()["code"] == "entry/already_joined"
    upload(alice)
    passed(bot_id, 3)
    replacing = join(alice, bot_id, version=3, replace=True)
    assert replacing.status_code == 201
    active = LadderEntry.objects.filter(ladder=duel, left_at__isnull=True)
    assert [entry.bot_version_id for entry in active] == [BotVersion.objects.get(bot_id=bot_id, number=3).pk]
    first.refresh_from_db()
    assert first.left_at is not None and (first.games, first.mu) == (7, 31.0)
    back = join(alice, bot_id, version=1)  # an old version comes back with its rating
    assert back.status_code == 201 and back.json()["entry"] == first.pk and back.json()["mu"] == 31.0


@pytest.mark.parametrize("status", [BotVersion.Status.VALIDATING, BotVersion.Status.FAILED])
def test_a_version_that_has_not_passed_never_enters(users, client_for, duel, status):
    alice = client_for(users["alice"])
    bot_id = upload(alice)
    BotVersion.objects.filter(bot_id=bot_id).update(status=status)
    response = join(alice, bot_id)
    assert response.status_code == 409 and response.json()["code"] == "bot/not_validated"
    assert not LadderEntry.objects.filter(ladder=duel).exists()


def test_who_may_enter_a_bot_where(users, client_for, duel, django_user_model):
    alice = client_for(users["alice"])
    bot_id = upload(alice)
    passed(bot_id, 1)
    assert join(client_for(users["bob"]), bot_id).json()["code"] == "bot/not_owner"
    assert join(client_for(), bot_id).status_code in (401, 403)
    ladders.ladder_create(game_key="rattlebones", name="Other", slug="other")
    assert join(alice, bot_id, ladder="other").json()["code"] == "entry/wrong_game"
    ladders.ladder_create(
        game_key="rat-snake", name="People", slug="people", seats_per_match=2, entry_policy="users"
    )
    assert join(alice, bot_id, ladder="people").json()["code"] == "ladder/users_only"
    assert join(alice, bot_id, ladder="nowhere").status_code == 404
    assert join(alice, bot_id, version=9).json()["code"] == "bot/version_not_found"
    bad = alice.post(f"/api/bots/{bot_id}/ladders/", {"ladder": "duel", "version": "x"}, format="json")
    assert bad.status_code == 400 and {"code", "detail"} <= set(bad.json())
    assert not LadderEntry.objects.exists()
    staff = django_user_model.objects.create_user("staff", password="x", is_staff=True)
    assert join(client_for(staff), bot_id).status_code == 201


def test_the_deadline_sweep_never_forfeits_an_uploaded_bot(users, client_for, duel):
    alice, bob = client_for(users["alice"]), client_for(users["bob"])
    for client, name in ((alice, "a"), (bob, "b")):
        bot_id = upload(client, name=name)
        passed(bot_id, 1)
        assert join(client, bot_id).status_code == 201
    # No on_commit callbacks run here: the worker never comes, as when it died.
    match = ladder_round_create(ladder_id=duel.pk, rng=random.Random(1)).matches[0]
    assert BotSeat.objects.filter(match=match).count() == 2
    late = timezone.now() + timedelta(seconds=duel.match_deadline_seconds + 60)
    assert ladder_deadlines_enforce(now=late) == []
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING
    assert list(LadderEntry.objects.values_list("no_shows", flat=True)) == [0, 0]


def test_only_passed_versions_are_bound_to_the_seats_their_accounts_hold(users, client_for, duel):
    alice = client_for(users["alice"])
    bot_id = upload(alice)
    version = BotVersion.objects.get(bot_id=bot_id)
    match = bot_match_create(versions=[version, version], validation=True)
    BotSeat.objects.filter(match=match).delete()
    with pytest.raises(Rejected) as refused:
        ladder_seats_bind(match=match, versions={0: version.pk})
    assert refused.value.code == "bot/not_validated"
    passed(bot_id, 1)
    other = upload(client_for(users["bob"]), name="other")
    passed(other, 1)
    with pytest.raises(Rejected) as wrong:
        ladder_seats_bind(match=match, versions={0: BotVersion.objects.get(bot_id=other).pk})
    assert wrong.value.code == "bot/wrong_seat"
    assert not BotSeat.objects.filter(match=match).exists()


def test_logs_download_as_plain_text_for_the_owner_and_staff_only(users, client_for, django_user_model):
    alice = client_for(users["alice"])
    bot_id = upload(alice)
    version = BotVersion.objects.get(bot_id=bot_id)
    version.status, version.log = BotVersion.Status.FAILED, "seat 0:\nforfeit: crash: the bot fell over"
    version.save(update_fields=["status", "log"])
    match = bot_match_create(versions=[version, version], validation=True)
    BotSeat.objects.filter(match=match, seat=1).update(forfeit_reason="timeout", log="Traceback: slow")
    own = alice.get(f"/api/bots/{bot_id}/versions/1/log/")
    assert own.status_code == 200 and own["Content-Type"].startswith("text/plain")
    assert "attachment" in own["Content-Disposition"]
    assert "the bot fell over" in own.content.decode() and "failed" in own.content.decode()
    seats = alice.get(f"/api/bots/{bot_id}/matches/{match.pk}/log/")
    assert seats.status_code == 200 and seats["Content-Type"].startswith("text/plain")
    text = seats.content.decode()
    assert "seat 1, version 1, forfeit: timeout\nTraceback: slow" in text and "seat 0" in text
    for stranger in (client_for(users["bob"]), client_for()):
        assert stranger.get(f"/api/bots/{bot_id}/versions/1/log/").status_code == 403
        refused = stranger.get(f"/api/bots/{bot_id}/matches/{match.pk}/log/")
        assert refused.status_code == 403 and refused.json()["code"] == "bot/not_owner"
    staff = django_user_model.objects.create_user("staff", password="x", is_staff=True)
    assert client_for(staff).get(f"/api/bots/{bot_id}/matches/{match.pk}/log/").status_code == 200
    missing = alice.get(f"/api/bots/{bot_id}/matches/{match.pk + 1000}/log/")
    assert missing.status_code == 404 and missing.json()["code"] == "bot/match_not_found"
    assert alice.get(f"/api/bots/{bot_id}/versions/4/log/").json()["code"] == "bot/version_not_found"


def _person_plays_out(
    match, person_user, capture, *, around_move=contextlib.nullcontext, after_move=None
) -> None:
    """The person at `match` plays random legal actions until it ends; the bot must have answered
    (on the worker) by the time the person's next turn is read."""
    from engines.registry import get_game
    from matches.selectors import match_snapshot
    from matches.services import match_submit_action

    person = match.seats.get(user=person_user).index
    game, rng = get_game("rat-snake"), random.Random(1)
    for _ in range(200):
        match.refresh_from_db()
        if match.is_finished:
            break
        snapshot = match_snapshot(match)
        assert person in game.decision(snapshot.state).seats, "the bot's worker left the bot's turn unplayed"
        action = rng.choice(game.legal_actions(snapshot.state, person))
        with around_move(), capture(execute=True):  # the move's on-commit work runs inside around_move
            match_submit_action(
                match_id=match.pk, user=person_user, action=action, expected_seq=snapshot.seq, seat=person
            )
        if after_move is not None:
            with capture(execute=True):
                after_move()
    assert match.is_finished


def _bot_moved_in_every_turn_of_its_own(match) -> None:
    """The game may end after one move of the bot's (a short Rat-Snake game): every action of its
    seat in the log is one the bot sent, and it never forfeited."""
    from matches.models import MatchEvent

    seat = BotSeat.objects.get(match=match)
    actions = match.events.filter(kind=MatchEvent.Kind.ACTION, seat=seat.seat).count()
    assert seat.moves == actions >= 1 and not seat.forfeit_reason


def _person_against_uploaded_bot(users, client_for, duel, capture):
    bob = client_for(users["bob"])
    with capture(execute=True):
        bot_id = upload(bob)
    assert join(bob, bot_id).status_code == 201
    assert client_for(users["alice"]).post("/api/ladders/duel/join/", {}, format="json").status_code == 201
    with capture(execute=True):
        return ladder_round_create(ladder_id=duel.pk, rng=random.Random(5)).matches[0]


@needs_root
def test_a_person_and_an_uploaded_bot_play_a_ladder_match_out_the_bot_answering_each_move_at_once(
    users, client_for, duel, bot_settings, eager_celery, django_capture_on_commit_callbacks
):
    match = _person_against_uploaded_bot(users, client_for, duel, django_capture_on_commit_callbacks)
    _person_plays_out(match, users["alice"], django_capture_on_commit_callbacks)
    _bot_moved_in_every_turn_of_its_own(match)
    assert RatedMatch.objects.filter(match=match).exists()


@needs_root
def test_with_entropy_taken_from_the_person_the_bots_seat_adds_its_part_and_the_match_is_played_out(
    users, client_for, duel, bot_settings, eager_celery, django_capture_on_commit_callbacks, settings
):
    """A person's ladder match with an uploaded bot takes the person's own part of the chance
    (docs/fairness.md): the bot's seat commits and reveals a part drawn from the seed, on the worker,
    each time the window waits for it, and the bot plays once the dice can roll."""
    import hashlib
    import secrets

    from matches.models import MatchEvent
    from matches.selectors import match_entropy_status
    from matches.services import match_entropy_submit

    settings.SNAKEPIT_CONTRIBUTED_ENTROPY = True
    capture = django_capture_on_commit_callbacks
    match = _person_against_uploaded_bot(users, client_for, duel, capture)
    assert match.entropy == Match.Entropy.CONTRIBUTED
    bot_seat = BotSeat.objects.get(match=match).seat
    person = match.seats.get(user=users["alice"]).index
    steps = lambda seat: list(  # noqa: E731
        match.events.filter(kind=MatchEvent.Kind.ENTROPY, seat=seat).values_list("payload__step", flat=True)
    )
    assert steps(bot_seat) == ["commit"]  # on the worker, as the match was made
    value = secrets.token_hex(32)
    with capture(execute=True):
        match_entropy_submit(
            match_id=match.pk, user=users["alice"], commitment=hashlib.sha256(value.encode()).hexdigest()
        )
    assert steps(bot_seat) == ["commit", "reveal"]  # the person's commitment opened the reveal window
    with capture(execute=True):
        match_entropy_submit(match_id=match.pk, user=users["alice"], value=value)
    assert steps(person) == ["commit", "reveal"]
    assert match_entropy_status(match)["phase"] == "done"  # the dice may roll, on both parts
    _person_plays_out(match, users["alice"], capture)
    _bot_moved_in_every_turn_of_its_own(match)


def test_a_ladder_table_of_bots_alone_draws_its_chance_from_the_seed(users, client_for, duel, settings):
    settings.SNAKEPIT_CONTRIBUTED_ENTROPY = True
    alice = client_for(users["alice"])
    bot_id = upload(alice)
    passed(bot_id, 1)
    assert join(alice, bot_id).status_code == 201
    ladders.ladder_join(ladder=duel, bot="random")
    match = ladder_round_create(ladder_id=duel.pk, rng=random.Random(5)).matches[0]
    assert match.entropy == Match.Entropy.SERVER


@needs_root
def test_with_the_broker_down_a_persons_move_still_lands_and_the_minute_sweep_asks_the_bot(
    users,
    client_for,
    duel,
    bot_settings,
    eager_celery,
    django_capture_on_commit_callbacks,
    monkeypatch,
    caplog,
):
    from kombu.exceptions import OperationalError

    from bots import tasks
    from engines.registry import get_game
    from matches.selectors import match_snapshot

    match = _person_against_uploaded_bot(users, client_for, duel, django_capture_on_commit_callbacks)

    def refused(*args, **kwargs):
        raise OperationalError("[Errno 111] Connection refused")

    @contextlib.contextmanager
    def broker_down():
        with monkeypatch.context() as patched:
            patched.setattr(tasks.bot_match_play, "delay", refused)
            yield

    bot_seat, left_to_the_sweep = BotSeat.objects.get(match=match).seat, []

    def minute_sweep():
        match.refresh_from_db()
        if (
            not match.is_finished
            and bot_seat in get_game("rat-snake").decision(match_snapshot(match).state).seats
        ):
            left_to_the_sweep.append(match_snapshot(match).seq)  # the person's move could not queue the bot
        assert tasks.bots_resume_stalled()["matches"] == ([] if match.is_finished else [match.pk])

    _person_plays_out(
        match,
        users["alice"],
        django_capture_on_commit_callbacks,
        around_move=broker_down,
        after_move=minute_sweep,
    )
    _bot_moved_in_every_turn_of_its_own(match)
    assert caplog.text.count("the minute sweep will") == len(left_to_the_sweep)
