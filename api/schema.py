"""The OpenAPI schema says what the API does (docs/api.md, "The schema, and how it is checked").

drf-spectacular describes each view's success; this postprocessing hook adds what every view shares,
so no view hand-writes it:

- one `Error` component, the `{"code", "detail"}` body of every 4xx (plus `fields` on a validation
  error and whatever extra an `ApplicationError` carries, such as `current_seq`);
- each operation's 4xx responses, chosen from what the operation has (a path parameter can be
  404, a body can be 413 and 415, a write can be 403, 409 and 422), each listing its codes; a read
  that can refuse more says so with `extend_schema(extensions=errors(409))`;
- OpenAPI links from each create to the operations on what it created (`POST /api/matches/` gives
  the `id` of `/api/matches/{id}/...`), which schemathesis's stateful run follows.
"""

from __future__ import annotations

import re

from engines.registry import game_keys

ERROR_SCHEMA = {
    "type": "object",
    "description": "Every 4xx body: a stable, namespaced `code` to switch on and a `detail` for people.",
    "properties": {
        "code": {"type": "string", "example": "match/stale_seq"},
        "detail": {"type": "string"},
        "fields": {
            "type": "object",
            "additionalProperties": {},
            "description": "request/invalid: the problems per field of the body.",
        },
        "current_seq": {"type": "integer", "description": "match/stale_seq: the head of the log."},
    },
    "required": ["code", "detail"],
    "additionalProperties": {},
}

