"""Small helpers shared by the management commands."""

from __future__ import annotations

import re
from datetime import timedelta

from django.core.management.base import CommandError

_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}


def parse_duration(text: str) -> timedelta:
    """'48h', '30m', '2d', '90s' (a bare number means hours)."""
    match = re.fullmatch(r"\s*(\d+)\s*([smhd]?)\s*", text.lower())
    if not match or int(match.group(1)) <= 0:
        raise CommandError(f"{text!r} is not a duration like 48h, 30m or 2d.")
    return timedelta(**{_UNITS[match.group(2) or "h"]: int(match.group(1))})
