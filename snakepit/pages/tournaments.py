"""Tournament pages: the list, a tournament's bracket, standings and pairings, and its embeddable bracket."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse
from django.views.decorators.clickjacking import xframe_options_exempt

from core.errors import NotFound
from snakepit.pages.bracket import bracket_svg
from snakepit.pages.common import paginate, render_page
from tournaments.formats import lifecycle
from tournaments.models import Tournament
from tournaments.selectors import tournament_get, tournament_head


def tournament_list(request: HttpRequest) -> HttpResponse:
    tournaments = Tournament.objects.exclude(status=Tournament.Status.DRAFT).order_by("-created_at", "-id")
    return render_page(
        request,
        page="pages/tournament_list.html",
        context={"section": "tournaments", "page_obj": paginate(request, tournaments)},
    )


def _tournament_or_404(slug: str) -> Tournament:
    try:
        tournament = tournament_get(slug=slug)
    except NotFound:
        raise Http404(f"no tournament {slug}") from None
    if tournament.status == Tournament.Status.DRAFT:
        raise Http404(f"no tournament {slug}")  # a draft is its organiser's business until it opens
    return tournament


# What each tie-break column means (the acronyms of FIDE's C.07 and the MTR that the standings use).
TIEBREAK_NAMES = {
    "PTS": "points",
    "DE": "direct encounter",
    "WIN": "games won",
    "WON": "games won over the board",
    "BPG": "games played with black",
    "BWG": "games won with black",
    "PS": "progressive score",
    "GE": "games elected to play",
    "BH": "Buchholz: the sum of the opponents' scores",
    "BH-C1": "Buchholz cut 1: Buchholz without the lowest opponent",
    "BH-M1": "median Buchholz: without the highest and lowest opponent",
    "AOB": "average of opponents' Buchholz",
    "FB": "fore Buchholz",
    "SB": "Sonneborn-Berger: beaten opponents' scores, half of drawn ones'",
    "KS": "Koya system",
    "ARO": "average rating of opponents",
    "TPR": "tournament performance rating",
    "PTP": "perfect tournament performance",
    "APRO": "average perfect rating of opponents",
    "APPO": "average perfect performance of opponents",
    "OMW%": "opponents' match-win percentage",
    "GW%": "game-win percentage",
    "OGW%": "opponents' game-win percentage",
    "SEED": "seed, instead of drawing lots",
}


def player_names(tournament: Tournament) -> dict[str, str]:
    return {entry.player: entry.label for entry in tournament.entries.select_related("user")}


def standings_rows(tournament: Tournament) -> list[dict[str, Any]]:
    """The stored standings, as `/api/tournaments/<slug>/standings/` gives them, with each row's
    explanation put into words: (column, [one line per round's term]) pairs."""
    names = player_names(tournament)
    rows = []
    for stored in tournament.standings.order_by("rank", "player"):
        row = {**stored.row, "rank": stored.rank, "player": stored.player}
        row["name"] = names.get(stored.player, stored.player)
        row["explain_lines"] = [
            (label, [_term_text(term, names) for term in (terms if isinstance(terms, list) else [terms])])
            for label, terms in (row.get("explain") or {}).items()
        ]
        rows.append(row)
    return rows


def _term_text(term: Any, names: dict[str, str]) -> str:
    """One number behind a tie-break, `[round, opponent, value]`, in words; anything else as it is."""
    if isinstance(term, list) and len(term) == 3 and isinstance(term[0], int):
        number, opponent, value = term
        against = names.get(opponent, opponent) if opponent is not None else "no opponent (unplayed)"
        return f"round {number} vs {against}: {number_text(value)}"
    return str(term)


def tiebreak_columns(rows: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Every tiebreak any row carries (with what it means), in the order the rows list them; each row
    gets its `tiebreak_cells` in that order (a blank where it has none)."""
    columns: list[str] = []
    for row in rows:
        for name in row.get("tiebreaks") or {}:
            if name not in columns:
                columns.append(name)
    for row in rows:
        values = row.get("tiebreaks") or {}
        row["tiebreak_cells"] = [(name, number_text(values.get(name))) for name in columns]
    return [(name, TIEBREAK_NAMES.get(name, name)) for name in columns]


def number_text(value: Any) -> str:
    """A tiebreak or score as the page shows it: up to two decimals, no trailing zeros."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        text = f"{value:.2f}".rstrip("0").rstrip(".")
        return "0" if text in {"-0", ""} else text
    return str(value)


def result_text(result: Any, players: list[str]) -> str:
    """A table's result in words: its ranks per player where it has them."""
    if not result:
        return ""
    ranks = result.get("ranks") if isinstance(result, dict) else None
    if isinstance(ranks, list) and len(ranks) == len(players):
        return ", ".join(f"{player} #{rank}" for player, rank in zip(players, ranks))
    return (
        number_text(result)
        if not isinstance(result, dict)
        else ", ".join(f"{k}: {v}" for k, v in result.items())
    )


def rounds_of_tables(tournament: Tournament) -> list[dict[str, Any]]:
    """Each round's tables (its pairings) with their Snakepit matches, in pairing order."""
    matches: dict[str, list[int]] = {}
    for key, match_id in tournament.matches.order_by("match_key", "game_number").values_list(
        "match_key", "match_id"
    ):
        matches.setdefault(key, []).append(match_id)
    names = player_names(tournament)
    rounds: dict[tuple[int, str], list[dict[str, Any]]] = {}
    for table in tournament.tables.order_by("round", "pk"):
        labels = [names.get(player, player) for player in table.players]
        rounds.setdefault((table.round, table.stage), []).append(
            {
                "match_key": table.match_key,
                "players": labels,
                "result_text": result_text(table.result, labels),
                "status": table.status,
                "result": table.result,
                "matches": matches.get(table.match_key, []),
            }
        )
    pairings = _pairing_notes(tournament, names)
    return [
        {"round": number, "stage": stage, "tables": tables, **pairings.get((number, stage), {})}
        for (number, stage), tables in rounds.items()
    ]


def _pairing_notes(tournament: Tournament, names: dict[str, str]) -> dict[tuple[int, str], dict[str, Any]]:
    """How each round was paired (the explanation its `round_paired` event carries: score groups,
    floaters, constraints) and who had a bye; the last pairing of a round counts (a re-pairing)."""
    notes: dict[tuple[int, str], dict[str, Any]] = {}
    for payload in (
        tournament.events.filter(kind="round_paired").order_by("seq").values_list("payload", flat=True)
    ):
        explanation = payload.get("explanation") or {}
        text = explanation.get("text", "") if isinstance(explanation, dict) else ""
        byes = [names.get(player, player) for player in payload.get("byes") or [] if isinstance(player, str)]
        notes[(payload.get("round"), payload.get("stage", "main"))] = {"pairing_text": text, "byes": byes}
    return notes


def bracket_context(tournament: Tournament, state) -> dict[str, Any]:
    """The bracket as SVG and its champion, for a tournament with an elimination stage (else empty)."""
    tree = lifecycle.bracket(state)
    if tree is None:
        return {"bracket_svg": "", "champion": ""}
    names = player_names(tournament)
    urls = {
        key: reverse("pages:match-detail", args=[match_id])
        for key, match_id in tournament.matches.order_by("game_number").values_list("match_key", "match_id")
    }  # the latest game of each table wins
    champion = tree.get("champion")
    return {
        "bracket_svg": bracket_svg(tree, names=names, match_urls=urls),
        "champion": names.get(champion, champion) if champion else "",
    }


def tournament_context(tournament: Tournament) -> dict[str, Any]:
    head = tournament_head(tournament)
    state = head.state
    rows = standings_rows(tournament)
    return {
        "tournament": tournament,
        "seq": head.seq,  # what the page shows: its stream sends only what comes after
        "summary": lifecycle.summary(state),
        "standings": rows,
        "tiebreaks": tiebreak_columns(rows),
        "rounds": rounds_of_tables(tournament),
        **bracket_context(tournament, state),
    }


def tournament_detail(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = _tournament_or_404(slug)
    context = {"section": "tournaments", **tournament_context(tournament)}
    return render_page(
        request, page="pages/tournament_detail.html", fragment="pages/_tournament_body.html", context=context
    )


@xframe_options_exempt
def tournament_embed(request: HttpRequest, slug: str) -> HttpResponse:
    """The read-only bracket alone, for another site's iframe: the one view exempt from X-Frame-Options."""
    tournament = _tournament_or_404(slug)
    return render_page(
        request,
        page="pages/tournament_embed.html",
        fragment="pages/_embed_body.html",
        context=tournament_context(tournament),
    )
