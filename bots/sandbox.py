"""Running an uploaded bot: a subprocess speaking JSON lines, fenced in by Debian's bubblewrap.

What the fence is made of (`bwrap`, run as the bot's own user id; docs/bots.md says the same):
- New user, PID, network, IPC, UTS and cgroup namespaces, and no further user namespaces inside
  (`--disable-userns`): the bot's /proc is its own (no host process, no host command line), its
  network is a loopback of its own (no address of the host's, 127.0.0.1 included, and no host Unix
  socket, since none of the host's paths is there), and it holds no capability.
- A file system of its own: an empty root with, read-only, only the interpreter, its standard
  library and the directory of the shared libraries it loads; a new /proc and a minimal /dev; and a
  size-limited tmpfs scratch directory (`SNAKEPIT_BOTS_SCRATCH_BYTES`) as its working directory and
  home, into which the launcher writes the bot's files. The checkout, var/ (the database, the
  broker, the logs, the secret key), /tmp and other bots' files are not in it at all.
- A seccomp filter (compiled once per worker process with Debian's python3-seccomp by the bot's
  interpreter): a socket of any family but Unix, or io_uring (which can open one), kills the bot with
  SIGSYS, which the forfeit names `network`, so a bot that goes around the audit hook below (ctypes,
  a raw socket) is still named for what it did.
- A fresh user id per bot process (when the worker runs as root): the bot cannot signal, trace or
  read the files of the worker or of any other bot, and `RLIMIT_NPROC`, which counts the processes
  of a user id, caps its own processes only (a fork bomb stops at the cap).
- Resource limits set before the sandbox starts: address space, CPU seconds, processes, file size,
  open files, no core dumps; the files and folders it makes are 0600 and 0700 whatever the worker's
  umask.
- A wall deadline per move plus an overage bank per match; a reply line longer than the limit is a
  flood; at the end the sandbox is killed (its PID namespace dies with it), and every process of its
  user id after it.

What it does NOT protect against (docs/bots.md says the same): the kernel interfaces the filter
allows stay reachable (a kernel bug there is the bot's to use: gVisor or a VM is the next step), and
CPU, memory bandwidth and disk bandwidth are not fair-shared between concurrent bots (no cgroup).
Where the worker does not run as root there is no fresh user id: the process cap then counts every
process of the worker's user, so it is not set, and the fork-bomb guard is the wall deadline alone.
"""

from __future__ import annotations

import base64
import json
import marshal
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
SCRATCH = "/scratch"  # the bot's working directory and home, inside the sandbox

# The interpreter runs this first: a Python audit hook that stops the bot, with a status of its own
# and a line on stderr, the moment it reaches for the network (an Internet socket's connect or send,
# a name lookup), so the forfeit can say where it reached; the network namespace makes every such
# attempt fail, and the seccomp filter kills a bot that goes around the interpreter (ctypes, a raw
# socket). Then it writes the bot's files (a marshalled list of (path, bytes or None for a folder),
# folders first, read from the descriptor in argv[1]) into the working directory, owner-only, and
# runs the entry (argv[2]) as `__main__`, with its directory on the import path.
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
os.umask(0o077)
import marshal
with open(int(sys.argv[1]), "rb", closefd=True) as bundle:
    files = marshal.loads(bundle.read())
