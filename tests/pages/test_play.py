"""Playing in the browser, server side: the legal actions as buttons and fields, a form back to an action,
a move through the same service as the API (expected seq, idempotency key), errors inline with nothing
written, each game's own board and the generic one for a game without, and the new-match form."""

from __future__ import annotations

import json
import re

import pytest

from engines.protocol import Event
from engines.registry import bot_names, default_bot, game_keys, get_game
from matches.models import Match, MatchEvent
from matches.selectors import match_decision, match_head_seq, match_snapshot
from matches.services import SeatSpec, match_create
from snakepit.pages.play import board_template_name
from snakepit.pages.play_actions import ActionFormError, action_from_form, action_groups
from tests.games import TEST_GAMES

pytestmark = pytest.mark.django_db


def post_data(**fields):
    from django.http import QueryDict

    data = QueryDict(mutable=True)
    for key, value in fields.items():
        data[key] = value
    return data


# --- legal actions -> groups -> form -> action -----------------------------------------------------


def test_a_small_group_is_buttons_each_posting_its_whole_action():
    groups = action_groups([{"type": "continue"}, {"type": "bow_out"}, {"type": "leave_ring"}])
    assert [group.style for group in groups] == ["buttons"] * 3
    assert json.loads(groups[1].buttons[0].value) == {"type": "bow_out"}
    assert groups[1].buttons[0].label == "bow out"


def test_every_combination_of_values_becomes_one_field_per_parameter():
    bets = [
        {"type": "side_bet", "prediction": prediction, "stake": stake}
        for prediction in ("rats_out", "twists_a_win")
        for stake in range(1, 11)
    ]
    [no_bet, side_bet] = action_groups([{"type": "no_bet"}, *bets])
    assert no_bet.style == "buttons"
    assert side_bet.style == "fields"
    prediction, stake = sorted(side_bet.parameters, key=lambda parameter: parameter.name)
    assert (stake.minimum, stake.maximum) == (1, 10) and not stake.choices
    assert [json.loads(choice.value) for choice in prediction.choices] == ["rats_out", "twists_a_win"]
    action = action_from_form(
        post_data(**{"action_type": "side_bet", "param.prediction": '"twists_a_win"', "param.stake": "7"})
    )
    assert action == {"type": "side_bet", "prediction": "twists_a_win", "stake": 7}
    assert action in bets


def test_one_parameter_is_one_list_of_its_values():
    attacks = [
        {"type": "attack", "cards": cards}
        for cards in (["1"], ["2"], ["4"], ["1", "2"], ["1", "4"], ["2", "4"])
    ]
    attacks += [
        {"type": "attack", "cards": ["1", "2", "4"]},
        {"type": "attack", "cards": ["2", "patch-up"]},
        {"type": "attack", "cards": []},
    ]
    [group] = action_groups(attacks)
    [cards] = group.parameters
    assert group.style == "fields" and cards.minimum is None
    assert [choice.label for choice in cards.choices][-2:] == ["2, patch up", "nothing"]
    posted = action_from_form(post_data(**{"action_type": "attack", "param.cards": cards.choices[7].value}))
    assert posted == attacks[7]


def test_a_group_that_is_not_every_combination_is_one_list_of_its_actions():
    uses = [{"type": "use", "card": "scavenge", "pick": str(pick)} for pick in range(1, 9)]
    uses.append({"type": "use", "card": "distract", "pick": "1"})
    [group] = action_groups(uses)
    assert group.style == "list" and not group.parameters
    assert [json.loads(choice.value) for choice in group.choices] == uses
    assert group.choices[-1].label == "card: distract · pick: 1"
    assert action_from_form(post_data(chosen_action=group.choices[3].value)) == uses[3]


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"chosen_action": "{not json"}, "not a value"),
        ({"chosen_action": '["a list"]'}, "not one this page offered"),
        ({"chosen_action": '{"no": "type"}'}, "not one this page offered"),
        ({"chosen_action": json.dumps({"action_type": "x", "deep": [[[[[[[[1]]]]]]]]})}, "not a value"),
        ({"chosen_action": json.dumps({"action_type": "x", "pad": "y" * 5000})}, "longer than"),
        ({"action_type": ""}, "choose an action"),
        ({"action_type": "side_bet", "param.stake": ""}, "fill in stake"),
        ({"action_type": "side_bet", "param.stake": "99999999999999"}, "out of range"),
        ({"action_type": "side_bet", "param.": "1"}, "never offered"),
    ],
)
def test_a_form_that_describes_no_action_is_refused_with_a_reason(fields, message):
    with pytest.raises(ActionFormError, match=message):
        action_from_form(post_data(**fields))


