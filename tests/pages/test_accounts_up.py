"""A fresh `manage.py up`, for real (#32): its banner prints the staff password once, and neither its
pages, nor the logs under var/log, nor the database hold it; a second `up` prints no password."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

from snakepit.demo import DEMO_PASSWORD, STAFF_USERNAME
from snakepit.processes import free_port, stop
from tests.workers import wait_until

ROOT = Path(__file__).resolve().parents[2]
BANNER = "Snakepit is running"
UP_SECONDS = 240  # migrations and the demo world on a machine shared with other test runs


def up_once(var: Path, out: Path) -> tuple[str, dict[str, str]]:
    """Run `up` on its own SQLite database in `var` until its banner is out: its output and a few pages."""
    chosen = ("CI", "DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "SNAKEPIT_VAR_DIR", "DJANGO_DEBUG")
    env = {**{k: v for k, v in os.environ.items() if k not in chosen}, "SNAKEPIT_VAR_DIR": str(var)}
    port = free_port()
    with open(out, "wb") as log:
        up = subprocess.Popen(
            [sys.executable, "manage.py", "up", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_until(lambda: BANNER in out.read_text(errors="replace"), timeout=UP_SECONDS, what="up", log=out)
        pages = {path: fetch(port, path) for path in ("/", "/accounts/sign-in/", "/ops/", "/admin/login/")}
    finally:
        stop(up, signal.SIGINT)
    return out.read_text(errors="replace"), pages


def fetch(port: int, path: str) -> str:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as response:
            return response.read().decode()
    except urllib.error.HTTPError as error:
        return error.read().decode()


def test_a_fresh_up_prints_the_staff_password_once_and_nothing_else_holds_it(tmp_path):
    var = tmp_path / "var"
    first, pages = up_once(var, tmp_path / "first.out")
    found = re.search(rf"Staff: {STAFF_USERNAME} / (\S+)", first)
    assert found, first
    password = found.group(1)
    assert len(password) >= 20
    assert DEMO_PASSWORD in pages["/accounts/sign-in/"]  # served to this machine: the demo login shows
    for path, body in pages.items():
        assert password not in body, path
    written = [path for path in var.rglob("*") if path.is_file()]
    assert any(path.parent.name == "log" for path in written)
    for path in written:  # the children's logs, the database and its WAL, the broker
        assert password.encode() not in path.read_bytes(), path
    second, _ = up_once(var, tmp_path / "second.out")
    assert f"Staff: {STAFF_USERNAME} (" in second and "changepassword" in second
    assert password not in second
