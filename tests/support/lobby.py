"""Helpers of the lobby's tests: a table proposed the way the form proposes one, and the links read out of the
invitation emails in the outbox."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from django.core import mail
from django.utils import timezone

from games.lobby import tables
from games.lobby.models import Table
from games.models import Player
from games.play import turns

SITE = "https://pbem.example"


def creator(address: str = "host@example.com", name: str = "Host") -> Player:
    return turns.player_for(address, name)


def spec(
    engine: str = "genoa", size: int = 3, start_in: timedelta = timedelta(days=2), **extra: Any
) -> tables.TableSpec:
    return tables.TableSpec(
        engine=engine, size=size, start_by=timezone.now() + start_in, phase_length=timedelta(hours=24), **extra
    )


def propose(host: Player, addresses: list[str], now: datetime | None = None, **extra: Any) -> Table:
    return tables.create_table(host, spec(**extra), addresses, now)


def invitation_links(address: str) -> tuple[str, str]:
    """(join path, decline path) of the latest invitation email to `address`."""
    found = [m for m in mail.outbox if m.to == [address] and "invites you" in m.subject]
    assert found, f"no invitation to {address} in {[m.subject for m in mail.outbox]}"
    body = str(found[-1].body)
    join = re.search(rf"{SITE}(/lobby/i/\S+/)", body)
    decline = re.search(rf"{SITE}(/lobby/decline/\S+/)", body)
    assert join and decline, body
    return join.group(1), decline.group(1)
