"""core.outbound, the one door for requests to URLs users register: the host is looked up once, every
address it has must be public (unless the caller allows private ones), and the connection goes to the
address that was checked. Lookups are faked to answer documentation and example addresses, and a
connect to anything but 127.0.0.1 is recorded and refused, so nothing leaves this machine."""

from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace

import pytest

from core import outbound
from core.outbound import OutboundRefused, address_is_public, outbound_open

PUBLIC = "93.184.216.34"


def answer(*addresses: str, port: int = 80) -> list[tuple]:
    """What getaddrinfo gives for a name with these addresses."""
    infos = []
    for address in addresses:
        if ":" in address:
            infos.append((socket.AF_INET6, socket.SOCK_STREAM, 6, "", (address, port, 0, 0)))
        else:
            infos.append((socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port)))
    return infos


@pytest.fixture
def dns(monkeypatch):
    """A fake resolver: `dns.answers` are given in turn (the last one repeats); `dns.calls` counts lookups."""

    dns = SimpleNamespace(answers=[], calls=0)

    def getaddrinfo(host, port, *args, **kwargs):
        dns.calls += 1
        return dns.answers[min(dns.calls, len(dns.answers)) - 1]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return dns


@pytest.fixture
def connects(monkeypatch):
    """Every address a socket connects to; only 127.0.0.1 is really connected, the rest are refused."""
    seen: list[tuple] = []
    real_connect = socket.socket.connect

    def connect(sock, sockaddr):
        seen.append(sockaddr)
        if sockaddr[0] != "127.0.0.1":
            raise ConnectionRefusedError(f"the test refused a connect to {sockaddr[0]}")
        return real_connect(sock, sockaddr)

    monkeypatch.setattr(socket.socket, "connect", connect)
    return seen


class Listener:
    """An HTTP server on 127.0.0.1 that keeps the path and headers of what it receives, answering 204."""

    def __init__(self):
        self.received: list[dict] = []
        listener = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers["Content-Length"]))
                listener.received.append({"path": self.path, "host": self.headers["Host"]})
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def test_a_rebinding_host_is_connected_to_its_first_answer_only(dns, connects):
    dns.answers = [answer(PUBLIC), answer("127.0.0.1")]  # public to the check, loopback after
    with pytest.raises(ConnectionRefusedError):
        outbound_open("http://rebind.example/hook", timeout=1, allow_private=False)
    assert dns.calls == 1
    assert connects == [(PUBLIC, 80)]


@pytest.mark.parametrize(
    "private",
    ["127.0.0.1", "10.0.0.5", "169.254.169.254", "192.168.1.1", "::1", "fe80::1%eth0", "fc00::1",
     "::ffff:127.0.0.1", "64:ff9b::a00:5", "2002:7f00:1::1", "0.0.0.0", "203.0.113.7"],
)  # fmt: skip
def test_a_host_with_any_address_that_is_not_public_is_refused(dns, connects, private):
    dns.answers = [answer(PUBLIC, private)]
    with pytest.raises(OutboundRefused) as caught:
        outbound_open("https://mixed.example/hook", timeout=1, allow_private=False)
    assert caught.value.code == "outbound/not_public"
    assert private.split("%")[0] not in caught.value.detail  # how a name resolves inside is not told
    assert connects == []


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:9/hook", "http://[::1]:9/hook", "http://10.1.2.3/", "https://[fe80::1]/"]
)
def test_an_ip_literal_is_judged_the_same_way(connects, url):
    with pytest.raises(OutboundRefused) as caught:
        outbound_open(url, timeout=1, allow_private=False)
    assert caught.value.code in ("outbound/not_public", "outbound/unresolvable")
    assert connects == []


def test_public_addresses_pass_and_bad_names_are_told_apart(monkeypatch):
    assert address_is_public(PUBLIC) and address_is_public("2606:2800:220:1:248:1893:25c8:1946")
    assert not address_is_public("fe80::1%eth0") and not address_is_public("::ffff:10.0.0.1")

    def unresolvable(*args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", unresolvable)
    with pytest.raises(OutboundRefused) as caught:
        outbound_open("http://nowhere.example/", timeout=1, allow_private=True)
    assert caught.value.code == "outbound/unresolvable"
    for url in ("ftp://example.org/", "http:///nohost", "http://example.org:99999/"):
        with pytest.raises(OutboundRefused) as caught:
            outbound_open(url, timeout=1, allow_private=True)
        assert caught.value.code == "outbound/bad_url"


def test_private_allowed_reaches_a_listener_on_loopback_by_its_name(dns, connects):
    with Listener() as listener:
        dns.answers = [answer("127.0.0.1", port=listener.port)]
        connection = outbound_open(
            f"http://hooks.example:{listener.port}/hook?round=2", timeout=2, allow_private=True
        )
        try:
            connection.request(
                "POST", connection.target.path, body=b"{}", headers={"Content-Type": "application/json"}
            )
            assert connection.getresponse().status == 204
        finally:
            connection.close()
    assert dns.calls == 1 and connects == [("127.0.0.1", listener.port)]
    assert listener.received == [{"path": "/hook?round=2", "host": f"hooks.example:{listener.port}"}]


def test_https_is_wrapped_for_the_name_on_the_checked_address(dns, connects, monkeypatch):
    wrapped = []

    class Context:  # records the TLS handshake's parameters, then talks plain HTTP to the listener
        def wrap_socket(self, sock, *, server_hostname):
            wrapped.append((sock.getpeername(), server_hostname))
            return sock

    monkeypatch.setattr(outbound, "_tls_context", Context)
    with Listener() as listener:
        dns.answers = [answer("127.0.0.1", port=listener.port)]
        connection = outbound_open(f"https://secure.example:{listener.port}/", timeout=2, allow_private=True)
        try:
            connection.request("POST", connection.target.path, body=b"{}")
            assert connection.getresponse().status == 204
        finally:
            connection.close()
    assert wrapped == [(("127.0.0.1", listener.port), "secure.example")]
    assert listener.received == [{"path": "/", "host": f"secure.example:{listener.port}"}]


def test_an_allowed_ip_literal_needs_no_fake_resolver():
    with Listener() as listener:
        connection = outbound_open(f"http://127.0.0.1:{listener.port}/x", timeout=2, allow_private=True)
        try:
            connection.request("POST", "/x", body=b"")
            assert connection.getresponse().status == 204
        finally:
            connection.close()
    assert listener.received == [{"path": "/x", "host": f"127.0.0.1:{listener.port}"}]
