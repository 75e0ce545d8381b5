"""A signal for the commands that check a read model against its log (`replay_matches`,
`rebuild_tournaments`, `rebuild_ratings`): each sends it once it has its answer, whether or not the
check passed, so whoever keeps an eye on the service (the operations page) can show the last one.
The commands know nothing of who listens."""

from django.dispatch import Signal

# Arguments: check (the command's name), ok (bool), summary (one line), problems (list of lines).
read_model_checked = Signal()
