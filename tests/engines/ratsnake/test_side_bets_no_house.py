"""No house: "the other player(s) act as the house, paying the thrower's winnings from their own
pockets and collecting his losses, splitting the payments and collections equally among themselves",
and "the losers' wagers are won by whichever non-throwing player(s) correctly predicted the thrower's
outcome". Remainders go one coin per seat in ring order from the thrower's right."""

from __future__ import annotations

from dataclasses import replace

from engines.ratsnake import money

from . import GAME, act, bet, bow_out, bust, check, new, roll, wealth


def street(seats: int = 4, **options):
    return new(seats, house=False, **options)


# --- the thrower's money ------------------------------------------------------------------------------


def test_rats_eyes_silo_is_shared_by_the_others() -> None:
    state = bust(street(4))
    # 6 among three: 2 each; seat 1 then antes as the new thrower
    assert state.purses == (54, 62 - 6, 62, 62) and state.house_net == 0


def test_a_loss_remainder_goes_one_coin_each_from_the_throwers_right() -> None:
    state = roll(street(4), 1, 5)  # loses 5 among seats 1, 2, 3: 2, 2, 1
    assert state.purses == (54, 62, 62, 61) and state.silo == 1


def test_a_twist_is_paid_by_the_others_in_equal_shares() -> None:
    state = roll(street(3), 6, 6)
    assert state.purses == (54, 57, 57) and state.silo == 12


def test_a_win_remainder_is_paid_one_coin_each_from_the_throwers_right() -> None:
    state = roll(street(4), 6, 5)  # wins 5 from seats 1, 2, 3: 2, 2, 1
    assert state.purses == (54, 58, 58, 59) and state.silo == 11


def test_a_payer_who_cannot_cover_his_share_pays_what_he_has() -> None:
    state = replace(street(3, side_bets=False), purses=(54, 1, 60))
    state = roll(state, 6, 6)  # owes 3 each; seat 1 has 1
    assert state.purses == (54, 0, 57)
    assert state.silo == 6 + 4  # the thrower gains only what was actually paid


def test_a_gained_check_is_paid_and_a_lost_check_collected_by_the_others() -> None:
    state = check(roll(street(3), 2, 3), 4, 4)  # gains 5: seat 1 pays 3, seat 2 pays 2
    assert state.purses == (54, 57, 58) and state.silo == 11
    state = bow_out(state)  # seat 1 throws: antes 6
    state = check(roll(state, 4, 5), 2, 2)  # loses 9 capped at 6, shared 3 and 3 by seats 2 and 0
    assert state.purses == (65 + 3, 51, 58 + 3 - 6)  # and seat 2 antes as the next thrower


def test_the_remainder_order_starts_at_the_right_of_whoever_throws() -> None:
    assert money.ring_from_right(2, 4) == (3, 0, 1)
    assert money.split_equally(5, (3, 0, 1)) == {3: 2, 0: 2, 1: 1}
    state = bust(bust(street(4)))  # each rat's eyes shares 6 by two; seat 2 now throws
    assert state.purses == (56, 56, 58, 64) and state.thrower == 2
    state = roll(state, 1, 5)  # loses 5: seats 3, 0, 1 get 2, 2, 1
    assert state.purses == (56 + 2, 56 + 1, 58, 64 + 2)


def test_no_house_has_no_net() -> None:
    state = roll(street(3), 6, 6)
    assert state.house_net == 0 and GAME.view(state, 0)["house_net"] is None


# --- side bets among the bettors ----------------------------------------------------------------------


def test_the_losers_wagers_go_to_the_right_predictor() -> None:
    state = bet(bet(bet(street(4), 1, "fills_the_silo", 3), 2, "rats_out", 2), 3, "loses_grain", 4)
    state = roll(state, 6, 2)  # fills the silo; the thrower's win of 2 is paid by seats 1 and 2
    assert [(s.seat, s.result, s.returned) for s in state.settled] == [
        (1, "won", 3 + 6),
        (2, "lost", 0),
        (3, "lost", 0),
    ]
    assert state.purses == (54, 60 + 6 - 1, 58 - 1, 56)


def test_the_pot_is_shared_equally_whatever_each_winner_staked() -> None:
    state = bet(bet(bet(street(4), 1, "twists_a_win", 1), 2, "twists_a_win", 5), 3, "rats_out", 3)
    state = roll(state, 6, 6)
    shares = {s.seat: s.returned - s.stake for s in state.settled}
    assert shares == {1: 2, 2: 1, 3: -3}  # pot 3: one each, the odd coin to seat 1, right of the thrower


def test_with_pot_split_by_stake_the_pot_is_shared_in_proportion_to_the_stakes() -> None:
    state = street(4, pot_split="by_stake")
    state = bet(bet(bet(state, 1, "twists_a_win", 1), 2, "twists_a_win", 5), 3, "rats_out", 8)
    state = roll(state, 6, 6)
    shares = {s.seat: s.returned - s.stake for s in state.settled}
    # Pot 8 over stakes 1 and 5: 8 * 1 // 6 = 1 and 8 * 5 // 6 = 6, the odd coin to seat 1.
    assert shares == {1: 2, 2: 6, 3: -8}
    assert sum(shares.values()) == 0


def test_when_nobody_predicted_right_every_wager_comes_back() -> None:
    state = bet(bet(street(3), 1, "rats_out", 3), 2, "twists_a_win", 2)
    state = roll(state, 3, 6)
    assert {s.result for s in state.settled} == {"returned"}
    assert state.purses[1:] == (60 - 2, 60 - 1)  # only the thrower's snake & pips win of 3 was paid


def test_check_bets_wait_for_the_check_and_share_the_pot_then() -> None:
    state = bet(bet(street(3), 1, "check_the_silo", 2), 2, "fills_the_silo", 3)
    state = roll(state, 3, 5)
    assert state.settled == () and len(state.bets) == 2  # nothing decided yet
    state = act(state, 1, {"type": "double_down", "call": "gain"})
    state = check(state, 4, 5)  # gain: the thrower wins 8, paid 4 and 4
    assert [(s.seat, s.stake, s.result, s.returned) for s in state.settled] == [
        (1, 4, "won", 4 + 3),
        (2, 3, "lost", 0),
    ]
    assert state.purses == (54, 60 + 3 - 4, 57 - 4)


def test_a_wrong_call_puts_the_doubled_stake_in_the_pot() -> None:
    state = bet(bet(bet(street(4), 1, "check_the_silo", 1), 2, "check_the_silo", 2), 3, "rats_out", 1)
    state = act(roll(state, 2, 2), 1, {"type": "double_down", "call": "gain"})
    state = act(state, 2, {"type": "double_down", "call": "lose"})
    state = check(state, 5, 5)
    assert {s.seat: s.returned - s.stake for s in state.settled} == {1: 4 + 1, 2: -4, 3: -1}


def test_pips_on_both_with_no_check_bettor_returns_every_wager_at_once() -> None:
    state = bet(street(3), 1, "rats_out", 4)
    state = roll(state, 2, 3)
    assert [(s.result, s.returned) for s in state.settled] == [("returned", 4)]
    assert state.phase == "check_the_silo" and state.purses[1] == 60


def test_coins_are_neither_made_nor_lost_among_the_players() -> None:
    state = bet(bet(bet(street(4), 1, "check_the_silo", 3), 2, "loses_grain", 5), 3, "check_the_silo", 1)
    state = act(roll(state, 5, 4), 1, {"type": "double_down", "call": "lose"})
    state = act(state, 3, {"type": "double_down", "call": "match"})
    state = check(state, 6, 1)
    assert wealth(state) == 240
