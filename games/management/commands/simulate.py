"""Play whole games with bots through the service layer and the tasks, and print figures.

Without a broker the tasks run inline, one game after another; with CELERY_BROKER_URL the games are
created here and played by the workers, and this command waits for them to finish.
Each seat has a watching player, so every phase writes its emails as in a real game.
"""

from __future__ import annotations

import json
import statistics
import time
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection
from django.db.models import Max

from games.engines import get_engine
from games.models import Game, Order, OutboundEmail, Phase, Player
from games.play import turns


class ResolutionQueries:
    """Counts the SQL statements run inside turns.resolve_phase (inline mode only)."""

    def __init__(self) -> None:
        self.counts: list[int] = []
        self._inside = 0
        self._current = 0

    def __call__(self, execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        if self._inside:
            self._current += 1
        return execute(sql, params, many, context)

    def wrap(self, resolve: Any) -> Any:
        def counted(*args: Any, **kwargs: Any) -> Any:
            self._inside += 1
            self._current = 0
            try:
                return resolve(*args, **kwargs)
            finally:
                self._inside -= 1
                self.counts.append(self._current)

        return counted


def latencies(games: list[Game]) -> list[float]:
    """Seconds from each phase's last order to the emails its resolution wrote: the next phase's turn
    emails, or the phase-resolved and game-over emails kept on the resolved phase itself."""
    last_order = dict(
        Order.objects.filter(phase__game__in=games)
        .values("phase_id")
        .annotate(t=Max("submitted_at"))
        .values_list("phase_id", "t")
    )
    pks = {(g, n): pk for pk, g, n in Phase.objects.filter(game__in=games).values_list("pk", "game_id", "number")}
    previous = {pk: pks[(g, n - 1)] for (g, n), pk in pks.items() if n > 1}  # phase -> the one before it
    written: dict[int, Any] = {}
    rows = OutboundEmail.objects.filter(game__in=games, kind__in=["turn-started", "phase-resolved", "game-over"])
    for phase_id, kind, created in rows.values_list("phase_id", "kind", "created_at"):
        # A turn email belongs to the phase the resolution opened; the others to the phase it resolved.
        resolved = previous.get(phase_id) if kind == "turn-started" else phase_id
        if resolved is not None:
            written[resolved] = max(created, written.get(resolved, created))
    return [(written[p] - t).total_seconds() for p, t in last_order.items() if p in written]


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0


class Command(BaseCommand):
    help = "Play K whole games with bots through turns.py and the tasks; one line per game, then JSON figures."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("engine")
        parser.add_argument("--players", type=int, default=4)
        parser.add_argument("--games", type=int, default=1)
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--timeout", type=float, default=600, help="seconds to wait for the workers")

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            engine = get_engine(opts["engine"])
        except KeyError as error:
            raise CommandError(str(error)) from None
        inline = settings.CELERY_TASK_ALWAYS_EAGER
        counter = ResolutionQueries()
        original = turns.resolve_phase
        if inline:
            turns.resolve_phase = counter.wrap(original)
        watchers = [turns.player_for(f"sim-{i + 1}@simulate.invalid", f"Sim {i + 1}") for i in range(opts["players"])]
        Player.objects.filter(pk__in=[w.pk for w in watchers]).update(notify=Player.Notify.ALL)
        started = time.perf_counter()
        games: list[Game] = []
        try:
            with connection.execute_wrapper(counter):
                for k in range(opts["games"]):
                    games.append(
                        turns.create_game(
                            engine.slug,
                            list(watchers),
                            seed=opts["seed"] + k,
                            autopilot=range(opts["players"]),
                            title=f"Simulation {k + 1}",
                        )
                    )
                    if inline:
                        self._report(games[-1])
        finally:
            turns.resolve_phase = original
        if not inline:
            self._wait(games, opts["timeout"])
        elapsed = time.perf_counter() - started
        games = list(Game.objects.filter(pk__in=[g.pk for g in games]))
        finished = [g for g in games if g.status == Game.Status.FINISHED]
        waits = latencies(games)
        figures = {
            "engine": engine.slug,
            "players": opts["players"],
            "games": len(games),
            "finished": len(finished),
            "inline": inline,
            "database": connection.vendor,
            "seconds": round(elapsed, 3),
            "games_per_minute": round(len(finished) / elapsed * 60, 2) if elapsed else None,
            "resolutions": len(waits),
            "latency_ms_median": round(statistics.median(waits) * 1000, 2) if waits else None,
            "latency_ms_p99": round(percentile(waits, 0.99) * 1000, 2) if waits else None,
            "queries_per_resolution_max": max(counter.counts) if counter.counts else None,
            "queries_per_resolution_median": statistics.median(counter.counts) if counter.counts else None,
        }
        self.stdout.write(json.dumps(figures))
        if len(finished) != len(games):
            raise CommandError(f"{len(games) - len(finished)} game(s) did not finish.")

    def _report(self, game: Game) -> None:
        game.refresh_from_db()
        scores = ", ".join(f"seat {r['seat'] + 1}: {r['score']} (#{r['rank']})" for r in game.result)
        self.stdout.write(f"game #{game.pk} {game.status} after {game.phase_number} phases — {scores}")

    def _wait(self, games: list[Game], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        pending = {g.pk for g in games}
        while pending and time.monotonic() < deadline:
            done = set(Game.objects.filter(pk__in=pending, status=Game.Status.FINISHED).values_list("pk", flat=True))
            for game in Game.objects.filter(pk__in=done):
                self._report(game)
            pending -= done
            if pending:
                time.sleep(0.2)  # polling the database: the workers report nothing else
