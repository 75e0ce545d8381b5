"""URLs of the server-rendered pages, included at the site root under the `pages` namespace.

Names the frame (base.html) looks up, defined by the play/accounts/ops modules when they exist:
`pages:sign-in`, `pages:sign-up`, `pages:sign-out` (POST), `pages:api-token`."""

from django.urls import path

from snakepit.pages import accounts, bots, decks, ladders, matches, ops, play, tournaments

app_name = "pages"

urlpatterns = [
    path("tournaments/", tournaments.tournament_list, name="tournament-list"),
    path("tournaments/<slug:slug>/", tournaments.tournament_detail, name="tournament-detail"),
    path("tournaments/<slug:slug>/embed/", tournaments.tournament_embed, name="tournament-embed"),
    path("ladders/", ladders.ladder_list, name="ladder-list"),
    path("ladders/<slug:slug>/", ladders.ladder_detail, name="ladder-detail"),
    path("ladders/<slug:slug>/entries/<int:entry_id>/", ladders.ladder_entry, name="ladder-entry"),
    path("matches/", matches.match_list_page, name="match-list"),
    path("matches/<int:match_id>/", matches.match_detail, name="match-detail"),
    path("matches/<int:match_id>/verify/", matches.match_verify_page, name="match-verify"),
    path("decks/", decks.deck_check_page, name="deck-check"),
    path("decks/<str:share_id>/", decks.deck_detail, name="deck-detail"),
    path("bots/", bots.my_bots, name="my-bots"),
    path("bots/<int:bot_id>/", bots.bot_detail, name="bot-detail"),
    # Playing in the browser, accounts and the operations page (play.py, accounts.py, ops.py).
    path("play/", play.my_matches, name="my-matches"),
    path("play/new/", play.play_new, name="play-new"),
    path("play/<int:match_id>/", play.play_match, name="play"),
    path("play/<int:match_id>/live/", play.play_live, name="play-live"),
    path("play/<int:match_id>/head/", play.play_head, name="play-head"),
    path("accounts/sign-in/", accounts.sign_in, name="sign-in"),
    path("accounts/sign-up/", accounts.sign_up, name="sign-up"),
    path("accounts/sign-out/", accounts.sign_out, name="sign-out"),
    path("accounts/token/", accounts.api_token, name="api-token"),
    path("ops/", ops.ops_dashboard, name="ops"),
    # An event stream (api/sse.py): async, and its path ends in /stream/ (snakepit/serving.py).
    path("ops/stream/", ops.ops_stream, name="ops-stream"),
    path("ops/ladders/<int:ladder_id>/pause/", ops.ops_ladder_pause, name="ops-ladder-pause"),
    path("ops/matches/void/", ops.ops_match_void, name="ops-match-void"),
    path("ops/checks/", ops.ops_checks_queue, name="ops-checks"),
]
