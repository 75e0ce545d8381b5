# Takes longer than a move's deadline on its second move (the first also covers start-up): the
# overage bank pays for it.
import json
import sys
import time

moves = 0
for line in sys.stdin:
    message = json.loads(line)
    moves += 1
    if moves == 2:
        time.sleep((message["deadline_ms"] + 150) / 1000)
    print(json.dumps({"action": message["legal_actions"][0]}), flush=True)
