"""Play whole games with bots through the service layer and the tasks, and print figures.

Without a broker the tasks run inline, one game after another; with CELERY_BROKER_URL the games are
created here and played by the workers, and this command waits for them to finish.
Each seat has a watching player, so every phase writes its emails as in a real game (`--no-watchers`: none,
no email, for measuring how the bots play).

`--seat-bots strong,random,random` gives the seats' bot levels; they move round the table a seat each game
(the first level sits at seat 1 in the first game, at seat 2 in the second...), so no seat's place favours
a level. The last line's `seats` has one object per level given, in that order: its level, its wins (a shared
first place counts as a fraction), its mean score, and its mean decision time in seconds (inline only: the
workers' time is theirs). `--bot-budget` is a decision's time in seconds, in place of PBEM_BOT_SECONDS, and
`--bot-iterations` its iteration cap, in place of PBEM_BOT_ITERATIONS (inline only, too: a loaded machine
searches less in a second, the cap keeps a measurement of play comparable).
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
from django.test.utils import override_settings

from games.engines import get_engine
from games.models import BotLevel, Game, Order, OutboundEmail, Phase, Player
from games.play import bots, turns


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


class DecisionTimes:
    """Seconds each bot decision took, by seat number, for the game being played (inline mode only)."""

    def __init__(self) -> None:
        self.by_seat: dict[int, list[float]] = {}

    def wrap(self, choose: Any) -> Any:
        def timed(engine: Any, state: Any, seat: int, *args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return choose(engine, state, seat, *args, **kwargs)
            finally:
                self.by_seat.setdefault(seat, []).append(time.perf_counter() - started)

        return timed


def levels_of(text: str, players: int) -> list[str]:
    """--seat-bots as one level per seat; CommandError for an unknown level or the wrong count."""
    levels = [level.strip() for level in text.split(",")]
    unknown = [level for level in levels if level not in BotLevel.values]
    if unknown:
        raise CommandError(f"Unknown bot level {unknown[0]!r}; choose from {', '.join(BotLevel.values)}.")
    if len(levels) != players:
        raise CommandError(f"--seat-bots names {len(levels)} levels for {players} players.")
    return levels


def seat_figures(levels: list[str], games: list[Game], times: list[dict[int, list[float]]]) -> list[dict[str, Any]]:
    """One object per entry of `levels`: its wins, mean score and mean decision time over `games`, in which entry
    i sat at seat (i + k) mod n of game k."""
    n = len(levels)
    rows = []
    for entry, level in enumerate(levels):
        wins, scores, spent = 0.0, [], []
        for k, game in enumerate(games):
            seat = (entry + k) % n
            result = {row["seat"]: row for row in game.result}
            if seat not in result:
                continue
            winners = [row for row in game.result if row["rank"] == 1]
            wins += 1 / len(winners) if result[seat]["rank"] == 1 else 0
            scores.append(result[seat]["score"])
            spent += times[k].get(seat, []) if k < len(times) else []
        rows.append(
            {
                "level": level,
                "wins": round(wins, 3),
                "score": round(statistics.mean(scores), 2) if scores else None,
                "decision_seconds": round(statistics.mean(spent), 4) if spent else None,
            }
        )
    return rows


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
        parser.add_argument(
            "--seat-bots", default="", help="a bot level per seat, e.g. strong,random,random (default: all random)"
        )
        parser.add_argument(
            "--bot-budget", type=float, default=None, help="seconds per bot decision (default: PBEM_BOT_SECONDS)"
        )
        parser.add_argument(
            "--no-watchers", action="store_true", help="no player watches a seat: no email is written (play only)"
        )
        parser.add_argument(
            "--bot-iterations", type=int, default=None, help="iterations per decision (default: PBEM_BOT_ITERATIONS)"
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            engine = get_engine(opts["engine"])
        except KeyError as error:
            raise CommandError(str(error)) from None
        players = opts["players"]
        levels = levels_of(opts["seat_bots"], players) if opts["seat_bots"] else [BotLevel.RANDOM] * players
        budget = settings.PBEM_BOT_SECONDS if opts["bot_budget"] is None else opts["bot_budget"]
        iterations = opts["bot_iterations"] or settings.PBEM_BOT_ITERATIONS
        inline = settings.CELERY_TASK_ALWAYS_EAGER
        counter = ResolutionQueries()
        timer = DecisionTimes()
        original, choose = turns.resolve_phase, bots.bot_order
        if inline:
            turns.resolve_phase = counter.wrap(original)
            bots.bot_order = timer.wrap(choose)
        watchers: list[Player | None] = [None] * players
        if not opts["no_watchers"]:
            watchers = [turns.player_for(f"sim-{i + 1}@simulate.invalid", f"Sim {i + 1}") for i in range(players)]
            Player.objects.filter(pk__in=[w.pk for w in watchers if w]).update(notify=Player.Notify.ALL)
        started = time.perf_counter()
        games: list[Game] = []
        times: list[dict[int, list[float]]] = []
        try:
            with (
                connection.execute_wrapper(counter),
                override_settings(PBEM_BOT_SECONDS=budget, PBEM_BOT_ITERATIONS=iterations),
            ):
                for k in range(opts["games"]):
                    timer.by_seat = {}
                    games.append(
                        turns.create_game(
                            engine.slug,
                            list(watchers),
                            seed=opts["seed"] + k,
                            autopilot=range(players),
                            bot_levels=[levels[(seat - k) % players] for seat in range(players)],
                            title=f"Simulation {k + 1}",
                        )
                    )
                    times.append(timer.by_seat)
                    if inline:
                        self._report(games[-1])
        finally:
            turns.resolve_phase, bots.bot_order = original, choose
        if not inline:
            self._wait(games, opts["timeout"])
        elapsed = time.perf_counter() - started
        games = sorted(Game.objects.filter(pk__in=[g.pk for g in games]), key=lambda game: game.pk)
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
            "bot_budget": budget,
            "bot_iterations": iterations,
            "seats": seat_figures(levels, games, times if inline else []),
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
