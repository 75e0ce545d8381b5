"""Request body parsers with bounds: a JSON body nests at most `SNAKEPIT_MAX_JSON_DEPTH` deep, carries
no NUL character (no database text column takes one) and no lone surrogate (JSON's `"\\ud800"` escape
parses to a code point that is not text: echoed in an error's detail, it crashed the JSON renderer,
and no database stores it). Each is a 400 with a code, never a crash deep in the parser, the renderer
or the database."""

from __future__ import annotations

import json
import re

from django.conf import settings
from rest_framework import exceptions
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser


# A surrogate code point alone: valid in a Python str, never in UTF-8 text.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class BadBody(exceptions.ParseError):
    def __init__(self, detail: str, code: str) -> None:
        super().__init__(detail)
        self.error_code = code


def check_bounds(value, *, max_depth: int) -> None:
    """Walks the parsed value without recursion, so its own depth cannot crash it."""
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, str):
            if "\x00" in item:
                raise BadBody("the body carries a NUL character", "request/nul_character")
            if LONE_SURROGATE.search(item):
                raise BadBody(
                    "the body carries a lone surrogate (\\ud800 to \\udfff), which is not text",
                    "request/invalid_text",
                )
        elif isinstance(item, (dict, list)):
            if depth > max_depth:
                raise BadBody(f"the body nests deeper than {max_depth} levels", "request/too_deep")
            if isinstance(item, dict):
                pending.extend((key, depth) for key in item)
                pending.extend((child, depth + 1) for child in item.values())
            else:
                pending.extend((child, depth + 1) for child in item)


class BoundedJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        raw = stream.read() if stream is not None else b""
        try:
            value = json.loads(raw.decode("utf-8"), parse_constant=_refuse_constant)
        except RecursionError:
            raise BadBody(
                f"the body nests deeper than {settings.SNAKEPIT_MAX_JSON_DEPTH} levels", "request/too_deep"
            ) from None
        except (ValueError, UnicodeDecodeError) as error:
            raise exceptions.ParseError(f"JSON parse error: {error}") from None
        check_bounds(value, max_depth=settings.SNAKEPIT_MAX_JSON_DEPTH)
        return value


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def _check_form(data):
    for key, values in data.lists():
        if "\x00" in key or any(isinstance(value, str) and "\x00" in value for value in values):
            raise BadBody("the body carries a NUL character", "request/nul_character")
    return data


class BoundedFormParser(FormParser):
    def parse(self, stream, media_type=None, parser_context=None):
        return _check_form(super().parse(stream, media_type, parser_context))


class BoundedMultiPartParser(MultiPartParser):
    def parse(self, stream, media_type=None, parser_context=None):
        parsed = super().parse(stream, media_type, parser_context)
        _check_form(parsed.data)
        return parsed
