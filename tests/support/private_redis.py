"""A Redis of the test's own, on a free port, that the test may kill and start again (a broker outage), never the
machine's shared one."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.services import missing_service


class PrivateRedis:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        command = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        # Kept on disk as written, so the queues outlive a kill as they outlive a real outage.
        command += ["--appendonly", "yes", "--appendfsync", "always", "--dir", str(self.folder)]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # until it accepts connections
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.02)
        pytest.fail("the private redis-server did not start")

    def kill(self) -> None:
        """The outage: SIGKILL, every connection dropped at once, new ones refused."""
        assert self.process is not None
        self.process.kill()
        self.process.wait(10)


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    if shutil.which("redis-server") is None:
        missing_service("needs redis-server (apt-get install redis-server)")
    server = PrivateRedis(tmp_path)
    server.start()
    yield server
    if server.process is not None and server.process.poll() is None:
        server.kill()