# What each status means here, and its codes: the ones any endpoint may answer, then the ones of
# the endpoint's own area (its tag). docs/api.md has the table.
_STATUS_MEANING = {
    400: "The request does not fit the endpoint: a bad body, query or header.",
    401: "No credentials, or bad ones.",
    403: "Not allowed.",
    404: "No such thing.",
    409: "An action out of order or a conflict with another write: nothing was written.",
    413: "The body is over the size cap.",
    415: "A body in a media type the endpoint does not read.",
    422: "A well-formed request that the rules or the current state refuse: nothing was written.",
    429: "Too many requests: wait for `Retry-After` seconds.",
    503: "The server cannot do this here (for uploaded bots: no sandbox): nothing was written.",
}
_COMMON_CODES = {
    400: [
        "request/invalid",
        "request/malformed",
        "request/too_deep",
        "request/nul_character",
        "request/invalid_text",
        "request/out_of_range",
        "request/invalid_query",
    ],
    401: ["auth/not_authenticated", "auth/failed"],
    403: ["auth/forbidden", "quota/*"],
    404: ["request/not_found"],
    409: ["request/conflict"],
    413: ["request/too_large"],
    415: ["request/unsupported_media_type"],
    422: ["request/rejected"],
    429: ["request/throttled"],
}
_AREA_CODES = {
    "games": {404: ["game/unknown"]},
    "bots": {
        400: ["request/invalid_path"],
        403: ["bot/not_owner", "deck/not_yours"],
        404: [
            "bot/not_found",
            "bot/version_not_found",
            "bot/no_archive",
            "bot/match_not_found",
            "deck/not_found",
            "deck/version_not_found",
        ],
        422: [
            "bot/too_large",
            "bot/not_python",
            "bot/bad_archive",
            "bot/source_or_url",
            "bot/bad_url",
            "bot/unknown_game",
            "bot/deck_required",
            "bot/deck_not_needed",
            "bot/wrong_game",
            "deck/illegal",
        ],
        409: ["bot/not_validated"],
        429: ["bot/too_many_versions"],
        503: ["bot/sandbox_unavailable"],
    },
    "matches": {
        400: ["idempotency/key_too_long"],
        403: ["seat/not_yours", "seat/consent_needed"],
        404: ["match/not_found", "game/unknown"],
        409: [
            "match/stale_seq",
            "match/finished",
            "match/not_finished",
            "match/voided",
            "match/report_stale",
        ],
        422: [
            "seats/invalid_count",
            "seat/invalid",
            "seat/unknown_user",
            "seat/unknown_bot",
            "seat/ambiguous",
            "seat/deck_not_needed",
            "seat/deck_required",
            "match/unknown_entropy",
            "match/void_reason_required",
            "match/void_reason_too_long",
            "entropy/malformed",
            "entropy/not_taken",
            "options/unknown",
            "options/wrong_type",
            "options/not_a_choice",
            "options/out_of_range",
            "idempotency/key_reused",
            "turn/not_your_turn",
            "turn/chance_pending",
            "action/malformed",
            "action/unknown",
            "action/not_now",
            "match/over",
            "deck/*",
            "the game's own rule codes (docs/games/)",
        ],
    },
    "challenges": {
        404: ["challenge/not_found"],
        409: [
            "challenge/already_accepted",
            "challenge/accepted",
            "challenge/declined",
            "challenge/cancelled",
            "challenge/expired",
        ],
        422: ["seats/invalid_count", "seat/unknown_bot", "seat/deck_required", "options/*", "deck/*"],
    },
    "ladders": {
        403: ["ladder/not_organiser", "ladder/bots_only", "ladder/users_only"],
        404: ["ladder/not_found", "entry/not_found", "round/not_found"],
        409: [
            "entry/already_joined",
            "entry/not_joined",
            "ladder/slug_taken",
            "ladder/archived",
            "ladder/has_matches",
            "entry/deck_illegal",
        ],
        422: [
            "ladder/not_editable",
            "ladder/no_deck_format",
            "ladder/unknown_rating_model",
            "ladder/round_interval_too_short",
            "ladder/bad_entry_policy",
            "entry/invalid",
            "entry/deck_required",
            "entry/deck_not_needed",
            "entry/wrong_game",
            "entry/bad_pause_reason",
            "seat/unknown_bot",
            "options/*",
            "deck/*",
        ],
    },
    "tournaments": {
        403: ["tournament/not_organiser", "player/not_registered"],
        404: [
            "tournament/not_found",
            "player/not_found",
            "tournament/no_bracket",
            "round/not_found",
            "user/not_found",
        ],
        409: [
            "tournament/wrong_status",
            "tournament/not_deletable",
            "round/already_started",
            "round/not_latest",
            "round/not_over",
            "round/nothing_open",
            "round/starts_when_paired",
            "player/already_dropped",
            "check_in/closed",
            "tournament/full",
            "tournament/slug_taken",
            "round/not_complete",
            "result/already_recorded",
            "result/bracket_moved_on",
            "result/played_on_snakepit",
            "player/already_registered",
            "check_in/not_required",
            "check_in/not_open",
        ],
        422: [
            "tournament/unknown_format",
            "tournament/bad_config",
            "tournament/not_configurable",
            "tournament/bad_result_mode",
            "tournament/bad_seeding",
            "result/not_a_player",
            "result/cannot_confirm_own",
            "result/bad_ranks",
            "result/draw_not_allowed",
            "tournament/bad_rounds_start",
            "player/duplicate",
            "player/not_found",
            "round/bad_rule",
            "round/bad_table",
            "round/bad_times",
            "round/not_held",
            "check_in/bad_window",
            "check_in/deck_illegal",
            "entry/deck_required",
            "entry/deck_not_needed",
            "seat/unknown_bot",
            "webhook/bad_url",
            "webhook/too_many",
            "webhook/unknown_event",
            "import/bad_format",
            "import/bad_log",
            "import/too_large",
            # the formats library's refusals (tournaments/formats/), by format
            "bracket/*",
            "groups/*",
            "pairing/*",
            "pods/*",
            "round_robin/*",
            "seeding/*",
            "standings/*",
            "swiss/*",
            "deck/*",
            "the other reducer codes in docs/tournaments.md",
        ],
    },
    "decks": {
        400: [
            "deck/no_cards",
            "deck/malformed",
            "deck/too_large",
            "deck/ambiguous_input",
            "deck/bad_seed",
            "deck/bad_turns",
            "ban_list/invalid",
            "text/*",
        ],
        403: ["deck/not_yours", "ban_list/not_staff"],
        404: ["deck/not_found", "deck/version_not_found", "deck/unknown_format"],
        409: ["deck/frozen", "ban_list/version_taken"],
        422: ["deck/illegal", "deck/no_cards"],
    },
    # A game's own catalogue (cards, formats, prebuilt decks, deck checks), served under /api/<game>/
    # and so tagged with the game's key.
    "catalogues": {
        400: [
            "deck/no_cards",
            "deck/malformed",
            "deck/too_large",
            "deck/ambiguous_input",
            "catalogue/invalid_filter",
            "text/*",
        ],
        404: ["card/not_found", "deck/unknown_format", "prebuilt/not_found"],
    },
}
_AREA_OF_TAG = {"ladder-entries": "ladders", "tournament-formats": "tournaments"}