# --- a move through the page ------------------------------------------------------------------------


@pytest.fixture
def rat_snake_vs_bot(users):
    match = match_create(
        game_key="rat-snake", seats=[SeatSpec(user=users["alice"]), SeatSpec(bot="heuristic")], seed=bytes(32)
    )
    return match


def signed_in(client, user):
    client.force_login(user)
    return client


def decide_for(match, seat):
    """The first legal action of `seat` now, and the head seq."""
    snapshot = match_snapshot(match)
    game = get_game(match.game)
    return game.legal_actions(snapshot.state, seat)[0], snapshot.seq


def test_a_seated_player_sees_their_move_and_makes_it_through_the_service(client, users, rat_snake_vs_bot):
    match = rat_snake_vs_bot
    signed_in(client, users["alice"])
    page = client.get(f"/play/{match.pk}/")
    html = page.content.decode()
    assert page.status_code == 200 and 'data-board="rat-snake"' in html
    assert 0 in match_decision(match).seats and 'id="play-actions"' in html
    action, seq = decide_for(match, 0)
    assert json.dumps(action, separators=(",", ":"), sort_keys=True).replace('"', "&quot;") in html
    key = html.split('name="idempotency_key" value="', 1)[1].split('"', 1)[0]
    response = client.post(
        f"/play/{match.pk}/",
        {"expected_seq": seq, "idempotency_key": key, "chosen_action": json.dumps(action)},
    )
    assert response.status_code == 302 and response["Location"] == f"/play/{match.pk}/"
    mine = MatchEvent.objects.get(match=match, seq=seq + 1)
    assert (mine.seat, mine.payload, mine.actor_id) == (0, action, users["alice"].pk)
    assert mine.idempotency_key == f"{users['alice'].pk}:{key}"
    # The same form sent again (a double click, a resend) writes nothing more.
    head = match_head_seq(match)
    again = client.post(
        f"/play/{match.pk}/",
        {"expected_seq": seq, "idempotency_key": key, "chosen_action": json.dumps(action)},
    )
    assert again.status_code == 302 and match_head_seq(match) == head


def test_a_stale_or_illegal_move_is_shown_inline_and_writes_nothing(client, users, rat_snake_vs_bot):
    match = rat_snake_vs_bot
    signed_in(client, users["alice"])
    action, seq = decide_for(match, 0)
    stale = client.post(
        f"/play/{match.pk}/",
        {"expected_seq": seq + 5, "idempotency_key": "k1", "chosen_action": json.dumps(action)},
    )
    assert stale.status_code == 409
    assert (
        "match/stale_seq" in stale.content.decode() and "moved on while you chose" in stale.content.decode()
    )
    illegal = client.post(
        f"/play/{match.pk}/",
        {"expected_seq": seq, "idempotency_key": "k2", "chosen_action": '{"type": "fly_away"}'},
    )
    assert illegal.status_code == 422 and 'role="alert"' in illegal.content.decode()
    tampered = client.post(f"/play/{match.pk}/", {"expected_seq": "x", "chosen_action": json.dumps(action)})
    assert tampered.status_code == 400
    assert match_head_seq(match) == seq


def test_a_live_request_answers_with_the_fragment_and_an_action_from_it_too(client, users, rat_snake_vs_bot):
    match = rat_snake_vs_bot
    signed_in(client, users["alice"])
    fragment = client.get(f"/play/{match.pk}/live/", HTTP_X_LIVE="1").content.decode()
    assert "<main" not in fragment and 'data-board="rat-snake"' in fragment
    head = client.get(f"/play/{match.pk}/head/", HTTP_X_LIVE="1").content.decode()
    assert "your move" in head and "<form" not in head and "csrf" not in head
    # Polled twice with nothing appended, the head and the fragment answer the same text (the board is
    # then left alone, with whatever choice is half made in its forms).
    assert client.get(f"/play/{match.pk}/head/", HTTP_X_LIVE="1").content.decode() == head
    action, seq = decide_for(match, 0)
    response = client.post(
        f"/play/{match.pk}/",
        {"expected_seq": seq, "idempotency_key": "k3", "chosen_action": json.dumps(action)},
        HTTP_X_LIVE="1",
    )
    assert response.status_code == 200 and "<main" not in response.content.decode()
    assert match_head_seq(match) > seq


