"""Emptying the test database between a state machine's examples (each starts from nothing, as its test does)."""

from __future__ import annotations

from django.core.management import call_command


def empty() -> None:
    """Every table emptied and what migrate makes made again (content types, permissions, the Organiser group),
    as after a transactional test: by DELETE (tests/conftest.py's _flush_by_delete), not the flush command's
    default TRUNCATE with its sequences reset, which cost 1.5-2 s an example here, as every table and index got
    new files. No machine reads an id it did not get from a row."""
    call_command("flush", interactive=False, verbosity=0, reset_sequences=False)
