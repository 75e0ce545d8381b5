"""Running an uploaded bot: a subprocess speaking JSON lines, fenced in on a plain Linux box.

What the fence is made of:
- `unshare -Urnm`: new user, network and mount namespaces. The network namespace has only a loopback
  interface that is down, so the bot can reach no address at all, 127.0.0.1 included. In the mount
  namespace, small private tmpfs mounts cover /run, /tmp, /var/tmp and /dev/shm, so the Unix sockets
  of the host's services (a database's, which a network namespace does not stop) and the shared
  scratch space are out of sight; then every capability is dropped (`setpriv`), so the bot cannot
  undo the mounts.
- A fresh user id per bot process (when the worker runs as root): the bot cannot signal, trace or
  read the files of the worker or of any other bot, and `RLIMIT_NPROC`, which counts the processes
  of a user id, caps its own processes only (a fork bomb stops at the cap). The id also lets the end
  of a match kill every process the bot made, even one that left its process group.
- Resource limits set before the bot starts: address space, CPU seconds, processes, file size,
  open files, no core dumps.
- A scratch directory of its own as its working directory and home, and an environment with nothing
  of the worker's in it.
- A wall deadline per move plus an overage bank per match; a reply line longer than the limit is a
  flood; at the end the process group (and every process of its user id) is killed.

What it does NOT protect against, and how production should harden it (docs/bots.md says the same):
- The bot still sees the rest of the host's file system with the rights of an unknown user: it can
  read whatever is world-readable (the code, not the worker's environment) and write wherever the
  world may outside the covered directories. Harden with a read-only root and only the scratch
  directory mounted (nsjail, bubblewrap), or a dedicated machine holding nothing else.
- There is no system call filter: every kernel interface reachable from an unprivileged user
  namespace is reachable, so a kernel bug there is the bot's to use. Harden with seccomp (nsjail's
  policies) or gVisor.
- Disk, memory bandwidth and CPU time are not fair-shared between concurrent bots (no cgroup).
- Where the worker does not run as root there is no fresh user id: the process cap then counts
  every process of the worker's user, so it is not set, and the fork-bomb guard is the wall
  deadline alone. Run workers that play uploaded bots as root inside a VM or container, or use nsjail.
"""

from __future__ import annotations

import os
import resource
import secrets
import select
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Self

from django.conf import settings

from bots.protocol import BotFault

# Fresh user ids are drawn from a range no real account uses.
_UID_BASE, _UID_SPAN = 1_000_000_000, 500_000_000
_STDERR_KEPT = 64 * 1024  # the tail of a bot's stderr kept for its log

# The interpreter runs this before the bot's file (given as descriptor 3): a Python audit hook that
# stops the bot, with a status of its own and a line on stderr, the moment it reaches for the network
# (an Internet socket's connect or send, a name lookup), so the forfeit can say why; the network
# namespace already makes every such attempt fail, and a bot that goes around the interpreter (a
# subprocess, ctypes) still reaches nothing, its forfeit then reading as a crash or a timeout. Then
# the bot runs as `__main__`, with its directory on the import path.
NETWORK_STATUS = 96
NETWORK_MARK = "snakepit: the bot reached for the network"
_LAUNCHER = f"""
import os, sys
def _fence(event, args, _exit=os._exit, _write=os.write, _inet=(2, 10)):  # Linux's AF_INET, AF_INET6
    if event in ("socket.connect", "socket.sendto", "socket.sendmsg"):
        if getattr(args[0], "family", None) not in _inet:
            return
        target = args[1]
    elif event in (
        "socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyname_ex",
        "socket.gethostbyaddr", "socket.getnameinfo",
    ):
        target = args[0]
    else:
        return
    _write(2, ("\\n{NETWORK_MARK} (" + event + " " + repr(target)[:200] + ")\\n").encode("utf-8", "replace"))
    _exit({NETWORK_STATUS})
sys.addaudithook(_fence)
del _fence
entry = sys.argv[1]
with open(3, "rb", closefd=True) as bot_file:
    code = compile(bot_file.read(), entry, "exec")
sys.argv = [entry]
sys.path.insert(0, os.getcwd())
namespace = {{
    "__name__": "__main__", "__file__": os.path.join(os.getcwd(), entry), "__builtins__": __builtins__,
}}
del entry, bot_file
try:
    exec(code, namespace)
except (SystemExit, KeyboardInterrupt):
    raise
except BaseException as error:  # the bot's traceback, without this launcher's frame
    import traceback
    traceback.print_exception(type(error), error, error.__traceback__.tb_next)
    sys.stderr.flush()
    os._exit(1)
"""

