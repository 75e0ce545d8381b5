import sys

sys.stdin.readline()
raise RuntimeError("the bot fell over")
