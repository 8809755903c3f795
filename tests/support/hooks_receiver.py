"""A webhook receiver on this machine for the webhook tests: a real HTTPS server (its certificate, for the name
hooks.test, from a test authority made by trustme) that records what it is sent and answers what a test
queues. The server's settings point the hooks at it: PBEM_HOOKS_RESOLVER at `resolve` below (the resolver
seam: a name answers what the test put in ANSWERS), PBEM_HOOKS_CA_FILE at the test authority, and
PBEM_HOOKS_ALLOW_LOOPBACK on, since the receiver listens on 127.0.0.1. Nothing of the network is mocked but
the name's resolution: the sender connects, speaks TLS and checks the certificate for real."""

from __future__ import annotations

import ssl
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import trustme

NAME = "hooks.test"
ANSWERS: dict[str, list[str]] = {}


def resolve(host: str, port: int) -> list[str]:
    """The resolver seam's test side: the addresses a test gave `host`, else no such name."""
    if host not in ANSWERS:
        raise OSError(f"no test answer for {host}")
    return ANSWERS[host]


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float = field(default_factory=time.monotonic)  # when it arrived (the pacing tests read it)


@dataclass
class Receiver:
    port: int
    received: list[Received] = field(default_factory=list)
    # What to answer next, in order: a status, or (status, headers); `status` once they are used up.
    answers: list[Any] = field(default_factory=list)
    status: int = 200

    def url(self, path: str = "/hook", host: str = NAME) -> str:
        return f"https://{host}:{self.port}{path}"


def serve(tmp_path: Path, names: tuple[str, ...] = (NAME,)) -> Iterator[tuple[Receiver, str]]:
    """A receiver whose certificate is for `names`; yields it and the test authority's file."""
    authority = trustme.CA()
    ca_file = tmp_path / "ca.pem"
    authority.cert_pem.write_to_path(str(ca_file))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert(*names).configure_cert(context)
    receiver = Receiver(port=0)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802  (http.server's name)
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            receiver.received.append(Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            answer = receiver.answers.pop(0) if receiver.answers else receiver.status
            status, headers = answer if isinstance(answer, tuple) else (answer, {})
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    receiver.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver, str(ca_file)
    finally:
        server.shutdown()
        server.server_close()


def point_hooks_at(settings: Any, ca_file: str) -> None:
    """The server's settings for a test that delivers to a receiver of `serve` (the module's docstring)."""
    settings.PBEM_HOOKS_RESOLVER = "tests.support.hooks_receiver.resolve"
    settings.PBEM_HOOKS_CA_FILE = ca_file
    settings.PBEM_HOOKS_ALLOW_LOOPBACK = True
    ANSWERS.clear()
    ANSWERS[NAME] = ["127.0.0.1"]


def resolve_to_this_machine(host: str, port: int) -> list[str]:
    """The resolver of a real worker's test settings (tests/support/hooks_worker_settings.py): the receiver's
    name only."""
    if host != NAME:
        raise OSError(f"no test answer for {host}")
    return ["127.0.0.1"]
