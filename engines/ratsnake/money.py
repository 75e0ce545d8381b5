"""Rat-Snake: coins changing hands when there is no house (rulebook, "Rat-Snake" introduction and
"SIDE BETS", last paragraph).

"In less formal games ... the other player(s) act as the house, paying the thrower's winnings from
their own pockets and collecting his losses, splitting the payments and collections equally among
themselves." Coins are whole, so an equal split needs a rule for the remainder, which the rulebook
does not give: each share is `amount // k` and the remainder goes (or is paid) one coin per seat in
ring order starting at the thrower's right, the direction the dice travel.
"""

from __future__ import annotations


def ring_from_right(thrower: int, seats: int) -> tuple[int, ...]:
    """Every other seat, in ring order starting at the thrower's right ("play passes to his right")."""
    return tuple((thrower + step) % seats for step in range(1, seats))


def split_equally(amount: int, seats_in_order: tuple[int, ...]) -> dict[int, int]:
    """Equal shares of `amount`; the first `amount % k` seats in the given order carry one coin more."""
    if not seats_in_order or amount <= 0:
        return {seat: 0 for seat in seats_in_order}
    base, remainder = divmod(amount, len(seats_in_order))
    return {seat: base + (1 if index < remainder else 0) for index, seat in enumerate(seats_in_order)}


def split_by_stake(amount: int, stakes_in_order: tuple[tuple[int, int], ...]) -> dict[int, int]:
    """`amount` shared in proportion to each (seat, stake); shares are rounded down and the coins
    left over go one per seat in the given order."""
    total = sum(stake for _, stake in stakes_in_order)
    if not stakes_in_order or amount <= 0 or total <= 0:
        return {seat: 0 for seat, _ in stakes_in_order}
    shares = {seat: amount * stake // total for seat, stake in stakes_in_order}
    left_over = amount - sum(shares.values())
    for seat, _ in stakes_in_order[:left_over]:
        shares[seat] += 1
    return shares


def pay_out(purses: tuple[int, ...], amount: int, receivers: tuple[int, ...]) -> tuple[int, ...]:
    """`amount` shared among `receivers` (a thrower's loss collected by the others)."""
    shares = split_equally(amount, receivers)
    return tuple(purse + shares.get(seat, 0) for seat, purse in enumerate(purses))


def collect(purses: tuple[int, ...], amount: int, payers: tuple[int, ...]) -> tuple[tuple[int, ...], int]:
    """`amount` owed by `payers` in equal shares; a payer short of its share pays what it has.

    Returns the purses after paying and how much was actually paid (all the thrower may gain).
    """
    shares = split_equally(amount, payers)
    paid = {seat: min(share, purses[seat]) for seat, share in shares.items()}
    after = tuple(purse - paid.get(seat, 0) for seat, purse in enumerate(purses))
    return after, sum(paid.values())


def collectable(purses: tuple[int, ...], amount: int, payers: tuple[int, ...]) -> int:
    """How much of `amount` the payers could actually pay (what `collect` would return as paid)."""
    return collect(purses, amount, payers)[1]
