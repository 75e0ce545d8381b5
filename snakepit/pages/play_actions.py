"""The legal actions of a seat, turned into the buttons and form fields of the play page, and a
submitted form turned back into an action.

The engine's `legal_actions` list is the only source: nothing here knows a game. Actions are grouped
by their type and the names of their parameters. A group is drawn as

- buttons, one an action, when it is small;
- one field a parameter, when the group is every combination of its parameters' values (a stake and a
  prediction, say): a number field for a run of whole numbers, a list otherwise;
- one list of the group's actions otherwise, so a choice the engine never offered cannot be built.

Every value travels as JSON, so a form posts back exactly what the engine listed; the engine then
judges the action like any other (matches.services.match_submit_action).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from itertools import product
from typing import Any

from django.http import QueryDict

from api.limits import INT_MAX
from api.parsers import BadBody, check_bounds

BUTTONS_AT_MOST = 8  # a group this small is a row of buttons
MAX_ACTION_FIELD = 4000  # characters of one posted JSON value; the longest legal action is far shorter
MAX_ACTION_DEPTH = 6
PARAMETER_PREFIX = "param."


class ActionFormError(ValueError):
    """A play form that does not describe an action (tampered with, or from an older page)."""


@dataclass
class Choice:
    value: str  # the JSON posted back
    label: str


@dataclass
class Parameter:
    name: str
    label: str
    choices: list[Choice] = field(default_factory=list)
    minimum: int | None = None  # set for a run of whole numbers: drawn as a number field
    maximum: int | None = None


@dataclass
class ActionGroup:
    type: str
    label: str
    style: str  # "buttons", "fields" or "list"
    buttons: list[Choice] = field(default_factory=list)
    parameters: list[Parameter] = field(default_factory=list)
    choices: list[Choice] = field(default_factory=list)

    @property
    def key(self) -> str:
        return "-".join([self.type, *(parameter.name for parameter in self.parameters)])


def words(name: str) -> str:
    """`continue_or_bow_out` or `rat-king` as words people read."""
    return str(name).replace("_", " ").replace("-", " ")


def value_label(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return words(value)
    if isinstance(value, list):
        if not value:
            return "nothing"
        return ", ".join(value_label(item) for item in value)
    if isinstance(value, dict):
        return "; ".join(f"{words(key)} {value_label(item)}" for key, item in value.items())
    return str(value)


def action_label(action: dict[str, Any], *, with_type: bool = True) -> str:
    parts = [words(action.get("type", "?"))] if with_type else []
    parts += [f"{words(key)}: {value_label(value)}" for key, value in action.items() if key != "type"]
    return " · ".join(parts) if parts else words(action.get("type", "?"))


def _encoded(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def action_groups(legal_actions: list[dict[str, Any]]) -> list[ActionGroup]:
    """The seat's legal actions as groups to draw, in the order the engine listed them."""
    grouped: dict[tuple[str, tuple[str, ...]], list[dict[str, Any]]] = {}
    for action in legal_actions:
        names = tuple(sorted(key for key in action if key != "type"))
        grouped.setdefault((str(action.get("type", "")), names), []).append(action)
    return [_group(kind, names, actions) for (kind, names), actions in grouped.items()]


def _group(kind: str, names: tuple[str, ...], actions: list[dict[str, Any]]) -> ActionGroup:
    label = words(kind)
    if len(actions) <= BUTTONS_AT_MOST:
        buttons = [
            Choice(_encoded(action), action_label(action, with_type=len(actions) == 1)) for action in actions
        ]
        return ActionGroup(type=kind, label=label, style="buttons", buttons=buttons)
    values: dict[str, list[Any]] = {name: [] for name in names}
    for action in actions:
        for name in names:
            if action[name] not in values[name]:
                values[name].append(action[name])
    combinations = 1
    for name in names:
        combinations *= len(values[name])
    offered = {_encoded(action) for action in actions}
    if combinations == len(offered) and all(
        _encoded({"type": kind, **dict(zip(names, combination))}) in offered
        for combination in product(*(values[name] for name in names))
    ):
        return ActionGroup(
            type=kind,
            label=label,
            style="fields",
            parameters=[_parameter(name, values[name]) for name in names],
        )
    choices = [Choice(_encoded(action), action_label(action, with_type=False)) for action in actions]
    return ActionGroup(type=kind, label=label, style="list", choices=choices)


def _parameter(name: str, values: list[Any]) -> Parameter:
    parameter = Parameter(name=name, label=words(name))
    whole = [value for value in values if type(value) is int]
    if len(whole) == len(values) and len(values) > 2 and max(whole) - min(whole) + 1 == len(values):
        parameter.minimum, parameter.maximum = min(whole), max(whole)
    else:
        parameter.choices = [Choice(_encoded(value), value_label(value)) for value in values]
    return parameter


def _decoded(raw: str, what: str) -> Any:
    if len(raw) > MAX_ACTION_FIELD:
        raise ActionFormError(f"{what} is longer than {MAX_ACTION_FIELD} characters")
    try:
        value = json.loads(raw)
        check_bounds(value, max_depth=MAX_ACTION_DEPTH)
    except (ValueError, RecursionError, BadBody):
        raise ActionFormError(f"{what} is not a value this page offered") from None
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > INT_MAX:
        raise ActionFormError(f"{what} is out of range")
    return value


def action_from_form(data: QueryDict) -> dict[str, Any]:
    """The action a play form posted: a button's or list's whole action (`chosen_action`), or a type
    and one value a parameter (`action_type`, `param.<name>`). (Not `action` and `type`: a form's
    field of that name hides the form's own `action` property from scripts.)"""
    if data.get("chosen_action"):
        action = _decoded(data["chosen_action"], "the action")
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise ActionFormError("the action is not one this page offered")
        return action
    kind = data.get("action_type", "")
    if not kind or len(kind) > 60:
        raise ActionFormError("choose an action")
    action: dict[str, Any] = {"type": kind}
    for key in data:
        if key.startswith(PARAMETER_PREFIX):
            name = key[len(PARAMETER_PREFIX) :]
            if not name or len(name) > 60 or name == "type":
                raise ActionFormError("the form has a field this page never offered")
            raw = data.get(key, "").strip()
            if raw == "":
                raise ActionFormError(f"fill in {words(name)}")
            action[name] = _decoded(raw, words(name))
    return action
