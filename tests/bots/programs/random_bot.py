import json
import random
import sys

for line in sys.stdin:
    message = json.loads(line)
    print(json.dumps({"action": random.choice(message["legal_actions"])}), flush=True)
