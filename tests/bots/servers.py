"""An HTTP bot's server on 127.0.0.1 for the tests: it checks the signature (401 when it does not
match) and then behaves as told: "good" answers the first legal action, "slow" answers too late,
"garbage" answers something that is not JSON, "error" answers HTTP 500."""

from __future__ import annotations

import hmac
import json
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from bots.http import signature


class BotServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, behaviour: str):
        super().__init__(("127.0.0.1", 0), Handler)
        self.behaviour = behaviour
        self.secret = ""
        self.requests = 0


class Handler(BaseHTTPRequestHandler):
    server: BotServer

    def log_message(self, *args):
        pass

    def do_POST(self):
        self.server.requests += 1
        body = self.rfile.read(int(self.headers["Content-Length"]))
        expected = signature(self.server.secret, self.headers["X-Snakepit-Timestamp"], body)
        if not hmac.compare_digest(expected, self.headers["X-Snakepit-Signature"]):
            self.send_response(401)
            self.end_headers()
            return
        behaviour = self.server.behaviour
        if behaviour == "slow":
            time.sleep(1.5)
        if behaviour == "error":
            self.send_response(500)
            self.end_headers()
            return
        answer = (
            b"not json"
            if behaviour == "garbage"
            else json.dumps({"action": json.loads(body)["legal_actions"][0]}).encode()
        )
        self.send_response(200)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)