def test_someone_without_a_seat_sees_a_spectators_page_and_cannot_act(client, users, rat_snake_vs_bot):
    match = rat_snake_vs_bot
    anonymous = client.get(f"/play/{match.pk}/").content.decode()
    assert "what a spectator sees" in anonymous and 'id="play-actions"' not in anonymous
    action, seq = decide_for(match, 0)
    assert (
        client.post(
            f"/play/{match.pk}/", {"expected_seq": seq, "chosen_action": json.dumps(action)}
        ).status_code
        == 403
    )
    signed_in(client, users["bob"])
    refused = client.post(
        f"/play/{match.pk}/",
        {"expected_seq": seq, "idempotency_key": "b", "chosen_action": json.dumps(action)},
    )
    assert refused.status_code == 403 and "seat/not_yours" in refused.content.decode()
    assert client.get(f"/play/{match.pk}/?seat=0").status_code == 403
    assert client.get("/play/999999/").status_code == 404
    assert match_head_seq(match) == seq


def test_each_shipped_game_has_its_own_board_and_a_test_only_game_the_generic_one():
    shipped = [key for key in game_keys() if key not in TEST_GAMES]
    assert len(shipped) == 5 and "cup-dice" in game_keys()
    assert {key: board_template_name(key) for key in game_keys()} == {
        **{key: f"play/{key}.html" for key in shipped},
        **{key: "play/generic.html" for key in TEST_GAMES},
    }


def test_a_game_without_a_board_of_its_own_is_drawn_and_played_with_the_generic_one(client, users):
    """Cup Dice (tests/games/) has no board template: its page draws the view with the generic one,
    its hidden die shown to its owner alone, and a move through it is written."""
    match = match_create(
        game_key="cup-dice", seats=[SeatSpec(user=users["alice"]), SeatSpec(bot="random")], seed=bytes(32)
    )
    signed_in(client, users["alice"])
    response = client.get(f"/play/{match.pk}/")
    html = response.content.decode()
    assert 'data-board="generic"' in html and 'class="view-tree"' in html and "Cups" in html
    alice_die, _ = match_snapshot(match).state.dice
    [mine, the_bots] = response.context["view"]["cups"]
    assert (mine["die"], the_bots["die"], the_bots["rolled"]) == (alice_die, None, True)
    action, seq = decide_for(match, 0)
    client.post(
        f"/play/{match.pk}/",
        {"expected_seq": seq, "idempotency_key": "g", "chosen_action": json.dumps(action)},
    )
    assert MatchEvent.objects.filter(match=match, seq=seq + 1, seat=0).exists()


def test_the_new_match_form_offers_the_games_own_bots_its_default_first(client, users):
    signed_in(client, users["alice"])
    for key in game_keys():
        html = client.get(f"/play/new/?game={key}").content.decode()
        [select] = re.findall(r'<select name="bot".*?</select>', html, re.DOTALL)
        assert re.findall(r'<option value="([\w-]+)"', select) == bot_names(key)
        assert f'<option value="{default_bot(key)}" selected>' in select
        assert f'<option value="{key}" selected>' in html
    refused = client.post("/play/new/", {"game": "cup-dice", "bots": 1, "bot": "heuristic"})
    assert refused.status_code == 400 and "bot-errors" in refused.content.decode()
    made = client.post("/play/new/", {"game": "cup-dice", "bots": 2, "bot": "random"})
    match = Match.objects.get()
    assert made["Location"] == f"/play/{match.pk}/"
    assert [seat.label for seat in match.seats.order_by("index")] == ["alice", "bot:random", "bot:random"]


@pytest.mark.parametrize(
    "game_key, seats", [("rattlebones", 2), ("rattlesnake", 2), ("the-greatest-snake", 3)]
)
def test_each_games_board_draws_a_seats_view(client, users, game_key, seats):
    match = match_create(
        game_key=game_key, seats=[SeatSpec(user=users["alice"])] + [SeatSpec(bot="random")] * (seats - 1)
    )
    signed_in(client, users["alice"])
    response = client.get(f"/play/{match.pk}/")
    assert response.status_code == 200 and f'data-board="{game_key}"' in response.content.decode()


