import sys

sys.stdin.readline()
while True:
    pass
