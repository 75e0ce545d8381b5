"""The schema's list of error codes is complete: every code an app's service layer raises, at the
status its exception class gives it, is listed for that app's API area (api/schema.py), so a client
that switches on the codes the schema names meets no other.

The codes are read from the source (every `Rejected(...)`, `Conflict(...)`, `NotFound(...)`,
`Forbidden(...)`, `ApplicationError(...)` and tournament `FormatError(...)` with a literal `code=`),
so a new refusal that the schema does not name fails here."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.conf import settings

from api import schema

# The status each exception class gives when no `status=` is passed (core.errors and the classes
# built on it; the tournament formats library's FormatError becomes a 422 in tournaments.services).
_STATUS_OF = {
    "Rejected": 422,
    "Conflict": 409,
    "NotFound": 404,
    "Forbidden": 403,
    "ApplicationError": 400,
    "Malformed": 400,
    "FormatError": 422,
}

# Each API area (the operations' tag) and the modules whose refusals reach it.
_AREAS = {
    ("tournaments",): ["tournaments", "api/tournaments.py"],
    ("ladders",): ["ratings", "api/ratings.py"],
    ("bots",): ["bots", "api/bots.py"],
    ("matches",): [
        "matches/services.py",
        "matches/store.py",
        "matches/selectors.py",
        "matches/live.py",
        "api/matches.py",
    ],
    ("challenges",): ["matches/challenges.py", "api/challenges.py"],
    ("decks", "catalogues"): ["decks", "api/catalogue.py", "api/decks.py"],
}

# Refusals (code, status) raised where no request reaches them, and why.
_NOT_FROM_A_REQUEST = {
    # bots: the worker's own guards while it plays, recorded in logs, never answered to a client
    ("bot/mixed_games", 422): "bot_match_create is called by the worker and tests, not by a request",
    ("bot/not_validated", 422): "bot_match_create and ladder_seats_bind guard the worker's own calls",
    ("bot/wrong_deck", 422): "ladder_seats_bind guards a ladder round's binding on the worker",
    ("bot/wrong_seat", 422): "ladder_seats_bind guards a ladder round's binding on the worker",
    # decks: a programming guard
    ("deck/freeze_purpose_missing", 400): "deck_version_freeze's callers always name a purpose",
}


def _raised(paths: list[str]) -> set[tuple[str, int]]:
    found = set()
    for path in paths:
        root = Path(settings.BASE_DIR) / path
        for file in [root] if root.is_file() else sorted(root.rglob("*.py")):
            if "migrations" in file.parts:
                continue
            for node in ast.walk(ast.parse(file.read_text())):
                if not isinstance(node, ast.Call):
                    continue
                name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                if name not in _STATUS_OF:
                    continue
                keywords = {keyword.arg: keyword.value for keyword in node.keywords}
                code, status = keywords.get("code"), keywords.get("status")
                if isinstance(code, ast.Constant) and isinstance(code.value, str):
                    if status is None:
                        found.add((code.value, _STATUS_OF[name]))
                    else:  # a status worked out at run time (None: any the area lists)
                        found.add((code.value, status.value if isinstance(status, ast.Constant) else None))
    return found


def _listed(tags: tuple[str, ...], status: int | None) -> list[str]:
    statuses = [status] if status is not None else sorted(schema._STATUS_MEANING)
    return [code for each in statuses for code in schema._COMMON_CODES.get(each, [])] + [
        code for tag in tags for each in statuses for code in schema._AREA_CODES.get(tag, {}).get(each, [])
    ]


def _covered(code: str, listed: list[str]) -> bool:
    return code in listed or any(entry.endswith("/*") and code.startswith(entry[:-1]) for entry in listed)


@pytest.mark.parametrize(("tags", "paths"), list(_AREAS.items()), ids=lambda value: "+".join(value))
def test_every_code_an_area_raises_is_in_the_schema_at_its_status(tags, paths):
    raised = _raised(paths)
    assert raised, f"no refusals found under {paths}: the scan is broken"
    missing = sorted(
        f"{status} {code}"
        for code, status in raised
        if (status or 0) < 500
        and (code, status) not in _NOT_FROM_A_REQUEST
        and not _covered(code, _listed(tags, status))
    )
    assert missing == [], f"api/schema.py does not list, for {'/'.join(tags)}: {missing}"


def test_the_scan_sees_what_it_must():
    """The reader finds a literal code at its class's status and at an explicit one."""
    raised = _raised(["tournaments"])
    assert ("tournament/not_found", 404) in raised
    assert ("tournament/corrupt_log", 500) in raised
