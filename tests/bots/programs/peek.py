# Looks for what a sandboxed bot must not reach: the host's Unix sockets, its shared /tmp, and a way
# back (its capabilities, unmounting what hides them); reports on stderr, then plays.
import ctypes
import json
import os
import socket
import sys

MARKER = ""  # a world-readable file the test leaves in the host's /tmp, written in by the test
SOCKET = ""  # a Unix socket the test listens on, written in by the test

print("marker:", "seen" if os.path.exists(MARKER) else "hidden", file=sys.stderr)
try:
    with socket.socket(socket.AF_UNIX) as connection:
        connection.connect(SOCKET)
    print("socket: connected", file=sys.stderr)
except OSError as error:
    print("socket: refused", error, file=sys.stderr)
with open("/proc/self/status") as status_file:
    status = status_file.read()
print("capabilities:", status.split("CapEff:")[1].split()[0], file=sys.stderr)
# umount(2) itself: the sandbox holds no umount program (nor any host program but the interpreter).
libc = ctypes.CDLL("libc.so.6", use_errno=True)
for mounted in (b"/scratch", b"/proc", b"/usr/lib/python3.11"):
    print("umount:", "done" if libc.umount2(mounted, 0) == 0 else "refused", file=sys.stderr)
for line in sys.stdin:
    message = json.loads(line)
    print(json.dumps({"action": message["legal_actions"][0]}), flush=True)
