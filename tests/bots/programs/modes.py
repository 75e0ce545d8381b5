# Reports the permission bits of its own files, its scratch directory and what it makes itself.
import json
import os
import sys

os.mkdir("made")
with open("made/note.txt", "w") as note:
    note.write("mine")
for path in (".", "main.py", "package", "package/helper.py", "made", "made/note.txt"):
    print(f"mode {path} {oct(os.stat(path).st_mode & 0o777)}", file=sys.stderr, flush=True)
for line in sys.stdin:
    message = json.loads(line)
    print(json.dumps({"action": message["legal_actions"][0]}), flush=True)
