"""Faults: bot games played through a real worker that is SIGKILLed 100 times, and a 60 s broker outage.

    .venv/bin/python bench/faults.py [--kills 100] [--outage 60] [--games 8] [--seed 1]
    (or `make bench-faults`; not part of the tests or CI)

Needs PostgreSQL on 127.0.0.1:5432 (user postgres, trust) and Redis on 127.0.0.1:6379. Drops and
recreates the database `pbem_faults_bench` and flushes Redis db 10 (`--redis-db`). The worker, beat and
this script reach Redis through a TCP proxy run by this script: the outage closes the proxy's port (the
connections drop, new ones are refused) and opens it again; the machine's Redis is never touched.

What runs, with the project's production settings (DEBUG off, its broker timeouts, the 60 s beat sweep,
the 30 s settle time):
- games of every engine with 4 seats, each seat a player on autopilot (a bot plays its orders, the player
  gets every email), so each phase costs a bots' task, a resolution and 4 emails written to files (the
  file backend, one message at a time, so a killed worker's messages stay counted). `--games` games are
  kept in flight: a finished game is replaced until the faults are over;
- one worker (prefork, 2 processes), SIGKILLed with its whole process group at a random moment 0.3-4 s
  after it is ready, and started again, `--kills` times; half-way, the broker is unreachable for
  `--outage` seconds (no kills meanwhile; games are still created, so their first tasks are lost);
- celery beat, sending the deadline sweep every minute (`--sweep-every`; a complete phase whose task was lost
  is resolved by it once its last order is `--settle` seconds old).
Then it waits for every game to finish and every email to be sent, and prints:
- phases lost: games whose log and state do not replay from their seed and orders, or whose phases skip
  a number (a resolution's writes lost or half-done);
- phases doubled: a phase resolved more than once (the workers' "phase resolved" log lines);
- phases stuck: open phases, at the end, with every order in or owing only bots' orders;
- the longest time from a phase's last order to its resolution (and the 99th percentile);
- emails owed but never sent (rows not sent at the end, or recorded sent and never written), and
  emails sent twice (a Message-ID written more than once).
Aim: 0, 0, 0, under two minutes, 0, 0. Writes bench/results/faults.json; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a script: make the project importable

import redis  # noqa: E402

from bench import procs  # noqa: E402
from bench.procs import RESULTS, RUN_DIR, VENV_BIN  # noqa: E402
from bench.run import fresh_database  # noqa: E402

SECRET_KEY = "bench-faults-secret-key-not-for-production-0123456789abcdefghijklmnop"
ENGINES = ["manila", "piraeus", "genoa", "ports-of-call", "phoenician"]


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--database", default="pbem_faults_bench", help="dropped and recreated")
    ap.add_argument("--redis-db", type=int, default=10, help="flushed at the start")
    ap.add_argument("--kills", type=int, default=100)
    ap.add_argument("--outage", type=float, default=60.0, help="seconds the broker is unreachable")
    ap.add_argument("--games", type=int, default=8, help="games kept in flight while the faults go on")
    ap.add_argument("--drain", type=float, default=900.0, help="seconds to wait for the games and emails after")
    ap.add_argument("--seed", type=int, default=1)
    # The production settings by default; the smoke test (tests/test_bench_smoke.py) shortens them.
    ap.add_argument("--sweep-every", type=int, default=60, help="seconds between beat's sweeps")
    ap.add_argument("--settle", type=int, default=30, help="the sweep resolves a complete phase this much older")
    return ap.parse_args()


# --- a TCP proxy in front of Redis, which the outage closes ---------------------------------------------


class Proxy:
    """Forwards 127.0.0.1:port to Redis. `close()` drops every connection and stops listening (clients get
    'connection refused', as when Redis is down); `open()` listens again on the same port."""

    def __init__(self, port: int, target: tuple[str, int] = ("127.0.0.1", 6379)) -> None:
        self.port, self.target = port, target
        self.loop = asyncio.new_event_loop()
        self.server: asyncio.Server | None = None
        self.writers: set[asyncio.StreamWriter] = set()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except OSError:
            pass
        finally:
            writer.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.close()
            return
        pair = {writer, up_writer}
        self.writers |= pair
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))
        self.writers -= pair

    async def _open(self) -> None:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", self.port, reuse_address=True)

    async def _close(self) -> None:
        assert self.server is not None
        self.server.close()
        for writer in list(self.writers):
            writer.transport.abort()
        await self.server.wait_closed()

    def open(self) -> None:
        asyncio.run_coroutine_threadsafe(self._open(), self.loop).result()

    def close(self) -> None:
        asyncio.run_coroutine_threadsafe(self._close(), self.loop).result()


# --- processes ---------------------------------------------------------------------------------------------


def environment(args: argparse.Namespace, broker_port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CELERY_", "PBEM_", "EMAIL_"))}
    env.update(
        DATABASE_URL=f"postgres://postgres@127.0.0.1:5432/{args.database}",
        CELERY_BROKER_URL=f"redis://127.0.0.1:{broker_port}/{args.redis_db}",
        DEBUG="0",
        SECRET_KEY=SECRET_KEY,
        SITE_URL="https://pbem.example",
        ALLOWED_HOSTS="127.0.0.1",
        PBEM_VAR_DIR=str(RESULTS / "faults-var"),  # the file email backend writes to its outbox/
        DJANGO_SETTINGS_MODULE="pbem.settings",
        PYTHONPATH=str(ROOT),
        PYTHONUNBUFFERED="1",
        LOG_LEVEL="INFO",
        PBEM_SWEEP_EVERY_SECONDS=str(args.sweep_every),
        PBEM_SETTLE_SECONDS=str(args.settle),
    )
    return env


class Worker:
    """The worker under fire: started, waited for, SIGKILLed with its process group, started again."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.runs = 0
        self.proc: subprocess.Popen[bytes] | None = None

    def log(self) -> Path:
        return RUN_DIR / f"faults-worker-{self.runs}.log"

    def start(self) -> None:
        self.runs += 1
        cmd = [
            str(VENV_BIN / "celery"),
            "-A",
            "pbem",
            "worker",
            "--pool=prefork",
            "--concurrency=2",
            "-n",
            f"faults{self.runs}@%h",
            "--loglevel=INFO",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ]
        self.proc = procs.start(cmd, f"faults-worker-{self.runs}", self.env)

    def wait_ready(self, timeout: float = 120) -> None:
        assert self.proc is not None
        procs.wait_until(lambda: " ready." in self.log().read_text(errors="replace"), self.proc, "worker", timeout)

    def kill(self) -> None:
        assert self.proc is not None
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)
        procs._started.remove(self.proc)


