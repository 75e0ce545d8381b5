"""One error shape for the whole house: the engines', the formats library's and the services' errors
are all `coded_errors.CodedError`s with a stable code and a detail (docs/architecture.md)."""

from __future__ import annotations

import pytest

from coded_errors import CodedError
from core.errors import ApplicationError, Conflict, Rejected
from engines.errors import EngineError, IllegalAction
from engines.rattlesnake.catalogue import CatalogueError
from tournaments.formats.common import FormatError, seed_players


@pytest.mark.parametrize("family", [EngineError, FormatError, ApplicationError])
def test_each_family_has_the_shared_shape(family):
    error = family("a reason", code="area/what")
    assert isinstance(error, CodedError)
    assert (error.code, error.detail, str(error)) == ("area/what", "a reason", "a reason")
    assert error.as_body() == {"code": "area/what", "detail": "a reason"}


def test_a_code_given_replaces_the_class_default_for_that_error_only():
    assert IllegalAction("x", code="turn/not_your_turn").code == "turn/not_your_turn"
    assert IllegalAction("x").code == "action/illegal"
    assert repr(CatalogueError("no such card")) == "CatalogueError('catalogue/invalid', 'no such card')"


def test_a_pure_library_refusal_is_caught_by_the_base():
    with pytest.raises(CodedError) as caught:
        seed_players(["ann", "ann"])
    assert caught.value.code == "seeding/duplicate_player"


def test_service_errors_keep_their_status_and_extra_fields():
    stale = Conflict("the log moved on", code="match/stale_seq", current_seq=18)
    assert stale.status == 409
    assert stale.as_body() == {"code": "match/stale_seq", "detail": "the log moved on", "current_seq": 18}
    assert Rejected("no", status=409).status == 409 and Rejected("no").status == 422
