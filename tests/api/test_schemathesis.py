"""Schemathesis over the whole OpenAPI schema, as served at /api/schema/: every operation with
generated valid and invalid requests (examples, boundary values, then fuzzing), and a stateful run
that follows the schema's links from each create to what it created. No answer may be a 5xx, carry
a status or media type the operation does not document, or a body that contradicts the schema.

Requests go to the Django WSGI application in this process (no network), inside the test's database
transaction; a fixed seed (hypothesis's derandomize) and a bounded budget keep it reproducible and
well under three minutes on two cores. docs/api.md says how to run it longer."""

from __future__ import annotations

import os

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections, transaction
from hypothesis import HealthCheck, given, settings
from rest_framework.authtoken.models import Token
from schemathesis import GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from snakepit.wsgi import application

# What the issue asks of every answer; the stricter opinions of schemathesis's other checks (that the
# API refuses every request the schema would not generate, say) are not this API's contract.
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
# Examples per operation and mode, and half as many as the stateful run's scenarios:
# SNAKEPIT_SCHEMATHESIS_EXAMPLES raises both.
BUDGET = int(os.environ.get("SNAKEPIT_SCHEMATHESIS_EXAMPLES", "8"))
FIXED = settings(
    max_examples=BUDGET,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def in_test_transaction():
    """Django closes the connection at the end of each WSGI request; inside a test's transaction
    that would end the transaction, so (as Django's own test client does) the WSGI requests here
    leave the connection open."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def auth(django_user_model):
    user = django_user_model.objects.create_user("fuzzer", password="fuzzer-password")
    return {"Authorization": f"Token {Token.objects.create(user=user).key}"}


@pytest.fixture
def api_schema(in_test_transaction, settings):
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "localhost"]
    # Rate limits would answer most of the budget with a (documented) 429; raised, the requests
    # reach the views (the limits have their own tests).
    settings.SNAKEPIT_RATES = {scope: "100000/min" for scope in settings.SNAKEPIT_RATES}
    schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)
    # The schema's own view answers in any of a hundred languages; generating it again per example
    # would take the whole budget. The walk in test_schema.py checks it.
    return schema.exclude(path="/api/schema/")


def can_be_wrong(operation) -> bool:
    """Whether a request can break this operation's schema: any string fits a plain string
    parameter, so an operation with nothing else has no invalid request to generate."""
    raw = operation.definition.raw
    return "requestBody" in raw or any(
        set(parameter.get("schema", {})) - {"description"} != {"type"}
        or parameter["schema"]["type"] != "string"
        for parameter in raw.get("parameters", [])
    )


class Findings:
    """What the checks refuse, kept rather than raised: every request lands in one database that no
    example resets, so hypothesis could neither shrink nor replay a failure faithfully (it would
    report a flaky test instead of the answer). Each finding carries its curl to reproduce it."""

    def __init__(self) -> None:
        self.found: list[str] = []

    def check(self, case, response, **kwargs) -> None:
        try:
            case.validate_response(response, checks=CHECKS, **kwargs)
        except Exception as error:  # noqa: BLE001 - schemathesis's FailureGroup and any check's error
            self.found.append(f"{case.operation.label}:\n{error}")

    def assert_none(self) -> None:
        assert not self.found, "\n\n".join(self.found[:5]) + f"\n\n({len(self.found)} in all)"


def test_every_operation_answers_within_its_schema(api_schema, auth):
    # One loop rather than schemathesis.pytest's parametrize (which does not run under pytest 9):
    # each operation gets the budget twice, with requests that fit the schema and with ones that do not.
    findings = Findings()
    for result in api_schema.get_all_operations():
        operation = result.ok()
        modes = [GenerationMode.POSITIVE] + ([GenerationMode.NEGATIVE] if can_be_wrong(operation) else [])
        for mode in modes:

            @FIXED
            @given(case=operation.as_strategy(generation_mode=mode))
            def answer_fits(case):
                findings.check(case, case.call(headers=auth), headers=auth)

            answer_fits()
    findings.assert_none()


def test_stateful_runs_along_the_links_find_nothing(api_schema, auth):
    findings = Findings()

    class Links(api_schema.as_state_machine()):
        # Every run of steps starts from the same database: a run's writes (a ladder deleted, a match
        # created) are rolled back after it, so hypothesis replaying a run meets the answers it drew
        # from the first time (otherwise: FlakyStrategyDefinition, the links resolving differently).
        def __init__(self):
            self._run = transaction.atomic()
            self._run.__enter__()
            super().__init__()

        def teardown(self):
            try:
                super().teardown()
            finally:
                transaction.set_rollback(True)
                self._run.__exit__(None, None, None)

        def get_call_kwargs(self, case):
            return {"headers": auth}

        def validate_response(self, response, case, additional_checks=None, **kwargs):
            findings.check(case, response, transport_kwargs=kwargs or None)

    Links.run(settings=settings(FIXED, max_examples=2 * BUDGET, stateful_step_count=12))
    findings.assert_none()