# --- the games -----------------------------------------------------------------------------------------------


class Games:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.created: list[int] = []

    def start_one(self) -> None:
        from datetime import timedelta

        from games.play import turns

        n = len(self.created)
        engine = ENGINES[n % len(ENGINES)]
        players = [turns.player_for(f"g{n}s{i}@bench.example", f"Player {i + 1}") for i in range(4)]
        game = turns.create_game(
            engine,
            players,
            autopilot=range(4),
            phase_length=timedelta(hours=48),
            seed=self.rng.randrange(2**62),
        )
        self.created.append(game.pk)

    def in_flight(self) -> int:
        from games.models import Game

        return Game.objects.filter(pk__in=self.created).exclude(status=Game.Status.FINISHED).count()

    def top_up(self, target: int) -> None:
        for _ in range(target - self.in_flight()):
            self.start_one()


# --- the figures ----------------------------------------------------------------------------------------------


def message_ids(outbox: Path) -> collections.Counter[str]:
    ids: collections.Counter[str] = collections.Counter()
    for path in outbox.glob("*.log"):
        for line in path.read_text(errors="replace").splitlines():
            if line.lower().startswith("message-id:"):
                ids[line.split(":", 1)[1].strip()] += 1
    return ids


def resolutions_logged() -> collections.Counter[tuple[int, int]]:
    # The games logger's own line (it starts the line); Celery's root handler repeats it with a prefix.
    pattern = re.compile(r"^phase resolved: game (\d+) phase (\d+)", re.MULTILINE)
    seen: collections.Counter[tuple[int, int]] = collections.Counter()
    for path in RUN_DIR.glob("faults-worker-*.log"):
        for match in pattern.finditer(path.read_text(errors="replace")):
            seen[(int(match.group(1)), int(match.group(2)))] += 1
    return seen


def stuck_phases() -> int:
    from django.db.models import Q

    from games.models import Game, Phase

    due = Q(complete_at__isnull=False) | Q(bots_due_at__isnull=False)
    return Phase.objects.filter(due, status=Phase.Status.OPEN, game__status=Game.Status.ACTIVE).count()


def unsent_emails() -> int:
    from games.outgoing import emails

    return emails.unsent().count()


