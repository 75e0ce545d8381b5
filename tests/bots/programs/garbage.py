import sys

for line in sys.stdin:
    print("I would rather not", flush=True)
