import json
import sys

for _line in sys.stdin:
    print(json.dumps({"action": {"type": "take_everything"}}), flush=True)
