"""A game no webhook concerns costs the webhooks app no SQL statement in its resolutions: whether any enabled hook
concerns the game is read with the phase the resolution locks (games/hooks/notices.py `concerned`), and the app's
receivers look no further when none does. Counted over whole games, the game's end included, beside the same game
resolved by the core alone (the app's receivers and extension removed), while other games have hooks."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from games import extensions
from games.hooks import notices
from games.hooks.models import Delivery, Hook
from games.models import Game, Seat
from tests.support.resolutions import orders_in, resolved, table

pytestmark = pytest.mark.django_db  # one transaction: the wake-up calls after commit never run, only resolutions count

RECEIVERS = (
    (extensions.notice_due, notices.player_notices, "hooks-player-notices"),
    (extensions.phase_opened, notices.phase_news, "hooks-public-news"),
    (extensions.game_finished, notices.game_over, "hooks-game-over"),
)


@contextmanager
def core_alone(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The core as it runs without the webhooks app: none of its receivers, no extension of its registered."""
    with monkeypatch.context() as patch:
        patch.delitem(extensions._registered, "hooks")
        for signal, _, uid in RECEIVERS:
            signal.disconnect(dispatch_uid=uid)
        try:
            yield
        finally:
            for signal, receiver, uid in RECEIVERS:
                signal.connect(receiver, dispatch_uid=uid)


def test_a_game_no_hook_concerns_resolves_in_the_statements_of_the_core_alone(
    toy_game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    hooked = table("hooked", toy_game)  # hooks elsewhere: the app is not idle everywhere, only for this game
    Hook.objects.create(name="news", kind="json", url="https://hooks.example/in", game=hooked)
    owner = Seat.objects.select_related("player").get(game=hooked, number=0).player
    Hook.objects.create(
        name="mine", kind="json", url="https://hooks.example/in", player=owner, notices=["turn", "result"]
    )
    core, idle = table("core", toy_game), table("idle", toy_game)  # the same game twice
    core_rng, idle_rng, hooked_rng = random.Random(1), random.Random(1), random.Random(1)
    counts: dict[str, list[int]] = {"core": [], "idle": []}
    while (core_phase := orders_in(core, core_rng)) is not None:
        with core_alone(monkeypatch):
            counts["core"].append(resolved(core_phase))
        idle_phase = orders_in(idle, idle_rng)
        assert idle_phase is not None
        counts["idle"].append(resolved(idle_phase))
        hooked_phase = orders_in(hooked, hooked_rng)
        assert hooked_phase is not None
        resolved(hooked_phase)
    core.refresh_from_db()
    assert core.status == Game.Status.FINISHED and len(counts["core"]) >= 3, "whole games, to their end"
    assert counts["idle"] == counts["core"]
    told: dict[Any, set[str]] = {"game": set(), "player": set()}
    for delivery in Delivery.objects.select_related("hook"):
        told["game" if delivery.hook.game_id else "player"].add(delivery.notice["event"])
        assert delivery.notice["game"]["id"] == hooked.pk, "only the hooked game's news"
    # The hooked game is told: its own hook was added in its first turn, so it heard the game start too.
    assert told == {"game": {"started", "resolved", "over"}, "player": {"turn-started", "game-over"}}
