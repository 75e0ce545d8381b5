"""Signals other apps listen to; the match store itself knows nothing of ladders or tournaments."""

from django.dispatch import Signal

# Sent once the transaction that finished a match has committed; arguments: match_id.
match_finished = Signal()

# Sent once the transaction that voided a running match has committed; arguments: match_id.
match_voided = Signal()
