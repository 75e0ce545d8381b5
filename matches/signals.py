"""Signals other apps listen to; the match store itself knows nothing of ladders or tournaments."""

from django.dispatch import Signal

# Sent once the transaction that finished a match has committed; arguments: match_id.
match_finished = Signal()

# Sent once the transaction that voided a running match has committed; arguments: match_id.
match_voided = Signal()

# Sent once the transaction that appended a seat's own step (an action, an entropy step, a forfeit)
# or a lapse has committed, when seats must act next; arguments: match_id, actor_seat (None for
# a lapse) and deciding (the seats that must act now: an open entropy window's awaited seats, else
# the engine's deciding seats). A person's move can make an uploaded bot,
# which plays on a worker, due: the bots app listens.
match_moved = Signal()
