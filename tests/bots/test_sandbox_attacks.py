"""The last attack run on uploaded bots, each attack a test: nothing of the host is reached, and the
forfeit names the cause. (The sandbox's own behaviour, deadlines and escapees, is test_sandbox.py's.)"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from django.conf import settings

from bots.sandbox import SandboxedBot, SandboxLimits
from tests.bots.conftest import message_line, program
from tests.bots.test_sandbox import ask_expecting_fault, processes_of

pytestmark = pytest.mark.usefixtures("root_worker")

LIMITS = SandboxLimits(start_ms=3000)
_x86_64_only = pytest.mark.skipif(os.uname().machine != "x86_64", reason="x32 is x86-64's")
TOKEN = "snakepit-host-secret-7f3a"


def played(source: str, *, limits: SandboxLimits = LIMITS, files=None) -> str:
    """The stderr of a bot that looked around, then answered a message."""
    with SandboxedBot(source=source, files=files, limits=limits) as bot:
        answer, _ = bot.ask(message_line(), deadline_ms=5000)
        assert answer == b'{"action": {"type": "pass"}}'
        return bot.stderr_tail()


@pytest.fixture
def decoy_var():
    """A var/ as a careless deployment leaves it outside /tmp: world-readable files in a
    world-readable folder of the checkout, so file permissions alone would not keep a bot out."""
    root = Path(tempfile.mkdtemp(prefix="decoy-var-", dir=settings.BASE_DIR))
    root.chmod(0o755)
    (root / "broker").mkdir(mode=0o755)
    (root / "log").mkdir(mode=0o755)
    for relative in (
        "snakepit.sqlite3",
        "snakepit.sqlite3-wal",
        "broker/message.msg",
        "log/snakepit.log",
        "secret_key",
    ):
        (root / relative).write_text(f"{TOKEN} in {relative}")
        (root / relative).chmod(0o644)
    yield root
    shutil.rmtree(root)


def test_the_database_broker_logs_secret_and_checkout_are_out_of_reach(decoy_var):
    paths = [
        *(str(decoy_var / name) for name in ("snakepit.sqlite3", "snakepit.sqlite3-wal", "secret_key")),
        *(str(decoy_var / name) for name in ("broker", "broker/message.msg", "log", "log/snakepit.log")),
        str(settings.VAR_DIR), str(settings.VAR_DIR / "secret_key"),
        str(settings.VAR_DIR / "snakepit.sqlite3"),
        str(settings.BASE_DIR / "manage.py"), str(settings.BASE_DIR / "snakepit" / "settings.py"),
        "/etc/passwd", "/etc/hostname", "/root", "/home", "/tmp", "/run", "/var", "/usr/local", "/usr/share",
    ]  # fmt: skip
    seen = played(program("snoop", PATHS=repr(paths)))
    assert TOKEN not in seen
    for path in paths:
        assert f"{path}: absent" in seen, path


def test_the_bot_sees_only_the_interpreter_its_libraries_and_its_scratch():
    seen = played(program("snoop", PATHS="[]"))
    top = _listing(seen, "/")
    assert set(top) <= {"usr", "lib", "lib64", "proc", "dev", "scratch"} and "scratch" in top
    assert _listing(seen, "/usr/bin") == [
        Path(os.path.realpath(shutil.which("python3", path="/usr/bin"))).name
    ]
    assert set(_listing(seen, "/usr/lib")) <= {"python3.11", "x86_64-linux-gnu", "aarch64-linux-gnu"}


def _listing(seen: str, top: str) -> list[str]:
    found = re.search(rf"^listing {re.escape(top)}: (\[.*\])$", seen, re.MULTILINE)
    assert found, seen
    return eval(found.group(1))  # noqa: S307 - a list of names printed by the test's own bot


def test_host_processes_and_their_command_lines_are_out_of_sight():
    host = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", TOKEN])
    try:
        for _ in range(100):  # (empty until the child has exec'd)
            if TOKEN.encode() in Path(f"/proc/{host.pid}/cmdline").read_bytes():
                break  # the host sees it
            time.sleep(0.05)
        else:
            pytest.fail("the host process never showed its command line")
        seen = played(program("snoop", PATHS="[]"))
    finally:
        host.kill()
        host.wait()
    assert TOKEN not in seen
    pids = eval(re.search(r"^pids: (\[.*\])$", seen, re.MULTILINE).group(1))  # noqa: S307
    assert pids and max(pids) < 10  # its own PID namespace: the reaper and the bot, nothing more
    assert "-I" in seen  # it did read a command line: its own


def test_another_bots_source_is_out_of_reach():
    victim_source = f"# {TOKEN}\n" + program("random_bot")
    with SandboxedBot(source=victim_source, limits=LIMITS) as victim:
        victim.ask(message_line(), deadline_ms=5000)  # running, its file written
        seen = played(program("snoop", PATHS=repr(["/tmp", "/scratch/bot.py"])))
        assert victim.ask(message_line(), deadline_ms=5000)[0]  # still running all along
    assert TOKEN not in seen
    assert "/tmp: absent" in seen and "/scratch/bot.py: read b'# An attacker" in seen  # its own file only
    assert "nested user namespace: refused" in seen


@pytest.mark.parametrize("scratch_bytes", [16 * 1024 * 1024, 4 * 1024 * 1024])
def test_filling_the_disk_stops_at_the_scratch_limit(scratch_bytes, settings):
    settings.SNAKEPIT_BOTS_SCRATCH_BYTES = scratch_bytes
    settings.SNAKEPIT_BOTS_LIMITS = {"start_ms": 3000}
    seen = played(program("fill_disk"), limits=SandboxLimits.from_settings())
    written = int(re.search(r"wrote (\d+) then errno 28", seen).group(1))  # ENOSPC
    assert scratch_bytes - 2 * 1024 * 1024 <= written <= scratch_bytes


def test_the_bots_files_and_folders_are_owner_only_whatever_the_umask():
    files = {"main.py": program("modes").encode(), "package/helper.py": b"HELP = 1\n"}
    previous = os.umask(0)
    try:
        seen = played("", files=files)
    finally:
        os.umask(previous)
    modes = dict(re.findall(r"^mode (\S+) (0o\d+)$", seen, re.MULTILINE))
    assert modes == {
        ".": "0o700", "main.py": "0o600", "package": "0o700", "package/helper.py": "0o600",
        "made": "0o700", "made/note.txt": "0o600",
    }  # fmt: skip


@pytest.mark.parametrize(
    "family", ["inet", "packet", "netlink", "io_uring", pytest.param("x32", marks=_x86_64_only)]
)
def test_a_socket_the_audit_hook_cannot_see_is_named_network_by_the_kernel(family):
    fault, bot = ask_expecting_fault(program("raw_socket", FAMILY=repr(family)), deadline_ms=5000)
    assert fault.reason == "network"
    assert "the kernel stopped the bot" in fault.detail
    assert "opened" not in bot.stderr_tail()


def test_a_cpu_bomb_dies_at_the_cpu_limit_and_the_forfeit_says_so():
    limits = SandboxLimits(start_ms=3000, cpu_seconds=1)
    fault, bot = ask_expecting_fault(program("cpu_bomb"), deadline_ms=30_000, limits=limits)
    assert fault.reason == "crash"
    assert "killed by SIGXCPU at the CPU-time limit" in fault.detail
    assert processes_of(bot.uid) == []


def test_a_memory_bomb_is_a_crash_that_names_the_memory_error():
    fault, bot = ask_expecting_fault(program("memory_bomb"), deadline_ms=5000)
    assert fault.reason == "crash" and "MemoryError" in bot.stderr_tail()


def test_a_fork_bomb_is_stopped_and_leaves_nothing_behind():
    limits = SandboxLimits(start_ms=3000, processes=8)
    fault, bot = ask_expecting_fault(program("fork_bomb"), deadline_ms=600, limits=limits)
    assert fault.reason == "timeout"
    assert processes_of(bot.uid) == []
