# Leaves its process group (setsid) in a child that would outlive the match, then crashes.
import os
import sys
import time

sys.stdin.readline()
if os.fork() == 0:
    os.setsid()
    time.sleep(600)
    os._exit(0)
raise SystemExit(4)
