"""A person plays Rat-Snake through the API with contributed entropy, then checks the exported match
with docs/verify_match.py run alone (`python -I`, no Snakepit on its path) (issue #23)."""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import play_to_end

SCRIPT = Path(__file__).resolve().parents[2] / "docs" / "verify_match.py"


@pytest.fixture(autouse=True)
def entropy_for_people(settings):
    settings.SNAKEPIT_CONTRIBUTED_ENTROPY = True  # the service's default, which tests/conftest.py turns off


def standalone_verify(export: dict, tmp_path: Path) -> tuple[int, dict]:
    path = tmp_path / "match.json"
    path.write_text(json.dumps(export))
    done = subprocess.run(
        [sys.executable, "-I", str(SCRIPT), str(path)],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    return done.returncode, json.loads(done.stdout) if done.stdout else {}


def commitment_of(value: str) -> str:
    """What `printf %s "$VALUE" | sha256sum` prints, as docs/api.md tells a person to compute it."""
    return hashlib.sha256(value.encode()).hexdigest()


@pytest.mark.django_db
class TestAPersonPlaysWithContributedEntropy:
    def _match(self, users, client_for):
        alice = client_for(users["alice"])
        created = alice.post(
            "/api/matches/",
            {
                "game": "rat-snake",
                "seats": [{"user": "alice"}, {"bot": "random"}],
                "options": {"side_bets": False},
            },
            format="json",
        )
        assert created.status_code == 201, created.json()
        return alice, created.json()

    def test_commit_reveal_play_export_and_check_with_the_standalone_script(
        self, users, client_for, tmp_path
    ):
        alice, match = self._match(users, client_for)
        assert match["entropy"] == "contributed"
        url = f"/api/matches/{match['id']}"
        view = alice.get(f"{url}/view/").json()
        assert view["entropy"]["phase"] == "commit" and view["entropy"]["awaited"] == [0]
        assert view["decision"]["kind"] == "chance", "the first throw waits for alice's part"
        value = f"{random.Random(7).getrandbits(256):064x}"
        committed = alice.post(f"{url}/entropy/", {"commitment": commitment_of(value)}, format="json")
        assert committed.status_code == 201, committed.json()
        assert committed.json()["entropy"]["phase"] == "reveal"
        revealed = alice.post(f"{url}/entropy/", {"value": value}, format="json")
        assert revealed.status_code == 201, revealed.json()
        assert revealed.json()["entropy"]["phase"] == "done"
        assert alice.get(f"{url}/export/").status_code == 409, "the seed stays secret while the match runs"
        play_to_end({0: alice}, match["id"])
        verified = alice.get(f"{url}/verify/").json()
        assert verified["verified"], verified["problems"]
        assert verified["entropy"] == "contributed" and verified["parts"][0] == value
        export = client_for().get(f"{url}/export/").json()
        code, report = standalone_verify(export, tmp_path)
        assert code == 0, report
        assert report["verified"] and report["chance_events_checked"] == verified["chance_events_checked"] > 0
        assert report["parts"] == verified["parts"]

    def test_the_standalone_script_catches_a_changed_draw_a_changed_part_and_a_wrong_seed(
        self, users, client_for, tmp_path
    ):
        alice, match = self._match(users, client_for)
        url = f"/api/matches/{match['id']}"
        value = "ab" * 32
        alice.post(f"{url}/entropy/", {"commitment": commitment_of(value)}, format="json")
        alice.post(f"{url}/entropy/", {"value": value}, format="json")
        play_to_end({0: alice}, match["id"])
        export = alice.get(f"{url}/export/").json()
        assert standalone_verify(export, tmp_path)[0] == 0
        chance = next(event for event in export["events"] if event["kind"] == "chance")
        forged = json.loads(json.dumps(export))
        target = next(event for event in forged["events"] if event["seq"] == chance["seq"])
        target["payload"] = {"dice": [(target["payload"]["dice"][0] % 6) + 1, *target["payload"]["dice"][1:]]}
        code, report = standalone_verify(forged, tmp_path)
        assert code == 1 and f"event {chance['seq']}" in report["problems"][0]
        other_part = json.loads(json.dumps(export))
        reveal = next(
            e
            for e in other_part["events"]
            if e["kind"] == "entropy" and e["payload"]["step"] == "reveal" and e["seat"] == 0
        )
        reveal["payload"]["value"] = "cd" * 32
        code, report = standalone_verify(other_part, tmp_path)
        assert code == 1 and "does not hash to its commitment" in report["problems"][0]
        wrong_seed = {**export, "seed": "00" * 32}
        assert standalone_verify(wrong_seed, tmp_path)[0] == 1

    def test_an_old_match_without_contributions_checks_exactly_as_before(self, users, client_for, tmp_path):
        alice = client_for(users["alice"])
        created = alice.post(
            "/api/matches/",
            {"game": "rat-snake", "seats": [{"user": "alice"}, {"bot": "random"}], "entropy": "server"},
            format="json",
        ).json()
        assert created["entropy"] == "server"
        play_to_end({0: alice}, created["id"])
        verified = alice.get(f"/api/matches/{created['id']}/verify/").json()
        assert verified["verified"] and verified["parts"] == []
        code, report = standalone_verify(alice.get(f"/api/matches/{created['id']}/export/").json(), tmp_path)
        assert code == 0 and report["chance_events_checked"] == verified["chance_events_checked"]

    def test_bad_entropy_requests_are_clear_4xx_and_write_nothing(self, users, client_for):
        alice, match = self._match(users, client_for)
        url = f"/api/matches/{match['id']}"
        seq = alice.get(f"{url}/view/").json()["seq"]
        cases = [
            ({}, 400),
            ({"commitment": "a" * 64, "value": "b" * 64}, 400),
            ({"commitment": "z" * 64}, 422),
            ({"commitment": "a" * 65}, 400),
            ({"value": "a" * 64}, 422),
        ]
        for body, expected in cases:
            response = alice.post(f"{url}/entropy/", body, format="json")
            assert response.status_code == expected, (body, response.json())
            assert set(response.json()) >= {"code", "detail"}
        bogus = {"game": "rat-snake", "seats": [{"user": "alice"}], "entropy": "mine"}
        assert alice.post("/api/matches/", bogus, format="json").status_code == 400
        bob = client_for(users["bob"])
        assert (
            bob.post(f"{url}/entropy/", {"commitment": "a" * 64}, format="json").json()["code"]
            == "seat/not_yours"
        )
        assert client_for().post(f"{url}/entropy/", {"commitment": "a" * 64}, format="json").status_code in (
            401,
            403,
        )
        assert alice.get(f"{url}/view/").json()["seq"] == seq
