"""Tests that need PostgreSQL, Redis or RabbitMQ skip without them, unless PBEM_REQUIRE_SERVICES=1 makes that
a failure."""

from __future__ import annotations

import os

import pytest

REQUIRE_SERVICES = os.environ.get("PBEM_REQUIRE_SERVICES") == "1"


def missing_service(reason: str) -> None:
    if REQUIRE_SERVICES:
        pytest.fail(f"{reason} (PBEM_REQUIRE_SERVICES=1: this may not skip)")
    pytest.skip(reason)
