"""Contributed entropy in the store (issue #23): seats commit and reveal before the first chance event,
chance is drawn from the seed mixed with every part, a lapse defaults a part and is recorded, and
`verify` re-derives every draw; voiding a match appends an event and refuses a second time."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from core.errors import ApplicationError
from engines.chance import draw
from engines.entropy import chance_key, lapse_part, part_commitment
from engines.fairness import verify_log
from engines.protocol import Event
from engines.registry import get_game
from matches import selectors, services, store, tasks
from matches.live import live_forget
from matches.models import Match
from matches.services import SeatSpec

SEED = b"fixed seed for the entropy tests"
NO_BETS = {"side_bets": False}


def value_of(name: str) -> str:
    return hashlib.sha256(name.encode()).hexdigest()


@pytest.fixture(autouse=True)
def entropy_for_people(settings):
    settings.SNAKEPIT_CONTRIBUTED_ENTROPY = True  # the service's default, which tests/conftest.py turns off


def people_match(users, *names, bots=(), seed=SEED):
    seats = [SeatSpec(user=users[name]) for name in names] + [SeatSpec(bot=bot) for bot in bots]
    return services.match_create(
        game_key="rat-snake", seats=seats, options=NO_BETS, created_by=users[names[0]], seed=seed
    )


def kinds(match):
    return list(match.events.order_by("seq").values_list("kind", flat=True))


def finish_by_forfeit(match, users, name):
    services.match_forfeit(match_id=match.pk, seat=0, reason="resigned", user=users[name])
    match.refresh_from_db()


@pytest.mark.django_db
class TestCommitAndReveal:
    def test_people_take_entropy_by_default_and_chance_waits_for_every_part(self, users):
        match = people_match(users, "alice", "bob")
        assert match.entropy == "contributed"
        assert "chance" not in kinds(match)
        status = selectors.match_entropy_status(match)
        assert status["phase"] == "commit" and status["awaited"] == [0, 1]
        assert status["deadline"] == match.created_at + timedelta(seconds=300)

    def test_a_match_of_bots_keeps_the_seed_alone_unless_asked(self, users):
        match = services.match_create(
            game_key="rat-snake", seats=[SeatSpec(bot="random"), SeatSpec(bot="random")], bots_play="now"
        )
        assert match.entropy == "server"
        asked = services.match_create(
            game_key="rat-snake",
            seats=[SeatSpec(bot="random")] * 2,
            bots_play="now",
            entropy="contributed",
        )
        steps = [row.payload["step"] for row in asked.events.filter(kind="entropy").order_by("seq")]
        assert steps == ["commit", "commit", "reveal", "reveal"]
        asked.refresh_from_db()
        assert asked.is_finished and selectors.match_verify(asked).verified

    def test_the_whole_exchange_draws_from_the_seed_and_every_part(self, users):
        match = people_match(users, "alice", "bob")
        alice, bob = value_of("alice"), value_of("bob")
        services.match_entropy_submit(
            match_id=match.pk, user=users["alice"], commitment=part_commitment(alice)
        )
        with pytest.raises(ApplicationError) as early:
            services.match_entropy_submit(match_id=match.pk, user=users["alice"], value=alice)
        assert early.value.code == "entropy/not_revealing"
        services.match_entropy_submit(match_id=match.pk, user=users["bob"], commitment=part_commitment(bob))
        services.match_entropy_submit(match_id=match.pk, user=users["alice"], value=alice)
        assert "chance" not in kinds(match), "bob has not revealed yet"
        result = services.match_entropy_submit(match_id=match.pk, user=users["bob"], value=bob)
        first_chance = next(row for row in result.appended if row.kind == "chance")
        key = chance_key(SEED, [alice, bob])
        game = get_game("rat-snake")
        state = game.new_state(seats=2, options=NO_BETS)
        assert first_chance.payload == draw(key, first_chance.seq, game.chance_request(state))
        finish_by_forfeit(match, users, "alice")
        verification = selectors.match_verify(match)
        assert verification.verified, verification.problems
        assert verification.entropy == "contributed" and verification.parts == (alice, bob)
        assert verification.chance_events_checked >= 1
        call_command("replay_matches")  # entropy steps are the store's: the engine never sees them
        call_command("verify_matches")

    def test_a_wrong_reveal_or_a_bad_commitment_is_refused_and_writes_nothing(self, users):
        match = people_match(users, "alice", "bob")
        before = kinds(match)
        for commitment, code in (("not hex", "entropy/malformed"), ("ab" * 31, "entropy/malformed")):
            with pytest.raises(ApplicationError) as refused:
                services.match_entropy_submit(match_id=match.pk, user=users["alice"], commitment=commitment)
            assert refused.value.code == code and refused.value.status == 422
        services.match_entropy_submit(
            match_id=match.pk, user=users["alice"], commitment=part_commitment(value_of("a"))
        )
        with pytest.raises(ApplicationError) as copied:
            services.match_entropy_submit(
                match_id=match.pk, user=users["bob"], commitment=part_commitment(value_of("a"))
            )
        assert copied.value.code == "entropy/commitment_reused"
        services.match_entropy_submit(
            match_id=match.pk, user=users["bob"], commitment=part_commitment(value_of("b"))
        )
        with pytest.raises(ApplicationError) as wrong:
            services.match_entropy_submit(match_id=match.pk, user=users["alice"], value=value_of("b"))
        assert wrong.value.code == "entropy/wrong_value"
        with pytest.raises(ApplicationError) as outsider:
            services.match_entropy_submit(match_id=match.pk, user=users["carol"], value=value_of("c"))
        assert outsider.value.code == "seat/not_yours"
        assert len(kinds(match)) == len(before) + 2

    def test_a_seat_with_a_bot_opponent_sees_the_bot_commit_at_once_and_reveal_after_it(self, users):
        match = people_match(users, "alice", bots=("random",))
        rows = list(match.events.order_by("seq"))
        assert [(row.seat, row.payload["step"]) for row in rows] == [(1, "commit")]
        services.match_entropy_submit(
            match_id=match.pk, user=users["alice"], commitment=part_commitment(value_of("a"))
        )
        steps = [
            (row.seat, row.payload.get("step")) for row in match.events.filter(kind="entropy").order_by("seq")
        ]
        assert steps == [(1, "commit"), (0, "commit"), (1, "reveal")]


@pytest.mark.django_db
class TestLapse:
    def test_nothing_lapses_before_the_deadline(self, users):
        match = people_match(users, "alice", "bob")
        assert store.match_entropy_lapse(match_id=match.pk, now=timezone.now()) == []

    def test_a_seat_that_never_reveals_gets_the_default_part_and_the_match_goes_on(self, users):
        match = people_match(users, "alice", "bob")
        alice, bob = value_of("alice"), value_of("bob")
        services.match_entropy_submit(
            match_id=match.pk, user=users["alice"], commitment=part_commitment(alice)
        )
        services.match_entropy_submit(match_id=match.pk, user=users["bob"], commitment=part_commitment(bob))
        services.match_entropy_submit(match_id=match.pk, user=users["alice"], value=alice)
        later = timezone.now() + timedelta(seconds=301)
        swept = tasks.matches_resume_stalled(now=later)
        assert swept == []
        lapse = match.events.get(kind="entropy", seat=1, payload__step="lapse")
        commitments = [part_commitment(alice), part_commitment(bob)]
        assert lapse.payload == {"step": "lapse", "missed": "reveal", "value": lapse_part(1, commitments)}
        assert "chance" in kinds(match), "the lapse let chance play on"
        finish_by_forfeit(match, users, "alice")
        verification = selectors.match_verify(match)
        assert verification.verified, verification.problems
        assert verification.parts == (alice, lapse_part(1, commitments))
        assert verification.lapsed == ((1, "reveal"),)

    def test_when_nobody_commits_every_part_defaults_and_the_match_goes_on(self, users):
        match = people_match(users, "alice", "bob")
        rows = store.match_entropy_lapse(match_id=match.pk, now=timezone.now() + timedelta(seconds=301))
        assert [row.payload["step"] for row in rows[:2]] == ["lapse", "lapse"]
        assert any(row.kind == "chance" for row in rows)
        finish_by_forfeit(match, users, "alice")
        verification = selectors.match_verify(match)
        assert verification.verified and verification.lapsed == ((0, "commit"), (1, "commit"))

    def test_a_seat_that_never_commits_lapses_at_the_commit_deadline(self, users):
        match = people_match(users, "alice", "bob")
        services.match_entropy_submit(
            match_id=match.pk, user=users["alice"], commitment=part_commitment(value_of("a"))
        )
        rows = store.match_entropy_lapse(match_id=match.pk, now=timezone.now() + timedelta(seconds=301))
        assert [(row.seat, row.payload) for row in rows] == [(1, {"step": "lapse", "missed": "commit"})]
        status = selectors.match_entropy_status(match)
        assert status["phase"] == "reveal" and status["awaited"] == [0]


@pytest.mark.django_db
class TestVerifyCatchesTampering:
    def test_a_chance_outcome_drawn_from_the_seed_alone_fails_verification(self, users):
        match = people_match(users, "alice", "bob")
        for name in ("alice", "bob"):
            services.match_entropy_submit(
                match_id=match.pk, user=users[name], commitment=part_commitment(value_of(name))
            )
        for name in ("alice", "bob"):
            services.match_entropy_submit(match_id=match.pk, user=users[name], value=value_of(name))
        finish_by_forfeit(match, users, "alice")
        chance = match.events.filter(kind="chance").order_by("seq").first()
        game = get_game("rat-snake")
        seed_only = draw(SEED, chance.seq, game.chance_request(game.new_state(seats=2, options=NO_BETS)))
        mixed = chance.payload
        assert seed_only != mixed
        log = [(row.seq, selectors.event_as_logged(row)) for row in match.events.order_by("seq")]
        forged = [
            (seq, Event.chance_outcome(seed_only) if seq == chance.seq else event) for seq, event in log
        ]
        common = {
            "seats": 2,
            "options": match.options,
            "seed": SEED,
            "commitment": match.seed_commitment,
            "recorded_outcome": match.outcome,
            "contributed": True,
        }
        assert verify_log(game, events=log, **common).verified
        verification = verify_log(game, events=forged, **common)
        assert not verification.verified
        assert any(f"event {chance.seq}" in problem for problem in verification.problems)
        reveal_dropped = [(seq, event) for seq, event in log if event.payload.get("step") != "reveal"]
        assert not verify_log(game, events=reveal_dropped, **common).verified


@pytest.mark.django_db
class TestVoid:
    def test_void_appends_an_event_and_closes_the_match(self, users):
        match = people_match(users, "alice", "bob")
        head = match.events.count()
        event = services.match_void(match_id=match.pk, by=users["alice"], reason="players asked")
        match.refresh_from_db()
        assert match.status == Match.Status.VOIDED and match.outcome is None
        assert (event.seq, event.kind, event.payload) == (head + 1, "void", {"reason": "players asked"})
        with pytest.raises(ApplicationError) as again:
            services.match_void(match_id=match.pk, by=users["alice"], reason="twice")
        assert (again.value.code, again.value.status) == ("match/voided", 409)
        assert match.events.count() == head + 1
        with pytest.raises(ApplicationError) as act:
            services.match_entropy_submit(
                match_id=match.pk, user=users["bob"], commitment=part_commitment("b" * 64)
            )
        assert act.value.code == "match/voided"

    def test_a_finished_match_cannot_be_voided_and_a_reason_is_needed(self, users):
        match = people_match(users, "alice", "bob")
        with pytest.raises(ApplicationError) as blank:
            services.match_void(match_id=match.pk, by=None, reason="  ")
        assert blank.value.code == "match/void_reason_required"
        finish_by_forfeit(match, users, "alice")
        with pytest.raises(ApplicationError) as finished:
            services.match_void(match_id=match.pk, by=None, reason="late")
        assert finished.value.code == "match/finished"
        assert not match.events.filter(kind="void").exists()

    def test_a_voided_match_still_replays_and_verifies(self, users):
        match = services.match_create(
            game_key="rat-snake",
            seats=[SeatSpec(user=users["alice"]), SeatSpec(bot="random")],
            options=NO_BETS,
            entropy="server",
            seed=SEED,
        )
        services.match_void(match_id=match.pk, by=None, reason="test")
        match.refresh_from_db()
        assert selectors.match_verify(match).verified
        live_forget()
        assert selectors.match_snapshot(match).seq == match.events.count()