for relative, content in files:
    if content is None:
        os.mkdir(relative, 0o700)
        continue
    descriptor = os.open(relative, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with open(descriptor, "wb") as written:
        written.write(content)
entry = sys.argv[2]
code = compile(dict(files)[entry], entry, "exec")
sys.argv = [entry]
sys.path.insert(0, os.getcwd())
namespace = {{
    "__name__": "__main__", "__file__": os.path.join(os.getcwd(), entry), "__builtins__": __builtins__,
}}
del entry, files, bundle, marshal
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

# bwrap's reaper reports a command killed by a signal as 128 + the signal; SIGSYS is the filter's.
FILTERED_STATUS = 128 + signal.SIGSYS

# Run once per worker process by the bot's interpreter, outside any sandbox: what the sandbox must
# bind (the interpreter, its standard library, the directories of the shared libraries it loads,
# ctypes' included) and the compiled seccomp filter. Debian's python3-seccomp builds the filter; any
# architecture but the native one is refused too, so `int 0x80`'s socketcall is no way around it.
_PROBE = r"""
import base64, ctypes, json, os, sys, sysconfig, tempfile
with open("/proc/self/maps") as maps:
    mapped = {line.split()[-1] for line in maps if ".so" in line}
libraries = sorted({os.path.dirname(os.path.realpath(path)) for path in mapped if path.startswith("/")})
import seccomp
fence = seccomp.SyscallFilter(seccomp.ALLOW)
fence.set_attr(seccomp.Attr.ACT_BADARCH, seccomp.KILL_PROCESS)
for call in ("socket", "socketpair"):
    fence.add_rule(seccomp.KILL_PROCESS, call, seccomp.Arg(0, seccomp.NE, 1))  # AF_UNIX only
for call in ("io_uring_setup", "io_uring_enter", "io_uring_register"):
    fence.add_rule(seccomp.KILL_PROCESS, call)
with tempfile.TemporaryFile() as compiled:
    fence.export_bpf(compiled)
    compiled.seek(0)
    program = compiled.read()
stdlib = {os.path.realpath(sysconfig.get_path(name)) for name in ("stdlib", "platstdlib")}
print(json.dumps({
    "executable": os.path.realpath(sys.executable), "stdlib": sorted(stdlib), "libraries": libraries,
    "filter": base64.b64encode(program).decode(),
}))
"""


@dataclass(frozen=True)
class _Host:
    """What the sandbox takes from the host, read-only, and the filter it loads."""

    executable: str
    paths: tuple[str, ...]
    seccomp_filter: bytes


def _probe_host() -> _Host:
    probe = subprocess.run(
        [_python(), "-I", "-c", _PROBE], capture_output=True, timeout=10, check=True,
        env=_environment("/"),
    )  # fmt: skip
    found = json.loads(probe.stdout)
    paths = sorted({found["executable"], *found["stdlib"], *found["libraries"]})
    outermost = [path for path in paths if not any(path.startswith(f"{other}/") for other in paths)]
    return _Host(found["executable"], tuple(outermost), base64.b64decode(found["filter"]))


def _fence_arguments(host: _Host, limits: SandboxLimits, seccomp_fd: int) -> list[str]:
    arguments = [
        "bwrap", "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent",
        "--new-session", "--cap-drop", "ALL",
    ]  # fmt: skip
    for path in host.paths:
        arguments += ["--ro-bind", path, path]
    # The program loader's path written in the interpreter (/lib64/ld-linux-x86-64.so.2) goes through
    # merged /usr's top-level links: the same links inside, to what is bound above.
    for link in ("/lib64", "/lib"):
        if os.path.islink(link):
            arguments += ["--symlink", os.readlink(link), link]
    if os.path.isdir("/usr/lib64") and "/usr/lib64" not in host.paths:
        arguments += ["--ro-bind", "/usr/lib64", "/usr/lib64"]
    # The root bwrap builds and its /dev are tmpfs mounts without a size: both are made read-only once
    # the mount points are in place, so the scratch tmpfs is the only place the bot can write.
    arguments += [
        "--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev",
        "--size", str(limits.scratch_bytes), "--perms", "0700", "--tmpfs", SCRATCH, "--chdir", SCRATCH,
        "--remount-ro", "/", "--seccomp", str(seccomp_fd), "--",
    ]  # fmt: skip
    return arguments


# Kills every process of the bot's user, a few sweeps over (see SandboxedBot.close).
_SWEEP = "for sweep in 1 2 3 4 5 6 7 8 9 10; do kill -KILL -1 2>/dev/null || exit 0; done"


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
    scratch_bytes: int = 16 * 1024 * 1024  # the scratch tmpfs: the bot's files and all it writes

    @classmethod
    def from_settings(cls) -> SandboxLimits:
        given = {"scratch_bytes": getattr(settings, "SNAKEPIT_BOTS_SCRATCH_BYTES", cls.scratch_bytes)}
        return cls(**given | getattr(settings, "SNAKEPIT_BOTS_LIMITS", {}))


class SandboxUnavailable(Exception):
    """The sandbox cannot be made here, and unsandboxed bots are not allowed."""


_namespaces_work: bool | None = None
_host: _Host | None = None


def namespaces_available() -> bool:
    """Whether the fence (bubblewrap, the interpreter's probe and its seccomp filter) works here, for
    the user a bot runs as (asked once per process)."""
    global _namespaces_work, _host
    if _namespaces_work is None:
        try:
            _host = _probe_host()
            with _sealed(_host.seccomp_filter) as seccomp_fd:
                probe = subprocess.run(
                    [*_fence_arguments(_host, SandboxLimits(), seccomp_fd), _host.executable, "-I", "-c", ""],
                    **_identity(_fresh_uid()), pass_fds=(seccomp_fd,), capture_output=True, timeout=10,
                    env=_environment(SCRATCH), check=False,
                )  # fmt: skip
            _namespaces_work = probe.returncode == 0
        except (OSError, subprocess.SubprocessError, ValueError, KeyError):
            _namespaces_work = False
    return _namespaces_work


def sandbox_check() -> None:
    """Refuse, with the reason, when uploaded bots cannot be fenced in and no setting allows them
    to run without the fence."""
    if not namespaces_available() and not getattr(settings, "SNAKEPIT_BOTS_ALLOW_UNSANDBOXED", False):
        raise SandboxUnavailable(
            "this server cannot fence bots in (bubblewrap with user, PID and network namespaces, and "
            "the bot interpreter's python3-seccomp), so it does not run uploaded bots; "
            "SNAKEPIT_BOTS_ALLOW_UNSANDBOXED allows them without (development only)"
        )


def _python() -> str:
    return (
        getattr(settings, "SNAKEPIT_BOTS_PYTHON", "")
        or shutil.which("python3", path="/usr/bin:/bin")
        or "python3"
    )


def _fresh_uid() -> int | None:
    return _UID_BASE + secrets.randbelow(_UID_SPAN) if os.geteuid() == 0 else None


class _sealed:
    """`data` in an anonymous memory file, as a descriptor to hand to the child (closed on exit)."""

    def __init__(self, data: bytes) -> None:
        self.descriptor = os.memfd_create("snakepit-bot", 0)
        os.write(self.descriptor, data)
        os.lseek(self.descriptor, 0, os.SEEK_SET)

    def __enter__(self) -> int:
        return self.descriptor

    def __exit__(self, *exc) -> None:
        os.close(self.descriptor)


def _identity(uid: int | None) -> dict:
    return {} if uid is None else {"user": uid, "group": uid, "extra_groups": []}


def _environment(home: str) -> dict[str, str]:
    return {
        "PATH": "/usr/bin:/bin", "HOME": home, "TMPDIR": home, "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
    }  # fmt: skip


def _bundle(source: str, files: Mapping[str, bytes] | None) -> tuple[str, list[tuple[str, bytes | None]]]:
    """The entry to run and what the launcher writes: every folder (parents first), then every file."""
    if files is None:
        return "bot.py", [("bot.py", source.encode())]
    folders: dict[str, None] = {}
    for relative in sorted(files):  # paths were checked at upload (bots.archives)
        parents = Path(relative).parents
        for folder in reversed(parents[:-1]):
            folders[folder.as_posix()] = None
    return "main.py", [(folder, None) for folder in folders] + sorted(files.items())


_LIMIT_SIGNALS = {signal.SIGXCPU: "the CPU-time limit", signal.SIGXFSZ: "the file-size limit"}


def _describe(status: int | None, *, sandboxed: bool) -> str:
    """A status, with the signal named when the sandbox reports one (bwrap's 128 + the signal), and
    the limit behind it when it is a limit's."""
    number = None
    if status is not None and sandboxed and 128 < status < 128 + signal.NSIG:
        number = status - 128
    elif status is not None and status < 0:
        number = -status
    if number is None:
        return f"status {status}"
    killer = signal.Signals(number)
    because = f" at {_LIMIT_SIGNALS[killer]}" if killer in _LIMIT_SIGNALS else ""
    return f"status {status}, killed by {killer.name}{because}"


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
        self._root: Path | None = None  # the working directory of an unsandboxed bot (development)
        self._stderr = None
        self._pending = b""
        self._started_at = 0.0
        self._asked = False
        self._stderr_kept = ""

    def start(self) -> None:
        sandbox_check()
        self.sandboxed = namespaces_available()
        self.uid = _fresh_uid()
        entry, bundle = _bundle(self.source, self.files)
        # Unnamed (0600, already unlinked): nothing of the bot's is left on the host's disk by name.
        self._stderr = tempfile.TemporaryFile(
            dir=getattr(settings, "SNAKEPIT_BOTS_SCRATCH_DIR", None) or None
        )  # noqa: SIM115 - closed in close()
        with _sealed(marshal.dumps(bundle)) as bundle_fd:
            launcher = [_python() if _host is None else _host.executable, "-I", "-S", "-u", "-c", _LAUNCHER]
            launcher += [str(bundle_fd), entry]
            if self.sandboxed:
                assert _host is not None
                with _sealed(_host.seccomp_filter) as seccomp_fd:
                    self._spawn(
                        [*_fence_arguments(_host, self.limits, seccomp_fd), *launcher],
                        SCRATCH,
                        (bundle_fd, seccomp_fd),
                    )
            else:
                self._root = Path(tempfile.mkdtemp(prefix="snakepit-bot-"))
                if self.uid is not None:
                    os.chown(self._root, self.uid, self.uid)
                self._spawn(launcher, str(self._root), (bundle_fd,))
        self._started_at = time.monotonic()

    def _spawn(self, command: list[str], home: str, descriptors: tuple[int, ...]) -> None:
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            cwd=home if self._root is not None else "/",
            env=_environment(home),
            start_new_session=True,
            preexec_fn=self._limit,  # noqa: PLW1509 - runs after the fork, in the child only
            close_fds=True,
            pass_fds=descriptors,
            umask=0o077,
            **_identity(self.uid),
        )

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
            # The CPU limit's soft step sends SIGXCPU, which names the cause in the forfeit; the hard
            # one, a second later, is a SIGKILL for a bot that ignores it.
            resource.setrlimit(which, (value, value + 1 if which == resource.RLIMIT_CPU else value))

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
                    self._exited("the bot exited")
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
        """The bot is gone: a crash, unless the launcher's audit hook or the kernel's filter stopped it at
        the network."""
        try:
            status = self.process.wait(timeout=1)
        except subprocess.TimeoutExpired:  # its stdout closed, yet it runs on: a crash all the same
            status = None
        if status == NETWORK_STATUS:
            tail = self.stderr_tail()
            if NETWORK_MARK in tail:
                self._fail("network", tail[tail.rindex(NETWORK_MARK) :].splitlines()[0])
        if status == FILTERED_STATUS and self.sandboxed:
            self._fail(
                "network",
                "snakepit: the kernel stopped the bot at a system call the sandbox refuses "
                "(a socket other than a Unix one, or io_uring)",
            )
        self._fail("crash", f"{detail} ({_describe(status, sandboxed=self.sandboxed)})")

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
        """Kill the sandbox (its PID namespace, every process in it, dies with bwrap's), then every
        process of the bot's user id, and remove what is left of it."""
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
                        env=_environment("/"),
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
