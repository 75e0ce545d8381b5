# An attacker's tour of the host from inside the sandbox: tries every path it is given, every
# process's command line and working directory it can see, a nested user namespace and a listing of
# the file system; reports each on stderr, then plays.
import ctypes
import json
import os
import sys

PATHS = []  # host paths to try, written in by the test


def report(*words):
    print(*words, file=sys.stderr, flush=True)


for path in PATHS:
    try:
        if os.path.isdir(path):
            report(f"{path}: listed {sorted(os.listdir(path))}")
        else:
            with open(path, "rb") as stolen:
                report(f"{path}: read {stolen.read(4096)!r}")
    except OSError as error:
        report(f"{path}: unreachable ({error.errno})")
    if not os.path.lexists(path):
        report(f"{path}: absent")
pids = sorted(int(name) for name in os.listdir("/proc") if name.isdigit())
report(f"pids: {pids}")
for pid in pids:
    for part in ("cmdline", "environ", "cwd/bot.py", "root/scratch/bot.py"):
        try:
            with open(f"/proc/{pid}/{part}", "rb") as seen:
                report(f"/proc/{pid}/{part}: {seen.read(4096)!r}")
        except OSError as error:
            report(f"/proc/{pid}/{part}: unreachable ({error.errno})")
libc = ctypes.CDLL("libc.so.6", use_errno=True)
CLONE_NEWUSER = 0x10000000
report("nested user namespace:", "made" if libc.unshare(CLONE_NEWUSER) == 0 else "refused")
for top in ("/", "/usr", "/usr/bin", "/usr/lib"):
    report(f"listing {top}: {sorted(os.listdir(top))}")
for line in sys.stdin:
    message = json.loads(line)
    print(json.dumps({"action": message["legal_actions"][0]}), flush=True)