def test_a_ragnguns_board_is_drawn_for_a_player_who_brought_a_saved_deck(client, users):
    from decks.services import deck_create
    from engines.ragnguns import load_prebuilt

    prebuilt = load_prebuilt()[0]
    version = deck_create(
        owner=users["alice"], name="Mine", gunslinger=prebuilt.gunslinger, cards=list(prebuilt.cards)
    )
    signed_in(client, users["alice"])
    response = client.post(
        "/play/new/", {"game": "ragnguns", "bots": 1, "bot": "heuristic", "deck": version.deck.share_id}
    )
    assert response.status_code == 302
    page = client.get(response["Location"]).content.decode()
    assert 'data-board="ragnguns"' in page and "Cylinder" in page


def test_the_new_match_form_checks_what_it_is_given(client, users):
    signed_in(client, users["alice"])
    assert client.get("/play/new/").status_code == 200
    too_many = client.post("/play/new/", {"game": "rattlesnake", "bots": 3, "bot": "heuristic"})
    assert too_many.status_code == 400 and "bots-errors" in too_many.content.decode()
    no_deck = client.post("/play/new/", {"game": "ragnguns", "bots": 1, "bot": "heuristic"})
    assert no_deck.status_code == 400 and "deck-errors" in no_deck.content.decode()
    unknown = client.post("/play/new/", {"game": "chess", "bots": 1, "bot": "heuristic"})
    assert unknown.status_code == 400
    assert not Match.objects.exists()
    made = client.post("/play/new/", {"game": "rat-snake", "bots": 2, "bot": "random"})
    match = Match.objects.get()
    assert made["Location"] == f"/play/{match.pk}/"
    assert [seat.label for seat in match.seats.order_by("index")] == ["alice", "bot:random", "bot:random"]


def test_my_matches_lists_only_mine_with_whose_move_it_is(client, users, rat_snake_vs_bot):
    other = match_create(game_key="rat-snake", seats=[SeatSpec(user=users["bob"]), SeatSpec(bot="random")])
    assert client.get("/play/").status_code == 302  # sign in first
    signed_in(client, users["alice"])
    html = client.get("/play/").content.decode()
    assert f'href="/play/{rat_snake_vs_bot.pk}/"' in html and f'href="/play/{other.pk}/"' not in html
    assert ("your move" in html) == (0 in match_decision(rat_snake_vs_bot).seats)
    assert "dice-awaited" not in html  # drawn from the seed alone: no part of anyone's is awaited


def test_my_matches_marks_a_match_whose_dice_wait_for_my_part(client, users, contributed_entropy):
    from django.test import Client

    from engines.entropy import part_commitment
    from matches.selectors import match_entropy_status
    from matches.services import match_entropy_submit

    versus_bot = match_create(
        game_key="rat-snake", seats=[SeatSpec(user=users["alice"]), SeatSpec(bot="random")]
    )
    versus_bob = match_create(
        game_key="rat-snake", seats=[SeatSpec(user=users["alice"]), SeatSpec(user=users["bob"])]
    )
    signed_in(client, users["alice"])
    bob = signed_in(Client(), users["bob"])

    def marked(person) -> set[int]:
        html = person.get("/play/").content.decode()
        return {int(pk) for pk in re.findall(r'<a class="badge live dice-awaited" href="/play/(\d+)/"', html)}

    # The bot committed at the start: alice's commit is awaited in both, and bob's in his.
    assert marked(client) == {versus_bot.pk, versus_bob.pk} and marked(bob) == {versus_bob.pk}
    assert "your part of the dice is awaited" in client.get("/play/").content.decode()
    alice_part = "cd" * 32
    match_entropy_submit(
        match_id=versus_bob.pk, user=users["alice"], commitment=part_commitment(alice_part), seat=0
    )
    assert marked(client) == {versus_bot.pk} and marked(bob) == {versus_bob.pk}  # bob's commit now
    bob_part = "ef" * 32
    match_entropy_submit(
        match_id=versus_bob.pk, user=users["bob"], commitment=part_commitment(bob_part), seat=1
    )
    assert marked(client) == {versus_bot.pk, versus_bob.pk}  # both reveals awaited now
    match_entropy_submit(match_id=versus_bob.pk, user=users["alice"], value=alice_part, seat=0)
    match_entropy_submit(match_id=versus_bob.pk, user=users["bob"], value=bob_part, seat=1)
    assert marked(client) == {versus_bot.pk} and marked(bob) == set()  # every part is in
    assert match_entropy_status(versus_bob)["phase"] == "done"


# --- a seat's part of the chance (contributed entropy) ----------------------------------------------


@pytest.fixture
def contributed_entropy(settings):
    settings.SNAKEPIT_CONTRIBUTED_ENTROPY = True