def figures(games: Games, outage: tuple[float, float]) -> dict[str, Any]:
    from django.db import connection

    from games.management.commands.replay import replay
    from games.models import Game, OutboundEmail, Phase

    lost = []
    for game in Game.objects.filter(pk__in=games.created):
        same, detail = replay(game)
        numbers = list(Phase.objects.filter(game=game).order_by("number").values_list("number", flat=True))
        if not same or numbers != list(range(1, len(numbers) + 1)):
            lost.append(f"game {game.pk}: {detail}, phases {numbers[:3]}..{numbers[-3:]}")
    doubled = {key: n for key, n in resolutions_logged().items() if n > 1}
    with connection.cursor() as cursor:
        # From a phase's last order to its resolution, for phases resolved on their orders (not a deadline).
        cursor.execute(
            """SELECT extract(epoch FROM p.resolved_at - max(o.submitted_at)), max(o.submitted_at)
               FROM games_phase p JOIN games_order o ON o.phase_id = p.id
               WHERE p.status = 'resolved' AND NOT p.used_defaults GROUP BY p.id"""
        )
        waits = [(float(seconds), last.timestamp()) for seconds, last in cursor.fetchall()]
    latencies = sorted(w for w, _ in waits)
    during_outage = [w for w, at in waits if outage[0] <= at <= outage[1]]
    rows = list(OutboundEmail.objects.values_list("pk", "game_id", "status"))
    written = message_ids(RESULTS / "faults-var" / "outbox")
    sent_ids = {f"<pbem.{game_id}.{pk}@pbem.example>" for pk, game_id, status in rows if status == "sent"}
    never_sent = sum(status in ("pending", "sending", "failed") for _, _, status in rows)
    never_written = len(sent_ids - set(written))
    return {
        "games": len(games.created),
        "games_finished": Game.objects.filter(pk__in=games.created, status=Game.Status.FINISHED).count(),
        "phases_resolved": len(latencies),
        "phases_lost": len(lost),
        "lost_detail": lost[:10],
        "phases_doubled": len(doubled),
        "doubled_detail": [f"game {g} phase {n}: {c} times" for (g, n), c in list(doubled.items())[:10]],
        "phases_stuck": stuck_phases(),
        "longest_last_order_to_resolution_s": round(latencies[-1], 1) if latencies else None,
        "p99_last_order_to_resolution_s": round(procs.percentile(latencies, 99), 2) if latencies else None,
        "resolutions_over_2_minutes": sum(w > 120 for w in latencies),
        "longest_for_orders_in_during_the_outage_s": round(max(during_outage), 1) if during_outage else None,
        "emails_rows": len(rows),
        "emails_sent": len(sent_ids),
        "emails_owed_never_sent": never_sent + never_written,
        "emails_sent_twice": sum(n > 1 for n in written.values()),
        "emails_written_total": sum(written.values()),
    }


# --- the run ----------------------------------------------------------------------------------------------------


def main() -> None:
    args = parse_args()
    rng = random.Random(args.seed)
    RUN_DIR.mkdir(parents=True, exist_ok=True)
    for old in [*RUN_DIR.glob("faults-*.log"), *(RESULTS / "faults-var" / "outbox").glob("*.log")]:
        old.unlink()
    fresh_database(args.database)
    redis.Redis(db=args.redis_db).flushdb()
    proxy = Proxy(procs.free_port())
    proxy.open()
    env = environment(args, proxy.port)
    subprocess.run([str(VENV_BIN / "python"), "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True)
    os.environ.update(env)
    import django

    django.setup()
    schedule = RUN_DIR / "faults-beat-schedule"
    schedule.unlink(missing_ok=True)
    worker = Worker(env)
    games = Games(args.seed)
    started = time.time()
    outage = (0.0, 0.0)
    try:
        beat = [str(VENV_BIN / "celery"), "-A", "pbem", "beat", "-s", str(schedule), "--loglevel=INFO"]
        procs.start(beat, "faults-beat", env)
        worker.start()
        worker.wait_ready()
        games.top_up(args.games)
        for kill in range(1, args.kills + 1):
            if kill == args.kills // 2 + 1 and args.outage:
                print(f"  broker unreachable for {args.outage:.0f} s", flush=True)
                proxy.close()
                outage = (time.time(), time.time() + args.outage)
                while time.time() < outage[1]:
                    games.top_up(args.games)  # their first tasks cannot be sent: the sweep must find them
                    time.sleep(1)
                proxy.open()
            time.sleep(rng.uniform(0.3, 4.0))
            worker.kill()
            worker.start()
            games.top_up(args.games)
            worker.wait_ready()
            if kill % 10 == 0:
                print(f"  {kill} kills, {len(games.created)} games started", flush=True)
        print("  faults over: waiting for every game to finish and every email to be sent", flush=True)
        deadline = time.time() + args.drain
        while time.time() < deadline and (games.in_flight() or unsent_emails()):
            time.sleep(2)
        out = figures(games, outage)
    finally:
        procs.stop_all()
    out.update(
        kills=args.kills,
        outage_s=args.outage,
        worker_starts=worker.runs,
        wall_s=round(time.time() - started),
        load=os.getloadavg(),
    )
    (RESULTS / "faults.json").write_text(json.dumps(out, indent=2))
    print(json.dumps(out, indent=2))
    print(
        "\nphases lost {phases_lost}, doubled {phases_doubled}, stuck {phases_stuck}; longest last order to "
        "resolution {longest_last_order_to_resolution_s} s; emails owed never sent {emails_owed_never_sent}, "
        "sent twice {emails_sent_twice}".format(**out)
    )


if __name__ == "__main__":
    main()
