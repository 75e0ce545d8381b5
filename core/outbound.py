"""The one door for HTTP requests to URLs that users register (tournament webhooks, HTTP bots).

A host is resolved once, every address it resolves to is judged, and the connection goes to an
address so judged: opening the URL by name would resolve it again, and a DNS server that answers a
public address to the check and 127.0.0.1 or 169.254.169.254 to the request (DNS rebinding) would
reach the inside. The Host header, TLS SNI and the certificate check still use the name.

All addresses must be public, not just one: a name resolving to a public and a private address
would otherwise be one connection attempt away from the private one. Callers pass their own
setting for private addresses (tests, a LAN); nothing here reads Django settings.
"""

from __future__ import annotations

import functools
import http.client
import ipaddress
import socket
import ssl
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

# NAT64's well-known prefix (RFC 6052) carries an IPv4 address that a gateway would reach for us.
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


class OutboundRefused(Exception):
    """A URL the door will not open. `code` says why: `outbound/bad_url`, `outbound/unresolvable`
    or `outbound/not_public`. The detail never names the resolved address, so a caller may show it
    to the user who registered the URL without telling them how internal names resolve."""

    def __init__(self, detail: str, *, code: str) -> None:
        super().__init__(detail)
        self.detail = detail
        self.code = code


@dataclass(frozen=True)
class OutboundTarget:
    scheme: str
    host: str
    port: int
    path: str  # with the query, as the request line carries it


def outbound_target(url: str) -> OutboundTarget:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise OutboundRefused("the URL is not http(s):// with a host", code="outbound/bad_url")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise OutboundRefused("the URL's port is not a port number", code="outbound/bad_url") from None
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return OutboundTarget(scheme=parts.scheme, host=parts.hostname, port=port, path=path)


def address_is_public(address: str) -> bool:
    """Whether `address` (as getaddrinfo gives it, maybe with an IPv6 zone id) is globally routable."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address):
        # An IPv6 spelling of an IPv4 address is judged as that IPv4 address.
        embedded = (
            ip.ipv4_mapped
            or ip.sixtofour
            or (ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF) if ip in _NAT64 else None)
        )
        if embedded is not None and not embedded.is_global:
            return False
    return ip.is_global


def outbound_resolve(host: str, port: int, *, allow_private: bool) -> list[tuple]:
    """The host's addresses (getaddrinfo's tuples, in its order), looked up once; refused when any
    is not public, unless `allow_private`. An IP literal goes the same way (no DNS is asked)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as error:
        raise OutboundRefused(f"{host} does not resolve: {error}", code="outbound/unresolvable") from None
    if not infos:
        raise OutboundRefused(f"{host} does not resolve", code="outbound/unresolvable")
    if not allow_private and not all(address_is_public(info[4][0]) for info in infos):
        raise OutboundRefused(f"{host} resolves to an address that is not public", code="outbound/not_public")
    return infos


def _connect(infos: list[tuple], timeout: float) -> socket.socket:
    """A socket connected to the first of `infos` that answers, all within `timeout`; no lookup."""
    deadline = time.monotonic() + timeout
    failure: OSError | None = None
    for family, kind, proto, _, sockaddr in infos:
        sock = socket.socket(family, kind, proto)
        try:
            sock.settimeout(max(0.001, deadline - time.monotonic()))
            sock.connect(sockaddr)
        except OSError as error:
            sock.close()
            failure = error
            continue
        sock.settimeout(timeout)
        return sock
    raise failure if failure is not None else OSError("no address to connect to")


@functools.cache
def _tls_context() -> ssl.SSLContext:
    # Loading the system's CAs costs milliseconds, paid once rather than per bot decision.
    return ssl.create_default_context()


class PinnedConnection(http.client.HTTPConnection):
    """An HTTP(S) connection to `host` that connects only to the addresses already checked, also when
    http.client reconnects on its own."""

    def __init__(self, target: OutboundTarget, infos: list[tuple], *, timeout: float) -> None:
        super().__init__(target.host, target.port, timeout=timeout)
        self.target = target
        self.infos = infos

    def connect(self) -> None:
        sock = _connect(self.infos, self.timeout)
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass  # a latency nicety, not worth failing for
        if self.target.scheme == "https":
            try:
                sock = _tls_context().wrap_socket(sock, server_hostname=self.target.host)
            except BaseException:
                sock.close()
                raise
        self.sock = sock


def outbound_open(url: str, *, timeout: float, allow_private: bool) -> PinnedConnection:
    """A connection to `url`'s host, resolved and checked once and connected (TLS done for https),
    ready for `request(method, connection.target.path, ...)`. Raises `OutboundRefused`, or OSError
    (TimeoutError included) when no checked address accepts the connection in time. Redirects are
    the caller's business: http.client follows none."""
    target = outbound_target(url)
    connection = PinnedConnection(
        target, outbound_resolve(target.host, target.port, allow_private=allow_private), timeout=timeout
    )
    connection.connect()
    return connection
