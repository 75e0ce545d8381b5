import sys

for _line in sys.stdin:
    print("I would rather not", flush=True)