# Kills every process of the bot's user, a few sweeps over (see Sandbox.close).
_SWEEP = "for sweep in 1 2 3 4 5 6 7 8 9 10; do kill -KILL -1 2>/dev/null || exit 0; done"

# Run inside the new namespaces, as the namespace's root, before the bot: open the bot's file (by the
# working directory, which the mounts below cover), hide the host's sockets and shared scratch space
# (/run holds the database's and other services' Unix sockets, which no network namespace stops)
# behind small private tmpfs mounts, then drop every capability for good and start the bot. Any
# failure stops the bot before it runs (status 97). Arguments: the interpreter, the launcher, the
# bot's file.
_FENCE = (
    'exec 3<"$3" 4<. || exit 97; '
    "for dir in /run /var/run /tmp /var/tmp /dev/shm; do "
    '  if [ -d "$dir" ] && [ ! -L "$dir" ]; then '
    '    mount -t tmpfs -o size=1m,mode=700 bot "$dir" || exit 97; '
    "  fi; "
    "done; "
    # When a mount covered the bot's own directory, it is bound again at the same path, so the bot's
    # working directory keeps a path that resolves (Python's imports resolve it).
    'if ! cd "$PWD" 2>/dev/null; then '
    '  mkdir -p "$PWD" && mount --no-canonicalize --bind /proc/self/fd/4 "$PWD" && cd "$PWD" || exit 97; '
    "fi; "
    "exec 4<&-; "
    'exec setpriv --bounding-set=-all --inh-caps=-all --no-new-privs -- "$1" -I -S -u -c "$2" "$3"'
)
# Without the fence (a development setting): the same launcher and descriptor, no namespaces.
_UNFENCED = 'exec 3<"$3" || exit 97; exec "$1" -I -S -u -c "$2" "$3"'


def _uid_has_processes(uid: int) -> bool:
    """Whether any process (a zombie included) has `uid` as a real, effective, saved or filesystem
    user id. Read from /proc/<pid>/status, not the directory's owner, which a process can turn to root
    by making itself non-dumpable. Only processes of `uid` make processes of `uid`, and new pids are
    higher than the ones the scan (in pid order) has passed, barring a wrap-around of the pid space
    within the scan's millisecond, so an empty scan means none are left: most bots leave nothing
    behind, and the sweep's fork and exec are skipped for them."""
    wanted = str(uid).encode()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/status", "rb") as status:
                for line in status:
                    if line.startswith(b"Uid:"):
                        if wanted in line.split()[1:]:
                            return True
                        break
        except OSError:
            continue  # gone meanwhile
    return False


@dataclass(frozen=True)
class SandboxLimits:
    memory_bytes: int = 256 * 1024 * 1024
    cpu_seconds: int = 60
    processes: int = 16
    file_bytes: int = 8 * 1024 * 1024
    open_files: int = 64
    line_bytes: int = 256 * 1024
    start_ms: int = 5000  # the time to start up, taken before the first message

    @classmethod
    def from_settings(cls) -> SandboxLimits:
        return cls(**getattr(settings, "SNAKEPIT_BOTS_LIMITS", {}))


class SandboxUnavailable(Exception):
    """Namespaces cannot be made here, and unsandboxed bots are not allowed."""


_namespaces_work: bool | None = None


def namespaces_available() -> bool:
    """Whether the fence (`unshare -Urnm`, then `mount` and `setpriv`) works here, for the user a bot
    runs as (asked once per process)."""
    global _namespaces_work
    if _namespaces_work is None:
        try:
            probe = subprocess.run(
                _command("/dev/null", fenced=True),
                **_identity(_fresh_uid()),
                capture_output=True,
                timeout=10,
                env=_environment(Path("/")),
                check=False,
            )
            _namespaces_work = probe.returncode == 0
        except (OSError, subprocess.SubprocessError):
            _namespaces_work = False
    return _namespaces_work


def sandbox_check() -> None:
    """Refuse, with the reason, when uploaded bots cannot be fenced in and no setting allows them
    to run without the fence."""
    if not namespaces_available() and not getattr(settings, "SNAKEPIT_BOTS_ALLOW_UNSANDBOXED", False):
        raise SandboxUnavailable(
            "this server cannot create user, network and mount namespaces (unshare -Urnm), "
            "so it does not run "
            "uploaded bots; SNAKEPIT_BOTS_ALLOW_UNSANDBOXED allows them without (development only)"
        )