def test_one_click_commits_and_reveals_a_seats_part_and_the_match_goes_on(client, users, contributed_entropy):
    from engines.entropy import part_commitment

    match = match_create(
        game_key="rat-snake", seats=[SeatSpec(user=users["alice"]), SeatSpec(bot="heuristic")]
    )
    assert match.entropy == Match.Entropy.CONTRIBUTED
    signed_in(client, users["alice"])
    page = client.get(f"/play/{match.pk}/").content.decode()
    assert 'data-action-type="entropy"' in page and "add your part of the chance" in page
    assert "add your part of the chance" in client.get(f"/play/{match.pk}/head/").content.decode()
    value = "ab" * 32
    response = client.post(f"/play/{match.pk}/", {"entropy_step": "commit", "entropy_value": value})
    assert response.status_code == 302
    steps = list(
        MatchEvent.objects.filter(match=match, kind="entropy", seat=0)
        .order_by("seq")
        .values_list("payload", flat=True)
    )
    assert steps == [
        {"step": "commit", "commitment": part_commitment(value)},
        {"step": "reveal", "value": value},
    ]
    after = client.get(f"/play/{match.pk}/").content.decode()
    assert 'data-action-type="entropy"' not in after
    assert MatchEvent.objects.filter(
        match=match, kind="chance"
    ).exists()  # chance drawn once every part was in
    assert ('id="play-actions"' in after) == (0 in match_decision(match).seats)


def test_without_script_the_server_makes_the_part_and_a_part_made_elsewhere_cannot_be_revealed(
    client, users, contributed_entropy
):
    from django.test import Client

    match = match_create(
        game_key="rat-snake", seats=[SeatSpec(user=users["alice"]), SeatSpec(user=users["bob"])]
    )
    signed_in(client, users["alice"])
    client.post(f"/play/{match.pk}/", {"entropy_step": "commit", "entropy_value": "not hex"})
    [commit] = MatchEvent.objects.filter(match=match, kind="entropy", seat=0).values_list(
        "payload", flat=True
    )
    assert commit["step"] == "commit" and len(commit["commitment"]) == 64
    # Bob has not committed: Alice waits, her part kept in her session.
    assert "waiting" in client.get(f"/play/{match.pk}/head/").content.decode()
    bob = signed_in(Client(), users["bob"])
    bob.post(f"/play/{match.pk}/", {"entropy_step": "commit"})
    # Bob's commit closed the window, so his reveal followed at once; Alice's waits for her click.
    assert MatchEvent.objects.filter(match=match, kind="entropy", seat=1).count() == 2
    assert MatchEvent.objects.filter(match=match, kind="entropy", seat=0).count() == 1
    elsewhere = signed_in(Client(), users["alice"])
    refused = elsewhere.post(f"/play/{match.pk}/", {"entropy_step": "reveal"})
    assert refused.status_code == 409 and "entropy/part_elsewhere" in refused.content.decode()
    client.post(f"/play/{match.pk}/", {"entropy_step": "reveal"})
    assert MatchEvent.objects.filter(match=match, kind="entropy", seat=0).count() == 2


# --- the new match's options and your seat ----------------------------------------------------------


def new_match_post(drawn_for, **fields):
    """The new-match form as its page draws it for a game: its options at their defaults, then `fields`."""
    spec = get_game(drawn_for).spec
    data = {"game": drawn_for, "options_for": drawn_for, "bots": 1, "bot": "heuristic", "seat": "first"}
    for option in spec.options:
        if option.default is not False:
            data[f"option_{option.name}"] = "on" if option.default is True else option.default
    data.update(fields)
    return {key: value for key, value in data.items() if value is not None}


def test_a_rat_snake_match_is_created_with_the_options_and_the_seat_chosen(client, users):
    signed_in(client, users["alice"])
    response = client.post("/play/new/", new_match_post("rat-snake", bots=2, option_passes="3", seat="1"))
    match = Match.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/play/{match.pk}/"
    assert match.options == {**get_game("rat-snake").spec.resolve_options({}), "passes": 3}
    assert [seat.label for seat in match.seats.order_by("index")] == [
        "bot:heuristic",
        "alice",
        "bot:heuristic",
    ]


def test_an_unticked_box_is_sent_as_off_and_a_random_seat_is_one_of_the_table(client, users):
    signed_in(client, users["alice"])
    client.post("/play/new/", new_match_post("rat-snake", bots=3, option_house=None, seat="random"))
    match = Match.objects.get()
    assert match.options["house"] is False and match.options["side_bets"] is True
    assert match.seats.get(user=users["alice"]).index in range(4)


