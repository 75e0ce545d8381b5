"""What the decks app tells the apps above it.

`deck_legality_changed` is sent once a ban list has taken effect and the saved decks entered in its
format were re-checked (`decks.services.ban_lists_take_effect`), after the transaction commits.
Keyword arguments: `format_key`, `ban_list_version`, and `illegal`: one dict per deck version the
list made illegal (`deck_version_id`, `deck_id`, `share_id`, `owner_id`, `violations`). Ladders and
tournaments listen to pause or refuse the entries that hold those versions; a match already begun
keeps the deck and the list it began with.
"""

from django.dispatch import Signal

deck_legality_changed = Signal()
