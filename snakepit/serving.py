"""The limits the web server keeps in front of Django, as an ASGI wrapper around the application
(snakepit/asgi.py), the same under `manage.py up`, the Procfile, Compose and Kubernetes.

uvicorn (snakepit/processes.py: `web_command`) holds every connection in one event loop, so an idle
or slow one costs a socket and a few kilobytes, never a thread. What waitress did in its own loop is
done here, before a request reaches Django:

- a body declared past SNAKEPIT_WEB_MAX_BODY_BYTES is refused with a plain 413 before any of it is
  read; one that arrives larger without saying so is cut off at that size;
- the body is read here, in the event loop, with SNAKEPIT_WEB_CHANNEL_TIMEOUT seconds allowed
  between two of its pieces (a silent client gets a 408 and its connection closed), so a client
  that trickles its body holds no thread;
- at most SNAKEPIT_WEB_THREADS requests are inside Django at once (the others wait here, in the
  loop): each takes a thread and at most one database connection, so this is the web process's
  bound on both, as waitress's thread pool was;
- event streams (paths ending in STREAM_SUFFIX, `api.streams`) skip that bound: they wait for
  events without a thread or a connection, and bound their own reads of the log;
- an event stream is served by Django outside the per-request thread context (`StreamsInTheLoop`),
  so that the middlewares' short sync steps run on asgiref's one shared thread rather than each
  stream keeping a thread of its own for as long as it stays open;
- X-Forwarded-Proto and X-Forwarded-For are deleted unless the peer is SNAKEPIT_WEB_TRUSTED_PROXY,
  so a client cannot claim HTTPS (Django's SECURE_PROXY_SSL_HEADER) or another address.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os

from django.conf import settings
from django.core.handlers.asgi import ASGIHandler

from snakepit.processes import web_setting

STREAM_SUFFIX = "/stream/"
FORWARDED = (b"x-forwarded-proto", b"x-forwarded-for", b"forwarded")


def _plain(status: int, reason: bytes):
    body = reason + b"\n"
    start = {
        "type": "http.response.start",
        "status": status,
        "headers": [
            (b"content-type", b"text/plain; charset=utf-8"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ],
    }
    return start, {"type": "http.response.body", "body": body}


def trusted_peer(peer: str, trusted: str) -> bool:
    """Whether `peer` is one of the comma-separated addresses or networks in `trusted` ("*": any)."""
    for entry in (item.strip() for item in trusted.split(",")):
        if not entry:
            continue
        if entry == "*":
            return True
        try:
            if ipaddress.ip_address(peer) in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:
            if peer == entry:
                return True
    return False


def is_stream(scope) -> bool:
    return scope["path"].endswith(STREAM_SUFFIX) and scope["method"] in ("GET", "HEAD")


class StreamsInTheLoop(ASGIHandler):
    """Django's ASGI handler, but for an event stream. Django runs each request inside asgiref's
    ThreadSensitiveContext: every sync step of it (a MiddlewareMixin's process_request and
    process_response, a signal's receivers) goes to one thread made for that request, kept until the
    response ends, which for a stream is hours (300 open streams held 305 threads). A stream's sync
    steps are short and few (its reads of the log run in their own bounded pool, api/streams.py), so
    here they share asgiref's single thread instead."""

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and is_stream(scope):
            await self.handle(scope, receive, send)
        else:
            await super().__call__(scope, receive, send)


class ServingLimits:
    """The ASGI application `application`, behind the limits above."""

    def __init__(self, application) -> None:
        self.application = application
        self.max_body = web_setting("SNAKEPIT_WEB_MAX_BODY_BYTES")
        self.body_timeout = web_setting("SNAKEPIT_WEB_CHANNEL_TIMEOUT")
        self.trusted = os.environ.get("SNAKEPIT_WEB_TRUSTED_PROXY", "")
        self.in_django = settings.SNAKEPIT_WEB_THREADS
        self._gate: asyncio.Semaphore | None = None

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.application(scope, receive, send)
            return
        scope = self._forwarded_headers_checked(scope)
        declared = dict(scope["headers"]).get(b"content-length", b"")
        if declared and (not declared.isdigit() or int(declared) > self.max_body):
            await self._answer(send, 413, b"Request Entity Too Large")
            return
        if is_stream(scope):
            await self.application(scope, receive, send)
            return
        pieces, refusal = await self._read_body(receive)
        if refusal:
            await self._answer(send, *refusal)
            return
        if self._gate is None:  # made here: it belongs to the loop that serves
            self._gate = asyncio.Semaphore(self.in_django)
        async with self._gate:
            await self.application(scope, self._replay(pieces, receive), send)

    def _forwarded_headers_checked(self, scope):
        """From the trusted proxy, its X-Forwarded-For names the client; from anyone else, the
        forwarded headers are deleted. (uvicorn's own proxy handling is off: `web_command`.)"""
        peer = (scope.get("client") or ("", 0))[0]
        headers = scope["headers"]
        if self.trusted and trusted_peer(peer, self.trusted):
            forwarded_for = dict(headers).get(b"x-forwarded-for", b"").decode("latin-1")
            client = forwarded_for.rsplit(",", 1)[-1].strip()
            return {**scope, "client": (client, 0)} if client else scope
        if not any(name in FORWARDED for name, _ in headers):
            return scope
        return {**scope, "headers": [(name, value) for name, value in headers if name not in FORWARDED]}

    async def _read_body(self, receive) -> tuple[list[bytes], tuple[int, bytes] | None]:
        pieces, size = [], 0
        while True:
            try:
                message = await asyncio.wait_for(receive(), self.body_timeout)
            except TimeoutError:
                return pieces, (408, b"Request Timeout")
            if message["type"] == "http.disconnect":
                return pieces, (400, b"Client Disconnected")
            piece = message.get("body", b"")
            size += len(piece)
            if size > self.max_body:
                return pieces, (413, b"Request Entity Too Large")
            pieces.append(piece)
            if not message.get("more_body", False):
                return pieces, None

    @staticmethod
    def _replay(pieces: list[bytes], receive):
        """A `receive` that hands Django the body read already, then waits for the disconnect."""
        queue = list(pieces) or [b""]

        async def replayed():
            if queue:
                piece = queue.pop(0)
                return {"type": "http.request", "body": piece, "more_body": bool(queue)}
            return await receive()

        return replayed

    @staticmethod
    async def _answer(send, status: int, reason: bytes) -> None:
        start, body = _plain(status, reason)
        await send(start)
        await send(body)