@pytest.mark.parametrize(
    "fields, code",
    [
        ({"option_passes": "21"}, "options/out_of_range"),
        ({"option_passes": "many"}, "options/wrong_type"),
        ({"option_pot_split": "by_weight"}, "options/not_a_choice"),
    ],
)
def test_an_option_the_engine_refuses_is_shown_with_its_code_and_nothing_is_written(
    client, users, fields, code
):
    signed_in(client, users["alice"])
    response = client.post("/play/new/", new_match_post("rat-snake", **fields))
    html = response.content.decode()
    assert response.status_code == 422 and 'id="new-match-error"' in html and code in html
    assert not Match.objects.exists()


def test_the_form_for_rattlebones_shows_its_own_options_and_a_seat_up_to_its_table(client, users):
    signed_in(client, users["alice"])
    html = client.get("/play/new/?game=rattlebones").content.decode()
    assert 'name="option_x2_points"' in html and 'name="option_passes"' not in html
    assert '<option value="die_actions" selected>' in html and "This does NOT include the Gamble Die" in html
    [seats] = re.findall(r'<select name="seat".*?</select>', html, re.DOTALL)
    assert re.findall(r'<option value="(\w+)"', seats) == ["first", "random", "1", "2", "3"]
    fragment = client.get("/play/new/?game=rat-snake", HTTP_X_LIVE="1").content.decode()
    assert 'name="options_for" value="rat-snake"' in fragment
    assert 'name="option_passes"' in fragment and 'min="1"' in fragment and 'max="20"' in fragment
    assert "<html" not in fragment and 'name="game"' not in fragment


def test_options_drawn_for_another_game_are_not_sent_and_the_form_is_drawn_for_the_game_chosen(client, users):
    """Without script, changing the game does not redraw the options: the post is answered with the new
    game's form rather than a match the person did not see the options of."""
    signed_in(client, users["alice"])
    response = client.post("/play/new/", new_match_post("rat-snake", game="rattlebones", bots=2))
    html = response.content.decode()
    assert (
        response.status_code == 200 and 'id="new-match-notice"' in html and 'name="option_x2_points"' in html
    )
    assert 'name="bots" value="2"' in html and 'name="options_for" value="rattlebones"' in html
    assert not Match.objects.exists()
    shown = client.post(
        "/play/new/", {"game": "rattlesnake", "show_options": "1", "options_for": "rat-snake"}
    )
    assert shown.status_code == 302 and shown["Location"] == "/play/new/?game=rattlesnake"
    assert not Match.objects.exists()


def test_the_new_match_form_does_not_offer_what_the_service_writes_in(client, django_user_model):
    """Rag'n'Guns' ban list is written in from the list in effect when a match is created: the form
    offers its format, never a ban list to type."""
    user = django_user_model.objects.create_user("carla", password="carla-password")
    client.force_login(user)
    page = client.get("/play/new/?game=ragnguns").content.decode()
    assert 'name="option_format"' in page
    assert 'name="option_ban_list"' not in page


def test_the_play_and_replay_logs_read_as_sentences_linked_to_their_steps(client, users, rat_snake_vs_bot):
    match = rat_snake_vs_bot
    signed_in(client, users["alice"])
    action, seq = decide_for(match, 0)
    key = client.get(f"/play/{match.pk}/").content.decode().split('name="idempotency_key" value="', 1)[1][:36]
    client.post(
        f"/play/{match.pk}/",
        {"expected_seq": seq, "idempotency_key": key, "chosen_action": json.dumps(action)},
    )
    game, names = get_game("rat-snake"), ("alice", "bot:heuristic")
    mine = Event.action(0, action)
    html = client.get(f"/play/{match.pk}/").content.decode()
    told = game.describe_event(mine, viewer=0, seat_names=names)
    assert told.startswith("you ")
    assert f'href="/matches/{match.pk}/?step={seq + 1}"' in html and f">{told}</span>" in html
    client.logout()
    replay = client.get(f"/matches/{match.pk}/?step={seq + 1}").content.decode()
    spectators = game.describe_event(mine, viewer=None, seat_names=names)
    assert spectators.startswith("alice ") and f">{spectators}</a>" in replay
    assert f"#{seq + 1} action</summary>" in replay  # the payload one click away
