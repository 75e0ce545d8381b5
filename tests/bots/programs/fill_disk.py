# Fills its scratch directory in 1 MiB files (each under the per-file limit) until the disk says no,
# reports how much it wrote, then plays.
import json
import sys

TOTAL = 64 * 1024 * 1024
written = 0
error = None
try:
    while written < TOTAL:
        with open(f"fill-{written}.bin", "wb") as chunk:
            chunk.write(b"x" * (1024 * 1024))
        written += 1024 * 1024
except OSError as refused:
    error = refused.errno
print(f"wrote {written} then errno {error}", file=sys.stderr, flush=True)
for line in sys.stdin:
    message = json.loads(line)
    print(json.dumps({"action": message["legal_actions"][0]}), flush=True)
