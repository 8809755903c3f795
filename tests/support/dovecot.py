"""A private Dovecot IMAP server for one test (Debian's dovecot-imapd, never the system's instance): its own
configuration, mail and sockets in a temporary folder, on a free port of 127.0.0.1, one user with a password; over
TLS with a certificate from a test authority (trustme) unless asked for plain IMAP, with or without IDLE. It starts
and stops in milliseconds; `restart` keeps the mail and the port, as a server restarted by its operator does."""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import pytest
import trustme
from imapclient import IMAPClient

from tests.support.services import missing_service

DOVECOT = shutil.which("dovecot") or shutil.which("dovecot", path="/usr/sbin")
USER, PASSWORD = "club@pbem.example", "p@ss/word%1?"  # characters a URL must escape


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Dovecot:
    folder: Path
    port: int
    tls: bool
    idle: bool
    ca_file: Path | None = None
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    def url(self, **query: str) -> str:
        scheme = "imaps" if self.tls else "imap"
        tail = "?" + "&".join(f"{name}={value}" for name, value in query.items()) if query else ""
        return f"{scheme}://{quote(USER, safe='')}:{quote(PASSWORD, safe='')}@127.0.0.1:{self.port}/INBOX{tail}"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [str(DOVECOT), "-F", "-c", str(self.folder / "dovecot.conf")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # its own process group: kill() ends the master and every child at once
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # it listens within milliseconds
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            if self.process.poll() is not None:
                break
            time.sleep(0.01)
        raise RuntimeError(f"dovecot did not start: {self.log()}")

    def stop(self, how: signal.Signals = signal.SIGTERM) -> None:
        """As systemd stops it (`systemctl restart dovecot`): the signal to every process of its group, the master
        and each connection's imap process, which closes that connection; then until its port is closed."""
        if self.process is None:
            return
        with suppress(ProcessLookupError):
            os.killpg(self.process.pid, how)
        self.process.wait(timeout=10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", self.port)) != 0:
                    return
            time.sleep(0.01)

    def kill(self) -> None:
        """Every process of it at once (the end of a test)."""
        self.stop(signal.SIGKILL)

    def restart(self) -> None:
        self.stop()
        self.start()

    def log(self) -> str:
        path = self.folder / "dovecot.log"
        return path.read_text() if path.exists() else ""

    def client(self) -> IMAPClient:
        """A mail client of the test's own, logged in with INBOX selected."""
        context = ssl.create_default_context(cafile=str(self.ca_file)) if self.ca_file else None
        client = IMAPClient("127.0.0.1", self.port, ssl=self.tls, ssl_context=context, timeout=10)
        client.login(USER, PASSWORD)
        client.select_folder("INBOX")
        return client

    def deliver(self, raw: bytes) -> None:
        """A message arriving in the mailbox (as the mail server's delivery puts it there: unseen)."""
        with self.client() as client:
            client.append("INBOX", raw)

    def flags(self, folder: str = "INBOX") -> dict[int, set[bytes]]:
        """Each message's flags, by UID, in the folder."""
        with self.client() as client:
            if not client.folder_exists(folder):
                return {}
            client.select_folder(folder)
            uids = client.search(["ALL"])
            return {uid: set(data[b"FLAGS"]) for uid, data in client.fetch(uids, ["FLAGS"]).items()} if uids else {}


def configuration(server: Dovecot, mail_user: str) -> str:
    folder = server.folder
    owner = pwd.getpwnam(mail_user)
    tls = f"ssl = required\nssl_cert = <{folder}/cert.pem\nssl_key = <{folder}/key.pem" if server.tls else "ssl = no"
    listener = f"port = {server.port}\n    ssl = yes" if server.tls else f"port = {server.port}"
    capability = "" if server.idle else "imap_capability = IMAP4rev1 SASL-IR LITERAL+ ENABLE UIDPLUS MOVE"
    return f"""
base_dir = {folder}/run
state_dir = {folder}/state
log_path = {folder}/dovecot.log
protocols = imap
listen = 127.0.0.1
{tls}
disable_plaintext_auth = no
auth_mechanisms = plain
first_valid_uid = 1
mail_location = maildir:{folder}/mail/%n
{capability}
passdb {{
  driver = passwd-file
  args = scheme=PLAIN {folder}/users
}}
userdb {{
  driver = static
  args = uid={owner.pw_uid} gid={owner.pw_gid} home={folder}/mail/%n
}}
service imap-login {{
  inet_listener {"imaps" if server.tls else "imap"} {{
    {listener}
  }}
  inet_listener {"imap" if server.tls else "imaps"} {{
    port = 0
  }}
}}
"""


def started(tls: bool = True, idle: bool = True) -> Iterator[Dovecot]:
    if DOVECOT is None:
        missing_service("needs Debian's dovecot-imapd (apt-get install dovecot-imapd)")
    # A folder of our own rather than pytest's: Dovecot's mail processes run as an unprivileged user (never root),
    # which must reach it.
    folder = Path(tempfile.mkdtemp(prefix="pbem-dovecot-"))
    folder.chmod(0o755)
    root = os.geteuid() == 0
    mail_user = "nobody" if root else pwd.getpwuid(os.geteuid()).pw_name
    server = Dovecot(folder=folder, port=free_port(), tls=tls, idle=idle)
    if tls:
        ca = trustme.CA()
        issued = ca.issue_cert("127.0.0.1")
        issued.cert_chain_pems[0].write_to_path(str(folder / "cert.pem"))
        issued.private_key_pem.write_to_path(str(folder / "key.pem"))
        server.ca_file = folder / "ca.pem"
        ca.cert_pem.write_to_path(str(server.ca_file))
    (folder / "users").write_text(f"{USER}:{{PLAIN}}{PASSWORD}\n")
    (folder / "mail").mkdir()
    shutil.chown(folder / "mail", mail_user)
    text = configuration(server, mail_user)
    if not root:
        text += f"default_login_user = {mail_user}\ndefault_internal_user = {mail_user}\n"
    (folder / "dovecot.conf").write_text(text)
    server.start()
    try:
        yield server
    finally:
        server.kill()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def dovecot(monkeypatch: pytest.MonkeyPatch) -> Iterator[Dovecot]:
    """A private Dovecot over TLS (imaps), with IDLE. Its certificate is trusted as a public authority's would be:
    through the default verify paths (SSL_CERT_FILE), which the code under test uses unchanged."""
    for server in started():
        monkeypatch.setenv("SSL_CERT_FILE", str(server.ca_file))
        yield server


@pytest.fixture
def dovecot_without_idle() -> Iterator[Dovecot]:
    """A private Dovecot on plain IMAP that does not offer IDLE (the reader polls)."""
    yield from started(tls=False, idle=False)
