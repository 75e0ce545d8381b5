# As escapee.py, but the child first makes itself non-dumpable, which turns its /proc/<pid> directory's
# owner to root: the sandbox must still find it by its user id.
import ctypes
import os
import sys
import time

PR_SET_DUMPABLE = 4

sys.stdin.readline()
if os.fork() == 0:
    ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    os.setsid()
    time.sleep(600)
    os._exit(0)
raise SystemExit(4)
