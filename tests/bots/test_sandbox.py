"""The sandbox against real misbehaving bots: each fault is caught, named, and leaves nothing behind."""

from __future__ import annotations

import shutil
import socket
import tempfile
import time
from pathlib import Path

import pytest

from bots.protocol import BotFault
from bots.sandbox import SandboxedBot, SandboxLimits, namespaces_available
from tests.bots.conftest import message_line, program

pytestmark = pytest.mark.usefixtures("root_worker")
# (the skip is for a developer's laptop only: CI and these machines run as root)

LIMITS = SandboxLimits(start_ms=3000)


def processes_of(uid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                status = (entry / "status").read_text()
            except OSError:
                continue
            fields = dict(line.split(":\t", 1) for line in status.splitlines() if ":\t" in line)
            if str(uid) in fields["Uid"].split() and not fields["State"].startswith(
                "Z"
            ):  # zombies hold nothing
                found.append(int(entry.name))
    return found


def ask_expecting_fault(
    source: str, *, deadline_ms: int = 300, overage_ms: int = 0, limits=LIMITS
) -> tuple[BotFault, SandboxedBot]:
    bot = SandboxedBot(source=source, limits=limits, overage_ms=overage_ms)
    bot.start()
    try:
        with pytest.raises(BotFault) as caught:
            bot.ask(message_line(), deadline_ms=deadline_ms)
    finally:
        bot.close()
    return caught.value, bot


def test_namespaces_work_on_this_machine():
    assert namespaces_available()


def test_a_well_behaved_bot_answers_each_message_and_is_gone_after_close():
    bot = SandboxedBot(source=program("random_bot"), limits=LIMITS)
    bot.start()
    uid = bot.uid
    for _ in range(3):
        answer, elapsed = bot.ask(message_line(), deadline_ms=1000)
        assert answer == b'{"action": {"type": "pass"}}' and elapsed >= 0
    bot.close()
    assert processes_of(uid) == []


def test_an_infinite_loop_times_out_after_the_deadline_and_the_overage_bank():
    began = time.monotonic()
    fault, _ = ask_expecting_fault(program("infinite_loop"), deadline_ms=200, overage_ms=300)
    assert fault.reason == "timeout"
    assert 0.45 < time.monotonic() - began < 5


def test_a_slow_move_is_paid_from_the_overage_bank():
    bot = SandboxedBot(source=program("slow_then_fast"), limits=LIMITS, overage_ms=1000)
    with bot:
        bot.ask(message_line(deadline_ms=100), deadline_ms=100)
        assert bot.remaining_overage_ms == 1000
        bot.ask(message_line(deadline_ms=100), deadline_ms=100)
        assert 0 < bot.remaining_overage_ms <= 1000 - 150


def test_a_memory_bomb_dies_at_the_address_space_limit():
    fault, bot = ask_expecting_fault(program("memory_bomb"), deadline_ms=5000)
    assert fault.reason == "crash"
    assert "MemoryError" in bot.stderr_tail()


def test_a_fork_bomb_stops_at_the_process_cap_and_every_process_is_killed():
    limits = SandboxLimits(start_ms=3000, processes=8)
    bot = SandboxedBot(source=program("fork_bomb"), limits=limits)
    bot.start()
    uid = bot.uid
    try:
        with pytest.raises(BotFault):
            bot.ask(message_line(), deadline_ms=600)
        # (close ran inside ask; the processes counted here would be any that survived it)
    finally:
        bot.close()
    assert processes_of(uid) == []


def test_the_process_cap_holds_while_the_bomb_runs():
    limits = SandboxLimits(start_ms=3000, processes=8)
    bot = SandboxedBot(source=program("fork_bomb"), limits=limits)
    bot.start()
    try:
        bot.process.stdin.write(message_line())
        bot.process.stdin.flush()
        time.sleep(0.5)
        assert 1 <= len(processes_of(bot.uid)) <= 8
    finally:
        bot.close()
    assert processes_of(bot.uid) == []


@pytest.mark.parametrize("name", ["escapee", "hidden_escapee"])
def test_a_child_that_left_the_process_group_is_killed_too(name):
    fault, bot = ask_expecting_fault(program(name), deadline_ms=2000)
    assert fault.reason == "crash"
    time.sleep(0.1)
    assert processes_of(bot.uid) == []


def test_the_network_is_out_of_reach_even_on_loopback():
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.settimeout(0.5)
        port = listener.getsockname()[1]
        fault, bot = ask_expecting_fault(program("network", PORT=str(port)), deadline_ms=3000)
        with pytest.raises(TimeoutError):
            listener.accept()
    assert fault.reason == "network"
    assert fault.detail.startswith(
        "snakepit: the bot reached for the network (socket.getaddrinfo '127.0.0.1')"
    )


def test_a_bot_that_goes_around_the_hook_is_stopped_by_the_kernel_and_named_network():
    """The audit hook only sees Python's socket calls: a bot that calls the C library itself (ctypes)
    meets the seccomp filter, which kills it at socket(AF_INET) before anything is reached."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.settimeout(0.5)
        port = listener.getsockname()[1]
        fault, bot = ask_expecting_fault(program("network_around_the_hook", PORT=str(port)), deadline_ms=3000)
        with pytest.raises(TimeoutError):
            listener.accept()
    assert fault.reason == "network"
    assert fault.detail.startswith(
        "snakepit: the kernel stopped the bot at a system call the sandbox refuses"
    )
    assert "connect" not in bot.stderr_tail()  # it never got as far as connect(2)


def test_files_outside_the_scratch_directory_cannot_be_written(tmp_path):
    outside = tmp_path / "escaped.txt"
    tmp_path.chmod(0o777)  # writable by anyone on the host: only the sandbox keeps the bot out
    bot = SandboxedBot(source=program("write_outside", OUTSIDE=repr(str(outside))), limits=LIMITS)
    with bot:
        bot.ask(message_line(), deadline_ms=3000)
        seen = bot.stderr_tail()
    assert "kept: mine" in seen  # its scratch directory is writable
    assert not outside.exists()
    assert not Path("/escaped-from-scratch.txt").exists()
    assert not Path("/escaped.txt").exists()
    for target in ("../escaped.txt", "/escaped-from-scratch.txt", str(outside)):
        assert f"refused {target}" in seen


@pytest.mark.parametrize(("name", "reason"), [("garbage", "garbage"), ("crash", "crash"), ("flood", "flood")])
def test_faults_are_named(name, reason):
    from bots.protocol import answer_parse

    bot = SandboxedBot(source=program(name), limits=LIMITS)
    bot.start()
    try:
        with pytest.raises(BotFault) as caught:
            answer, _ = bot.ask(message_line(), deadline_ms=2000)
            answer_parse(answer)
    finally:
        bot.close()
    assert caught.value.reason == reason


def test_the_hosts_unix_sockets_and_shared_tmp_are_out_of_sight():
    marker = Path(tempfile.mkdtemp(prefix="snakepit-marker-", dir="/tmp")) / "marker"
    marker.parent.chmod(0o755)
    marker.write_text("host")
    marker.chmod(0o644)
    socket_dir = Path(tempfile.mkdtemp(prefix="snakepit-socket-", dir="/tmp"))
    socket_dir.chmod(0o755)
    try:
        seen = _peek(marker, socket_dir)
    finally:
        shutil.rmtree(marker.parent)
        shutil.rmtree(socket_dir)
    assert "marker: hidden" in seen
    assert "socket: refused" in seen
    assert "capabilities: 0000000000000000" in seen
    assert seen.count("umount: refused") == 3 and "umount: done" not in seen


def _peek(marker: Path, socket_dir: Path) -> str:
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(socket_dir / "service.sock"))
        (socket_dir / "service.sock").chmod(0o777)  # as world-connectable as a database's socket
        listener.listen()
        source = program("peek", MARKER=repr(str(marker)), SOCKET=repr(str(socket_dir / "service.sock")))
        with SandboxedBot(source=source, limits=LIMITS) as bot:
            bot.ask(message_line(), deadline_ms=3000)
            return bot.stderr_tail()


def test_without_the_fence_the_launcher_still_runs_the_bot_and_stops_it_at_the_network(settings, monkeypatch):
    """A development machine that allows unsandboxed bots runs the same launcher: the audit hook is
    then all that stands between a bot and the host's loopback."""
    monkeypatch.setattr("bots.sandbox.namespaces_available", lambda: False)
    settings.SNAKEPIT_BOTS_ALLOW_UNSANDBOXED = True
    with SandboxedBot(source=program("random_bot"), limits=LIMITS) as bot:
        answer, _ = bot.ask(message_line(), deadline_ms=3000)
        assert not bot.sandboxed and b'"pass"' in answer
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.settimeout(0.5)
        fault, bot = ask_expecting_fault(
            program("network", PORT=str(listener.getsockname()[1])), deadline_ms=3000
        )
        with pytest.raises(TimeoutError):
            listener.accept()
    assert not bot.sandboxed and fault.reason == "network"
