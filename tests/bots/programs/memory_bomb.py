import sys

sys.stdin.readline()
hoard = []
while True:
    hoard.append(bytearray(16 * 1024 * 1024))