def _python() -> str:
    return (
        getattr(settings, "SNAKEPIT_BOTS_PYTHON", "")
        or shutil.which("python3", path="/usr/bin:/bin")
        or "python3"
    )


def _fresh_uid() -> int | None:
    return _UID_BASE + secrets.randbelow(_UID_SPAN) if os.geteuid() == 0 else None


def _command(entry: str, *, fenced: bool) -> list[str]:
    """The bot's file `entry` run by the launcher, inside the fence or (development only) without."""
    run = [_python(), _LAUNCHER, entry]
    if fenced:
        return ["unshare", "-Urnm", "--", "/bin/sh", "-c", _FENCE, "fence", *run]
    return ["/bin/sh", "-c", _UNFENCED, "fence", *run]


def _identity(uid: int | None) -> dict:
    return {} if uid is None else {"user": uid, "group": uid, "extra_groups": []}


def _environment(home: Path) -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}


class SandboxedBot:
    """One bot process for one match: `start`, then `ask` once per decision, then `close`.

    `ask` returns the answer line and the milliseconds it took, or raises `BotFault` (the process is
    then killed: a faulty bot says nothing more)."""

    def __init__(
        self,
        *,
        source: str = "",
        files: Mapping[str, bytes] | None = None,
        limits: SandboxLimits | None = None,
        overage_ms: int = 0,
    ) -> None:
        """`source` is a one-file bot's text; `files` an archive's files by relative path, its
        entry being `main.py` (bots.archives)."""
        self.source = source
        self.files = files
        self.limits = limits or SandboxLimits.from_settings()
        self.remaining_overage_ms = overage_ms
        self.process: subprocess.Popen | None = None
        self.uid: int | None = None
        self.sandboxed = False
        self._root: Path | None = None
        self._stderr = None
        self._pending = b""
        self._started_at = 0.0
        self._asked = False
        self._stderr_kept = ""

    @property
    def scratch(self) -> Path:
        assert self._root is not None
        return self._root / "scratch"

    def start(self) -> None:
        sandbox_check()
        self.sandboxed = namespaces_available()
        self.uid = _fresh_uid()
        base = getattr(settings, "SNAKEPIT_BOTS_SCRATCH_DIR", None) or None
        self._root = Path(tempfile.mkdtemp(prefix="snakepit-bot-", dir=base))
        self._root.chmod(0o711)  # the bot may pass through to its scratch, not list or read the rest
        self.scratch.mkdir(mode=0o700)
        entry, written = self._write_files()
        if self.uid is not None:
            for path in (self.scratch, *written):
                os.chown(path, self.uid, self.uid)
        self._stderr = open(self._root / "stderr.log", "w+b")  # noqa: SIM115 - closed in close()
        self.process = subprocess.Popen(
            _command(entry, fenced=self.sandboxed),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            cwd=self.scratch,
            env=_environment(self.scratch),
            start_new_session=True,
            preexec_fn=self._limit,  # noqa: PLW1509 - runs after the fork, in the child only
            close_fds=True,
            **_identity(self.uid),
        )
        self._started_at = time.monotonic()

    def _write_files(self) -> tuple[str, list[Path]]:
        """Put the bot's file, or its archive's files, in its scratch directory: the entry to run and
        every path made (for the bot's own user id to own)."""
        if self.files is None:
            (self.scratch / "bot.py").write_text(self.source)
            return "bot.py", [self.scratch / "bot.py"]
        written: list[Path] = []
        for relative, content in sorted(self.files.items()):
            path = self.scratch / relative  # paths were checked at upload (bots.archives)
            for folder in reversed(path.relative_to(self.scratch).parents[:-1]):
                if not (self.scratch / folder).exists():
                    (self.scratch / folder).mkdir(mode=0o700)
                    written.append(self.scratch / folder)
            path.write_bytes(content)
            written.append(path)
        return "main.py", written

    def _limit(self) -> None:
        limits = self.limits
        caps = [
            (resource.RLIMIT_AS, limits.memory_bytes),
            (resource.RLIMIT_CPU, limits.cpu_seconds),
            (resource.RLIMIT_FSIZE, limits.file_bytes),
            (resource.RLIMIT_NOFILE, limits.open_files),
            (resource.RLIMIT_CORE, 0),
        ]
        if self.uid is not None:  # the cap counts a user id's processes: only a fresh id's are the bot's own
            caps.append((resource.RLIMIT_NPROC, limits.processes))
        for which, value in caps:
            resource.setrlimit(which, (value, value))

    def ask(self, line: bytes, *, deadline_ms: int) -> tuple[bytes, int]:
        process = self.process
        assert process is not None and process.stdin is not None and process.stdout is not None
        began = time.monotonic()
        # The first move also waits for the interpreter to start: that time is not the bot's.
        grace = 0.0 if self._asked else max(0.0, self.limits.start_ms / 1000 - (began - self._started_at))
        self._asked = True
        try:
            process.stdin.write(line)
            process.stdin.flush()
        except (BrokenPipeError, OSError):
            self._exited("the bot had exited before it was asked")
        allowed = (deadline_ms + self.remaining_overage_ms) / 1000 + grace
        descriptor = process.stdout.fileno()
        while b"\n" not in self._pending:
            left = began + allowed - time.monotonic()
            if left <= 0:
                self._fail("timeout", f"no answer within {deadline_ms} ms and the overage bank")
            ready, _, _ = select.select([descriptor], [], [], min(left, 0.05))
            if not ready:
                if process.poll() is not None:  # gone, though a child of its may hold its stdout open
                    self._exited(f"the bot exited (status {process.returncode})")
                continue
            chunk = os.read(descriptor, 65536)
            if not chunk:
                self._exited("the bot exited")
            self._pending += chunk
            if b"\n" not in self._pending and len(self._pending) > self.limits.line_bytes:
                self._fail("flood", f"an answer line longer than {self.limits.line_bytes} bytes")
        answer, _, self._pending = self._pending.partition(b"\n")
        if len(answer) > self.limits.line_bytes:
            self._fail("flood", f"an answer line longer than {self.limits.line_bytes} bytes")
        if self._pending:
            self._fail("flood", "more than one answer line for one message")
        elapsed_ms = max(0, int((time.monotonic() - began - grace) * 1000))
        self.remaining_overage_ms -= max(0, elapsed_ms - deadline_ms)
        if self.remaining_overage_ms < 0:
            self._fail("timeout", f"no answer within {deadline_ms} ms and the overage bank")
        return answer, elapsed_ms

    def _exited(self, detail: str) -> None:
        """The bot is gone: a crash, unless the launcher's audit hook stopped it at the network."""
        try:
            status = self.process.wait(timeout=1)
        except subprocess.TimeoutExpired:  # its stdout closed, yet it runs on: a crash all the same
            status = None
        if status == NETWORK_STATUS:
            tail = self.stderr_tail()
            if NETWORK_MARK in tail:
                self._fail("network", tail[tail.rindex(NETWORK_MARK) :].splitlines()[0])
        self._fail("crash", detail if status is None or "status" in detail else f"{detail} (status {status})")

    def _fail(self, reason: str, detail: str) -> None:
        self.close()
        raise BotFault(reason, detail)

    def stderr_tail(self) -> str:
        if self._stderr is None or self._stderr.closed:
            return self._stderr_kept
        self._stderr.flush()
        size = self._stderr.seek(0, os.SEEK_END)
        self._stderr.seek(max(0, size - _STDERR_KEPT))
        return self._stderr.read().decode(errors="replace")

    def close(self) -> None:
        """Kill the bot and everything it started, and remove its directory."""
        process = self.process
        if process is not None:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            if self.uid is not None and _uid_has_processes(self.uid):
                # A child that left the group with setsid is still the bot's user's: kill(-1) as that
                # user reaches every process it owns and nothing else. Swept a few times over, since a
                # fork bomb may fork between two sweeps (and the dead linger as zombies until reaped).
                try:
                    subprocess.run(
                        ["sh", "-c", _SWEEP],
                        **_identity(self.uid), capture_output=True, timeout=10, check=False,
                        env=_environment(Path("/")),
                    )  # fmt: skip
                except (OSError, subprocess.SubprocessError):
                    pass  # (bounded at 10 s) the directory is removed below all the same
            for stream in (process.stdin, process.stdout):
                if stream is not None:
                    try:
                        stream.close()
                    except OSError:
                        pass
            self.process = None
        if self._stderr is not None and not self._stderr.closed:
            self._stderr_kept = self.stderr_tail()
            self._stderr.close()
        if self._root is not None:
            shutil.rmtree(self._root, ignore_errors=True)
            self._root = None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()
