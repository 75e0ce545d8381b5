"""HTTP bots: a bot registered by URL gets each decision message as a POST, signed with the bot's
secret, and must answer within the move's deadline (and the match's overage bank). Never retried: a
timeout, a refused connection, an error status or a bad body is a forfeit, like a subprocess bot's.

The signature is `X-Snakepit-Signature: sha256=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>` with
the timestamp (Unix seconds) in `X-Snakepit-Timestamp`, so a bot can refuse replays and forgeries.

The worker connects through `core.outbound`: to an address it resolved and checked itself (no second
lookup a DNS answer could change in between), refusing a host with any private, loopback or
link-local address unless SNAKEPIT_BOTS_HTTP_ALLOW_PRIVATE is on (tests, a private deployment).
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import time
from urllib.parse import urlsplit

from django.conf import settings

from bots.protocol import BotFault
from bots.sandbox import SandboxLimits
from core.outbound import OutboundRefused, outbound_open


def signature(secret: str, timestamp: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()


def url_check(url: str) -> str:
    """The URL, if it is one a bot may be registered by (http or https, a host, no credentials)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.username or parts.password:
        raise ValueError("a bot's URL is http:// or https://, with a host and no credentials")
    if len(url) > 500:
        raise ValueError("a bot's URL is at most 500 characters")
    return url


class HttpBot:
    """The same face as `SandboxedBot` (`start`, `ask`, `close`), over HTTP."""

    def __init__(
        self, *, url: str, secret: str, limits: SandboxLimits | None = None, overage_ms: int = 0
    ) -> None:
        self.url = url_check(url)
        self.secret = secret
        self.limits = limits or SandboxLimits.from_settings()
        self.remaining_overage_ms = overage_ms

    def start(self) -> None:
        pass

    def close(self) -> None:
        pass

    def stderr_tail(self) -> str:
        return ""

    def ask(self, line: bytes, *, deadline_ms: int) -> tuple[bytes, int]:
        began = time.monotonic()
        allowed = (deadline_ms + self.remaining_overage_ms) / 1000
        body = line.rstrip(b"\n")
        timestamp = str(int(time.time()))
        allow_private = getattr(settings, "SNAKEPIT_BOTS_HTTP_ALLOW_PRIVATE", False)
        try:
            left = max(0.001, began + allowed - time.monotonic())
            try:
                connection = outbound_open(self.url, timeout=left, allow_private=allow_private)
            except OutboundRefused as refusal:
                # A host that does not resolve is the bot's server failing; a private one, our sandbox
                # refusing.
                reason = "sandbox" if refusal.code == "outbound/not_public" else "crash"
                raise BotFault(reason, f"the bot's URL is refused: {refusal.detail}") from None
            sock = connection.sock
            try:
                connection.request(
                    "POST",
                    connection.target.path,
                    body=body,
                    headers={
                        "Content-Type": "application/json",
                        "X-Snakepit-Timestamp": timestamp,
                        "X-Snakepit-Signature": signature(self.secret, timestamp, body),
                    },
                )
                response = connection.getresponse()
                answer = b""
                while True:
                    sock.settimeout(max(0.001, began + allowed - time.monotonic()))
                    chunk = response.read1(65536) if hasattr(response, "read1") else response.read(65536)
                    if not chunk:
                        break
                    answer += chunk
                    if len(answer) > self.limits.line_bytes:
                        raise BotFault("flood", f"an answer longer than {self.limits.line_bytes} bytes")
                    if time.monotonic() > began + allowed:
                        raise TimeoutError
            finally:
                connection.close()
        except TimeoutError:
            raise BotFault("timeout", f"no answer within {deadline_ms} ms and the overage bank") from None
        except (OSError, http.client.HTTPException) as error:
            raise BotFault("crash", f"the bot's server failed: {type(error).__name__}: {error}") from None
        if response.status != 200:
            raise BotFault("crash", f"the bot's server answered HTTP {response.status}")
        elapsed_ms = int((time.monotonic() - began) * 1000)
        self.remaining_overage_ms -= max(0, elapsed_ms - deadline_ms)
        if self.remaining_overage_ms < 0:
            raise BotFault("timeout", f"no answer within {deadline_ms} ms and the overage bank")
        return answer.strip(), elapsed_ms
