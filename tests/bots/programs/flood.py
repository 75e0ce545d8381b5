import sys

sys.stdin.readline()
while True:
    sys.stdout.write("x" * 65536)
    sys.stdout.flush()
