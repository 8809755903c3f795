"""What the webhooks app costs a resolution (issue 31, item 6): `make bench-hooks`.

Games of Port of Piraeus with 4 human seats, every order of the first phase in; each phase is resolved by
turns.resolve_phase in this process (the wake-up calls it publishes after commit are collected, not run, so
neither emails nor deliveries are sent: only the resolution's own transaction is timed, which is where the
app adds its reads and its rows). Three ways, interleaved game by game so that the machine's load falls on
all alike:

  without   the app's receivers disconnected and its extension unregistered: the core alone;
  idle      the app as installed, no hook anywhere (what most servers have);
  hooked    a signed JSON hook for each of the 4 players (every notice) and one for the game's news.

Prints, for each: the median and 90th percentile of a resolution's time, its SQL statements, and the
median's ratio to `without`. Needs PostgreSQL (DATABASE_URL; a database of its own is made and dropped).
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import django

GAMES = int(os.environ.get("BENCH_HOOKS_GAMES", "60"))  # per way
WAYS = ("without", "idle", "hooked")


def setup() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pbem.settings")
    os.environ.setdefault("DEBUG", "1")
    django.setup()


def prepare(way: str, number: int) -> int:
    """A game whose first phase has every order in; returns the phase's id."""
    import random

    from games.hooks.models import Hook
    from games.models import Order
    from games.play import turns

    players = [turns.player_for(f"b{number}-{n}@bench.example", f"B{n}") for n in range(4)]
    game = turns.create_game("piraeus", players, seed=number)
    if way == "hooked":
        url = "https://hooks.bench.example/in"
        for player in players:
            Hook.objects.create(name="p", kind="json", url=url, player=player, notices=["turn", "reminder", "result"])
        Hook.objects.create(name="g", kind="json", url=url, game=game)
    phase = turns.current_phase(game)
    assert phase is not None
    engine = turns.engine_of(game)
    for seat in game.seats.order_by("number"):
        if phase.prompt_for(seat.number) is not None:
            order = engine.random_order(game.state, seat.number, random.Random(number))
            Order.objects.create(phase=phase, seat=seat, data=engine.validate(game.state, seat.number, order))
    return phase.pk


def main() -> None:
    setup()
    from django.db import connection, reset_queries
    from django.dispatch import Signal
    from django.test.utils import CaptureQueriesContext, setup_test_environment

    from bench.procs import percentile
    from games import extensions
    from games.hooks import notices
    from games.outgoing import dispatch
    from games.play import turns

    setup_test_environment()
    if template := os.environ.get("BENCH_TEMPLATE_DB"):  # a migrated database to copy (bench/run.py TEMPLATE_ENV)
        connection.settings_dict["TEST"]["TEMPLATE"] = template
    old = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    published: list[Any] = []

    def collect(name: Any, *args: Any, **kwargs: Any) -> bool:
        published.append(name)
        return True

    dispatch.publish = collect
    receivers: list[tuple[Signal, Callable[..., Any], str]] = [
        (extensions.notice_due, notices.player_notices, "hooks-player-notices"),
        (extensions.phase_opened, notices.phase_news, "hooks-public-news"),
        (extensions.game_finished, notices.game_over, "hooks-game-over"),
    ]
    registered: extensions.Extension | None = None
    times: dict[str, list[float]] = {way: [] for way in WAYS}
    queries: dict[str, list[int]] = {way: [] for way in WAYS}
    try:
        for number in range(GAMES):
            for way in WAYS:
                phase_id = prepare(way, number * len(WAYS) + WAYS.index(way))
                for signal, receiver, uid in receivers:
                    if way == "without":
                        signal.disconnect(dispatch_uid=uid)
                    else:
                        signal.connect(receiver, dispatch_uid=uid)
                # Without the app, no extension of its either: the resolution's read of its phase asks nothing of
                # the hooks (notices.concerned, through Extension.phase_annotations).
                if way == "without":
                    registered = extensions._registered.pop("hooks", None) or registered
                elif registered is not None:
                    extensions._registered["hooks"] = registered
                reset_queries()  # the connection keeps the last 9,000 statements only: a capture must start empty
                with CaptureQueriesContext(connection) as captured:
                    start = time.perf_counter()
                    assert turns.resolve_phase(phase_id)
                    times[way].append((time.perf_counter() - start) * 1000)
                queries[way].append(len(captured.captured_queries))
        base = statistics.median(times["without"])
        print(f"resolutions of Port of Piraeus (4 players), {GAMES} per way, interleaved")
        for way in WAYS:
            ordered = sorted(times[way])
            p90 = percentile(ordered, 90)  # nearest rank: with fewer than 10 games, not the fastest
            median = statistics.median(ordered)
            sql = sorted(set(queries[way]))
            print(
                f"  {way:8} median {median:6.2f} ms  p90 {p90:6.2f} ms  SQL {sql}  "
                f"ratio to without {median / base:4.2f}"
            )
    finally:
        connection.creation.destroy_test_db(old, verbosity=0)


if __name__ == "__main__":
    main()
