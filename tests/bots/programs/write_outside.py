# Tries to leave files outside its scratch directory, then plays on; only its scratch file may exist.
import json
import sys

OUTSIDE = ""  # a path outside the scratch directory, written in by the test

TARGETS = ["../escaped.txt", "/escaped-from-scratch.txt", OUTSIDE]
for target in TARGETS:
    try:
        with open(target, "w") as escaped:
            escaped.write("out")
    except OSError as error:
        print(f"refused {target}: {error}", file=sys.stderr)
with open("notes.txt", "w") as notes:
    notes.write("mine")
with open("notes.txt") as notes:
    print("kept:", notes.read(), file=sys.stderr)
for line in sys.stdin:
    message = json.loads(line)
    print(json.dumps({"action": message["legal_actions"][0]}), flush=True)
