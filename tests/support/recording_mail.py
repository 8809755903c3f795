"""An email backend for real-worker tests: each message it is handed is written to its own file, so the
test process can count what a worker sent, even a worker it killed. With PBEM_TEST_MAIL_STOP_AT=N the N-th
message of the process is not written: the backend marks the folder and waits for ever, like a worker stuck
in the provider's call, for the test to kill."""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Sequence
from pathlib import Path

from django.core.mail import EmailMessage
from django.core.mail.backends.base import BaseEmailBackend

STOPPED = "stopped"


def folder() -> Path:
    return Path(os.environ["PBEM_TEST_MAIL_DIR"])


def message_ids(where: Path) -> list[str]:
    """The Message-ID of every message written to `where`."""
    ids = []
    for path in where.glob("*.eml"):
        for line in path.read_text().splitlines():
            if line.lower().startswith("message-id:"):
                ids.append(line.split(":", 1)[1].strip())
    return ids


class RecordingBackend(BaseEmailBackend):
    handed = 0  # messages handed to this process's backends

    def send_messages(self, email_messages: Sequence[EmailMessage]) -> int:
        for message in email_messages:
            RecordingBackend.handed += 1
            if str(RecordingBackend.handed) == os.environ.get("PBEM_TEST_MAIL_STOP_AT"):
                (folder() / STOPPED).touch()
                threading.Event().wait()
            (folder() / f"{uuid.uuid4().hex}.eml").write_bytes(message.message().as_bytes())
        return len(email_messages)