def _area(tag: str) -> str:
    if tag in _AREA_OF_TAG:
        return _AREA_OF_TAG[tag]
    return "catalogues" if tag in game_keys() else tag


_UNSAFE = {"post", "put", "patch", "delete"}
_METHODS = {"get", "post", "put", "patch", "delete"}


def errors(*statuses: int) -> dict:
    """`extend_schema(extensions=errors(409))`: statuses this operation answers beyond its defaults."""
    return {"x-error-statuses": list(statuses)}


def error_statuses(method: str, operation: dict) -> list[int]:
    """The 4xx statuses this operation can answer, from what it has."""
    parameters = operation.get("parameters", [])
    has_path = any(parameter.get("in") == "path" for parameter in parameters)
    has_seat = any(parameter.get("name") == "seat" for parameter in parameters)
    statuses = {400, 401, 429, *operation.pop("x-error-statuses", [])}
    if method in _UNSAFE or has_seat:
        statuses.add(403)
    if has_path:
        statuses.add(404)
    if method in _UNSAFE:
        statuses.update({409, 422})
    if "requestBody" in operation or method in _UNSAFE:
        statuses.update({413, 415})
    return sorted(statuses)


def _codes(status: int, tags: list[str]) -> list[str]:
    codes = list(_COMMON_CODES.get(status, []))
    for tag in tags:
        codes += _AREA_CODES.get(_area(tag), {}).get(status, [])
    return list(dict.fromkeys(codes))


def _error_response(status: int, tags: list[str]) -> dict:
    codes = ", ".join(f"`{code}`" for code in _codes(status, tags))
    response = {
        "description": f"{_STATUS_MEANING[status]} Codes: {codes}.",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }
    if status == 429:
        response["headers"] = {
            "Retry-After": {
                "schema": {"type": "integer"},
                "description": "Seconds to wait before trying again.",
            }
        }
    return response


def _add_links(paths: dict) -> None:
    """Each create answers with its thing's key; link it to every operation under that key."""
    for path, item in paths.items():
        create = item.get("post")
        if create is None or "{" in path:
            continue
        created = create.get("responses", {}).get("201")
        if not created:
            continue
        links = {}
        for other_path, other_item in paths.items():
            match = re.fullmatch(re.escape(path) + r"\{(\w+)\}/(.*)", other_path)
            if match is None:
                continue
            key, rest = match.groups()
            if "{" in rest:  # a second parameter the create does not give
                continue
            for method, operation in other_item.items():
                if method in _METHODS and "operationId" in operation:
                    links[operation["operationId"]] = {
                        "operationId": operation["operationId"],
                        "parameters": {key: f"$response.body#/{key}"},
                    }
        if links:
            created["links"] = links


def postprocess_schema(result, generator, request, public):
    """drf-spectacular postprocessing hook (SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"])."""
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    for item in result.get("paths", {}).values():
        for method, operation in item.items():
            if method not in _METHODS:
                continue
            responses = operation.setdefault("responses", {})
            tags = operation.get("tags", [])
            for status in error_statuses(method, operation):
                responses.setdefault(str(status), _error_response(status, tags))
    _add_links(result.get("paths", {}))
    return result
