"""Webhooks through real Celery workers on Redis: a resolution never waits for them. With a worker on the
resolutions' queue only, a complete phase resolves and its notices are written, and none is sent (nothing
takes the email queue); a worker on the email queue then delivers them to the receiver, signed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from games.hooks.models import Delivery, Hook, Notice
from games.models import MailStatus, Phase
from games.outgoing.dispatch import Queue
from games.play import orders
from tests.support import hooks_receiver
from tests.support.phases import open_phase
from tests.support.workers import started_workers, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_resolution_by_a_real_worker_writes_the_notices_and_an_email_worker_delivers_them(
    make_game, postgres, broker_url, settings, tmp_path: Path
) -> None:
    for receiver, ca_file in hooks_receiver.serve(tmp_path):
        game = make_game(humans=3)
        player = game.seats.get(number=0).player
        hook = Hook.objects.create(
            name="mine", kind="json", url=receiver.url("/in"), player=player, notices=[Notice.TURN, Notice.RESULT]
        )
        Hook.objects.create(name="news", kind="discord", url=receiver.url("/news"), game=game)
        # Added in the first turn, it was told the game started, by this process (tests/hooks/test_admin.py covers
        # that notice): only what the resolution writes is this test's.
        Delivery.objects.filter(notice__event="started").delete()
        env: dict[str, Any] = {
            "DJANGO_SETTINGS_MODULE": "tests.support.hooks_worker_settings",
            "PBEM_TEST_HOOKS_CA": ca_file,
        }
        workers = started_workers(broker_url, settings, tmp_path)
        start = next(workers)
        try:
            resolver = start(Queue.RESOLVE, **env)
            phase = open_phase(game)
            for seat in game.seats.order_by("number"):
                orders.submit_order(seat, phase.number, {"role": "seller" if seat.number == 0 else "buyer"})
            second = Phase.objects.filter(game=game, number=2)
            wait_for(second.exists, 60, "the resolution", resolver)
            written = list(Delivery.objects.order_by("pk"))
            assert {d.hook.name for d in written} == {"mine", "news"}
            assert all(d.status == MailStatus.PENDING for d in written) and receiver.received == []
            sender = start(Queue.EMAIL, **env)
            wait_for(
                lambda: not Delivery.objects.exclude(status=MailStatus.SENT).exists(), 60, "the deliveries", sender
            )
        finally:
            next(workers, None)
        paths = sorted(item.path for item in receiver.received)
        assert paths == sorted(["/in"] * Delivery.objects.filter(hook=hook).count() + ["/news"])
        news = json.loads(next(item for item in receiver.received if item.path == "/news").body)
        assert news["content"].startswith(f"{game.name}: ")
