"""Resolution measurements on the project's own code (run by bench/run.py as `python -m bench.resolution`).

  prepare   games of one engine (4 human seats) with their first phase open and every owed order in but the
            last owed seat's (with Port of Piraeus 3 of 4; with a game where one seat moves at a time, none
            of 1), plus in-process timings and SQL counts of the three steps of a turn: the last order, the
            resolution, the emails.
  measure   with a real worker running (bench/probe.py): the last order of each prepared phase submitted
            through orders.submit_order, and the round trip to the worker's COMMIT of the resolution,
            sequential (one at a time, idle system), streamed (back to back while the worker consumes),
            and queued (consumption paused, all enqueued, resumed: the worker's drain rate).
  latency   for games played by `manage.py simulate`: last order -> the resolution's emails written,
            from database timestamps (and from the worker's probe lines when there are some).

Each subcommand writes one JSON file; bench/run.py prints and compares them.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import io
import json
import os
import pstats
import random
import statistics
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import django

from bench.procs import cpu_busy, cpu_ticks, dist

SEATS = 4


def ms(a: float, b: float) -> float:
    return (b - a) * 1000.0


# --- prepare ---------------------------------------------------------------------------------------


def random_order(game: Any, seat: int) -> dict[str, Any]:
    from games.play import turns

    order: dict[str, Any] = turns.engine_of(game).random_order(game.state, seat, random.Random(f"{game.seed}:{seat}"))
    return order


def make_games(engine: str, count: int, seed: int) -> list[dict[str, Any]]:
    """`count` games of `engine` with 4 human seats and a random order stored for every seat its first phase
    owes but the last (a game where one seat moves at a time owes one: nothing is stored). Each entry keeps
    that last seat, whose order completes the phase. The first turn emails are marked sent, as in a running
    game, so a resolution's email task sends only its own."""
    from django.utils import timezone

    from games.models import OutboundEmail, Seat
    from games.play import orders, turns

    players = [turns.player_for(f"bench-{i}@bench.invalid", f"Bench {i + 1}") for i in range(SEATS)]
    made = []
    for k in range(count):
        game = turns.create_game(engine, list(players), seed=seed + k, title=f"Bench {seed + k}")
        phase = game.phases.get(number=1)
        *first, last = phase.owed_seats
        for seat in Seat.objects.filter(game=game, number__in=first):
            orders.submit_order(seat, 1, random_order(game, seat.number))
        made.append({"game": game.pk, "phase": phase.pk, "seat": last, "owed": len(first) + 1})
    OutboundEmail.objects.filter(game_id__in=[m["game"] for m in made]).update(
        status=OutboundEmail.Status.SENT, sent_at=timezone.now()
    )
    return made


def _last_order(g: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    from games.models import Seat

    seat = Seat.objects.select_related("game").get(game_id=g["game"], number=g["seat"])
    return seat, random_order(seat.game, seat.number)


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000.0


def in_process(games: list[dict[str, Any]], profile_out: Path) -> dict[str, Any]:
    """The three steps of a turn, one after another in this process (no worker), timed and counted:
    the last order (orders.submit_order), the resolution (turns.resolve_phase) and its emails
    (emails.send_pending). The enqueues go to the broker, where nothing consumes them."""
    from django.db import connection, reset_queries
    from django.test.utils import CaptureQueriesContext

    from games.outgoing import emails
    from games.play import orders, turns

    steps: dict[str, list[float]] = {"submit_last_order": [], "resolve_phase": [], "send_pending_emails": []}
    sql: dict[str, list[str]] = {}
    sent: list[int] = []  # emails per resolution
    profiler = cProfile.Profile()
    for i, g in enumerate(games):
        seat, order = _last_order(g)

        def send(game_id: int = g["game"]) -> None:
            sent.append(emails.send_pending(game_id))

        calls: list[tuple[str, Callable[[], object]]] = [
            ("submit_last_order", functools.partial(orders.submit_order, seat, 1, order)),
            ("resolve_phase", functools.partial(turns.resolve_phase, g["phase"])),
            ("send_pending_emails", send),
        ]
        for name, call in calls:
            if i == 0:  # cold: imports, template loading
                call()
            elif i == 1:  # warm; what every later game runs
                reset_queries()  # the query log is capped: a full one would capture nothing
                with CaptureQueriesContext(connection) as ctx:
                    call()
                sql[name] = [q["sql"] for q in ctx.captured_queries]
            elif i % 2:
                steps[name].append(timed(call))
            else:  # profiled calls run slower: kept out of the timings
                profiler.enable()
                call()
                profiler.disable()
    text = io.StringIO()
    if len(games) > 2:  # the third game on is profiled (pstats refuses a profiler that saw no call)
        pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(45)
    profile_out.write_text(text.getvalue())
    return {
        "n": len(games),
        "timed": len(steps["resolve_phase"]),
        "median_ms": {k: round(statistics.median(v), 3) for k, v in steps.items() if v},
        "sql_count": {k: len(v) for k, v in sql.items()},
        "emails_per_resolution": statistics.median(sent) if sent else None,
        "sql": sql,
        "profile_file": str(profile_out),
    }


def prepare(args: argparse.Namespace) -> dict[str, Any]:
    from games.models import Game

    seed = 1_000_000 + Game.objects.count()
    groups = {"warmup": 12, "sequential": args.sequential, "inprocess": args.inprocess}
    for i in range(args.bursts):
        groups[f"streamed_{i + 1}"] = args.burst
        groups[f"queued_{i + 1}"] = args.burst
        groups[f"held_{i + 1}"] = args.burst
    started = time.perf_counter()
    made: dict[str, list[dict[str, Any]]] = {}
    for name, count in groups.items():
        made[name] = make_games(args.engine, count, seed)
        seed += count
    owed = sorted({g["owed"] for games in made.values() for g in games})
    out: dict[str, Any] = {
        "engine": args.engine,
        "owed_orders_per_phase": owed,
        "groups": made,
        "prepare_s": round(time.perf_counter() - started, 1),
    }
    if args.inprocess:
        out["in_process"] = in_process(made.pop("inprocess"), Path(args.profile))
    return out


# --- measure (a worker running bench.probe) -------------------------------------------------------


class Probe:
    """The worker's timing lines (see bench/probe.py), read as they are appended: a task with arguments by
    (task, first argument), the email sender (a task without arguments, woken once for what is due) by run."""

    def __init__(self, timing: Path) -> None:
        self.timing = timing
        self.offset = 0
        self.rows: dict[tuple[str, int], dict[str, Any]] = {}
        self.runs: dict[str, list[dict[str, Any]]] = {}

    def lines(self) -> dict[tuple[str, int], dict[str, Any]]:
        if not self.timing.exists():
            return self.rows
        with self.timing.open("rb") as f:
            f.seek(self.offset)
            chunk = f.read()
        # A read can overlap a pool process's append: the text after the last newline may be half a line.
        complete = chunk[: chunk.rfind(b"\n") + 1]
        self.offset += len(complete)
        for line in complete.decode().splitlines():
            parts = line.split(" ", 6)
            if len(parts) != 7:
                continue
            name, first, t_start, t_commit, t_end, pid, result = parts
            row: dict[str, Any] = {"start": float(t_start), "commit": float(t_commit), "end": float(t_end)}
            row |= {"pid": int(pid), "result": result}
            if first == "-":
                self.runs.setdefault(name.rsplit(".", 1)[-1], []).append(row)
            elif first.isdigit():
                # A later line for the same (task, arg) would be a redelivery: keep the first.
                self.rows.setdefault((name.rsplit(".", 1)[-1], int(first)), row)
        return self.rows

    def wait(self, wanted: Iterable[tuple[str, int]], timeout: float = 120.0) -> None:
        """Poll the timing file (as the floor's client does) until every (task, arg) in `wanted` has run."""
        left = set(wanted)
        deadline = time.monotonic() + timeout
        while not left <= self.lines().keys():
            if time.monotonic() > deadline:
                missing = sorted(left - self.rows.keys())
                raise SystemExit(f"worker did not finish {len(missing)} tasks in {timeout:.0f} s, e.g. {missing[:3]}")
            time.sleep(0.005)

    def sender_runs(self, since: float) -> list[dict[str, Any]]:
        self.lines()
        return [run for run in self.runs.get("send_due_emails", []) if run["start"] >= since]


def resolved(games: list[dict[str, Any]]) -> list[tuple[str, int]]:
    return [("resolve_phase", g["phase"]) for g in games]


def wait_for_emails(games: list[dict[str, Any]], timeout: float = 120.0) -> None:
    """Poll the outbox until none of these games' emails waits (pending, or being sent). The sender is woken
    once for whatever is due (games/outgoing/wakes.py), so there is no task per game to wait for."""
    from games.models import OutboundEmail

    waiting = OutboundEmail.objects.filter(
        game_id__in=[g["game"] for g in games], status__in=[OutboundEmail.Status.PENDING, OutboundEmail.Status.SENDING]
    )
    deadline = time.monotonic() + timeout
    while waiting.exists():
        if time.monotonic() > deadline:
            raise SystemExit(f"emails of {waiting.count()} rows not sent in {timeout:.0f} s")
        time.sleep(0.02)


def emails_of(games: list[dict[str, Any]], t0: dict[int, float]) -> dict[int, list[float]]:
    """Phase id -> the send times of the emails its resolution wrote (rows created after its last order)."""
    from games.models import OutboundEmail

    phase_of = {g["game"]: g["phase"] for g in games}
    sent: dict[int, list[float]] = {g["phase"]: [] for g in games}
    rows = OutboundEmail.objects.filter(game_id__in=phase_of, status=OutboundEmail.Status.SENT)
    for game_id, created, sent_at in rows.values_list("game_id", "created_at", "sent_at"):
        phase = phase_of[game_id]
        if created.timestamp() >= t0[phase] and sent_at is not None:
            sent[phase].append(sent_at.timestamp())
    return sent


def submit_last(games: list[dict[str, Any]], t0: dict[int, float]) -> None:
    """The last order of each phase, through the service layer as the order view calls it. The stamp hook
    is registered before submit_order's own, so it runs first after COMMIT, before the enqueue."""
    from django.db import transaction

    from games.play import orders

    prepared = [(g["phase"], *_last_order(g)) for g in games]  # reads outside the timed part
    for phase_id, seat, order in prepared:

        def stamp(p: int = phase_id) -> None:
            t0[p] = time.time()

        with transaction.atomic():
            transaction.on_commit(stamp)
            done = orders.submit_order(seat, 1, order)
        if not done.complete:
            raise SystemExit(f"phase {phase_id} was not complete after the last order")


def collect(games: list[dict[str, Any]], t0: dict[int, float], probe: Probe) -> dict[str, Any]:
    rows = probe.lines()
    resolved = [rows.get(("resolve_phase", g["phase"])) for g in games]
    missing = [g["phase"] for g, r in zip(games, resolved, strict=True) if r is None or r["result"] != "True"]
    if missing:
        raise SystemExit(f"{len(missing)} phases not resolved by the worker, e.g. {missing[:5]}")
    res = {g["phase"]: r for g, r in zip(games, resolved, strict=True) if r is not None}
    mail = emails_of(games, t0)
    pids = [g["phase"] for g in games]
    unsent = [p for p in pids if not mail[p]]
    if unsent:
        raise SystemExit(f"{len(unsent)} resolutions' emails not found sent, e.g. phases {unsent[:5]}")
    start_first = min(res[p]["start"] for p in pids)
    runs = probe.sender_runs(since=start_first)

    def median(a: Callable[[int], float], b: Callable[[int], float]) -> float:
        return round(statistics.median(ms(a(p), b(p)) for p in pids), 3)

    sent = [len(mail[p]) for p in pids]

    def slowest(p: int) -> dict[str, Any]:
        """One of the slowest resolutions, for reading a p99: its parts, and the sender runs it overlapped."""
        window = (t0[p], res[p]["commit"])
        senders = [r for r in runs if r["start"] < window[1] and r["end"] > window[0]]
        return {
            "phase": p,
            "ms": round(ms(*window), 1),
            "delivery_ms": round(ms(t0[p], res[p]["start"]), 1),
            "body_ms": round(ms(res[p]["start"], res[p]["commit"]), 1),
            "pid": res[p]["pid"],
            "senders_overlapping": [
                {"pid": r["pid"], "from_ms": round(ms(t0[p], r["start"]), 1), "ms": round(ms(r["start"], r["end"]), 1)}
                for r in senders
            ],
        }

    return {
        "slowest": [slowest(p) for p in sorted(pids, key=lambda p: res[p]["commit"] - t0[p])[-3:]],
        "emails_per_resolution": {"median": statistics.median(sent), "min": min(sent), "max": max(sent)},
        "commit_to_resolution_commit_ms": dist([ms(t0[p], res[p]["commit"]) for p in pids]),
        "commit_to_emails_sent_ms": dist([ms(t0[p], max(mail[p])) for p in pids]),
        "breakdown_median_ms": {
            "delivery (last order COMMIT -> task body starts)": median(t0.__getitem__, lambda p: res[p]["start"]),
            "task body to COMMIT returned": median(lambda p: res[p]["start"], lambda p: res[p]["commit"]),
            "after COMMIT: on_commit enqueues": median(lambda p: res[p]["commit"], lambda p: res[p]["end"]),
        },
        # The email sender is woken once for whatever is due (games/outgoing/wakes.py): its runs, not one per
        # resolution.
        "sender_runs": len(runs),
        "emails_per_sender_run": round(sum(sent) / len(runs), 1) if runs else None,
        "worker_pids": sorted({res[p]["pid"] for p in pids}),
        "t0_first": min(t0[p] for p in pids),
        "start_first": start_first,
        "commit_last": max(res[p]["commit"] for p in pids),
        "emails_last": max(max(mail[p]) for p in pids),
    }


def sequential(games: list[dict[str, Any]], probe: Probe) -> dict[str, Any]:
    """One phase at a time: the next last order as soon as the previous phase's resolution has committed, as
    the floor's client does. Waiting for each turn's emails too (the sender starts 0.2 s after its call) left
    the worker idle for that long before every timed resolution, which the floor's never is: its caches went
    cold and the timed task body came out 2-3 ms slower. The emails go out meanwhile, a sender run every
    0.2 s in the pool's other process, as they would in service; they are awaited at the end."""
    t0: dict[int, float] = {}
    cpu0, wall0 = cpu_ticks(), time.time()
    for g in games:
        submit_last([g], t0)
        probe.wait(resolved([g]))
    wait_for_emails(games)
    out = collect(games, t0, probe)
    out.update(cpu_busy_fraction=cpu_busy(cpu0, cpu_ticks()), wall_s=round(time.time() - wall0, 3))
    return out


def streamed(games: list[dict[str, Any]], probe: Probe) -> dict[str, Any]:
    """Every last order committed back to back (one transaction each) while the worker consumes."""
    t0: dict[int, float] = {}
    cpu0 = cpu_ticks()
    submit_last(games, t0)
    t_submitted = time.time()
    probe.wait(resolved(games))
    wait_for_emails(games)
    out = collect(games, t0, probe)
    n = len(games)
    out.update(
        n=n,
        submit_window_ms=round(ms(out["t0_first"], t_submitted), 1),
        resolutions_per_s=round(n / (out["commit_last"] - out["t0_first"]), 1),
        resolutions_per_s_with_emails=round(n / (out["emails_last"] - out["t0_first"]), 1),
        cpu_busy_fraction=cpu_busy(cpu0, cpu_ticks()),
    )
    return out


def queued(games: list[dict[str, Any]], probe: Probe, node: str, hold_emails: bool = False) -> dict[str, Any]:
    """Consumption paused (Celery remote control), every last order committed and its task queued, then
    resumed: the worker's drain rate. The resolutions wake the email sender (once for whatever is due:
    games/outgoing/wakes.py), which shares the worker with them.

    With `hold_emails` the email queue stays paused until the last resolution has committed: the drain of the
    resolutions alone, the twin of the floor's drain, which sends no email. The emails then go out after it."""
    import redis
    from django.conf import settings

    from games.outgoing.dispatch import Queue
    from pbem.celery import app

    queue = app.conf.task_default_queue or "celery"
    paused = [queue, Queue.EMAIL.value] if hold_emails else [queue]
    for name in paused:
        if not app.control.cancel_consumer(name, destination=[node], reply=True, timeout=10, limit=1):
            raise SystemExit(f"cancel_consumer {name}: the worker did not answer")
    t0: dict[int, float] = {}
    submit_last(games, t0)
    queued_now = redis.Redis.from_url(settings.CELERY_BROKER_URL).llen(queue)
    if queued_now != len(games):
        raise SystemExit(f"expected {len(games)} queued tasks, found {queued_now} ({settings.CELERY_BROKER_URL})")
    cpu0 = cpu_ticks()
    t_go = time.time()
    app.control.add_consumer(queue, destination=[node], reply=True, timeout=10, limit=1)
    probe.wait(resolved(games))
    cpu_drain = cpu_busy(cpu0, cpu_ticks())
    if hold_emails:
        app.control.add_consumer(Queue.EMAIL.value, destination=[node], reply=True, timeout=10, limit=1)
    wait_for_emails(games)
    out = collect(games, t0, probe)
    n = len(games)
    drain = out["commit_last"] - out["start_first"]
    out.update(
        n=n,
        resume_to_first_task_ms=round(ms(t_go, out["start_first"]), 1),
        drain_ms=round(drain * 1000, 1),
        resolutions_per_s=round(n / drain, 1),
        cpu_busy_fraction=cpu_drain if hold_emails else cpu_busy(cpu0, cpu_ticks()),
    )
    if hold_emails:
        if any(run["start"] < out["commit_last"] for run in probe.sender_runs(out["start_first"])):
            raise SystemExit("an email sender ran while the emails were held: the drain was not the resolutions' alone")
    else:
        out["resolutions_per_s_with_emails"] = round(n / (out["emails_last"] - out["start_first"]), 1)
    # Latency here is queueing by construction: keep only the per-task figures.
    out.pop("commit_to_resolution_commit_ms")
    out.pop("commit_to_emails_sent_ms")
    return out


def measure(args: argparse.Namespace) -> dict[str, Any]:
    groups = json.loads(Path(args.prepared).read_text())["groups"]
    from games.outgoing import emails

    probe = Probe(Path(args.timing))
    out: dict[str, Any] = {"email_gather_ms": emails.EMAIL_GATHER.total_seconds() * 1000}
    # Warm-up: the first tasks of each pool process import, connect and fill template caches.
    warm = groups["warmup"]
    t0: dict[int, float] = {}
    submit_last(warm[:1], t0)
    probe.wait(resolved(warm[:1]))
    wait_for_emails(warm[:1])
    first = probe.lines()[("resolve_phase", warm[0]["phase"])]
    out["first_task_cold_ms"] = round(ms(t0[warm[0]["phase"]], first["commit"]), 1)
    for g in warm[1:6]:
        submit_last([g], t0)
        probe.wait(resolved([g]))
        wait_for_emails([g])
    submit_last(warm[6:], t0)  # a small burst, so every pool process has run tasks
    probe.wait(resolved(warm[6:]))
    wait_for_emails(warm[6:])

    print(f"  sequential x{len(groups['sequential'])}", flush=True)
    out["sequential"] = sequential(groups["sequential"], probe)
    out.update(streamed=[], queued=[], held=[])
    # The queued drains with the email sender sharing the worker and with the emails held alternate, as the
    # floor's measurement 3 alternates its drains with and without emails.
    order = sorted(k for k in groups if k.startswith("streamed_"))
    order += [name for i in range(1, len(groups)) for name in (f"queued_{i}", f"held_{i}") if name in groups]
    for name in order:
        kind = name.split("_")[0]
        print(f"  {name}: {len(groups[name])} phases", flush=True)
        if kind == "streamed":
            out[kind].append(streamed(groups[name], probe))
        else:
            out[kind].append(queued(groups[name], probe, args.node, hold_emails=kind == "held"))
    return out


# --- latency of simulated games ---------------------------------------------------------------------


def latency(args: argparse.Namespace) -> dict[str, Any]:
    """Last order of each phase -> the emails its resolution wrote, per resolution. The emails a resolution
    writes are the next phase's turn emails and this phase's phase-resolved / game-over emails: both are
    stamped (timezone.now()) inside the resolution's transaction, so this is pre-commit on both ends."""
    from django.db.models import Max

    from games.models import Order, OutboundEmail, Phase

    game_ids = [int(x) for x in args.games.split(",") if x]
    last_order = dict(
        Order.objects.filter(phase__game_id__in=game_ids)
        .values("phase_id")
        .annotate(t=Max("submitted_at"))
        .values_list("phase_id", "t")
    )
    phases = list(
        Phase.objects.filter(game_id__in=game_ids)
        .order_by("game_id", "number")
        .values("pk", "game_id", "number", "resolved_at")
    )
    by_number = {(p["game_id"], p["number"]): p["pk"] for p in phases}
    number_of = {p["pk"]: p["number"] for p in phases}
    written: dict[int, Any] = {}  # resolved phase id -> latest email stamp its resolution wrote
    kinds_here = (OutboundEmail.Kind.PHASE_RESOLVED, OutboundEmail.Kind.GAME_OVER)
    for phase_id, game_id, kind, created in (
        OutboundEmail.objects.filter(game_id__in=game_ids)
        .exclude(kind=OutboundEmail.Kind.REMINDER)
        .values_list("phase_id", "game_id", "kind", "created_at")
        .iterator()
    ):
        # A turn email belongs to the phase its resolution opened: attribute it to the one before.
        key = phase_id if kind in kinds_here else by_number.get((game_id, number_of.get(phase_id, 0) - 1))
        if key is not None and (key not in written or created > written[key]):
            written[key] = created
    waits = [
        (written[p["pk"]] - last_order[p["pk"]]).total_seconds() * 1000
        for p in phases
        if p["resolved_at"] and p["pk"] in written and p["pk"] in last_order
    ]
    out: dict[str, Any] = {"games": len(game_ids), "last_order_to_emails_written_ms": dist(waits)}
    if args.timing and Path(args.timing).exists():
        # With the worker probe: the last bot order's COMMIT (end of play_bots) -> the resolution's COMMIT.
        rows = Probe(Path(args.timing)).lines()
        pairs = [
            ms(rows[("play_bots", p["pk"])]["commit"], rows[("resolve_phase", p["pk"])]["commit"])
            for p in phases
            if ("play_bots", p["pk"]) in rows
            and ("resolve_phase", p["pk"]) in rows
            and rows[("play_bots", p["pk"])]["commit"] > 0
            and rows[("resolve_phase", p["pk"])]["commit"] > 0
        ]
        out["last_order_commit_to_resolution_commit_ms"] = dist(pairs)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.resolution")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--engine", default="piraeus", help="the game's slug")
    p.add_argument("--sequential", type=int, default=100)
    p.add_argument("--burst", type=int, default=200)
    p.add_argument("--bursts", type=int, default=3)
    p.add_argument("--inprocess", type=int, default=40)
    p.add_argument("--profile", default="bench/results/run/profile-turn.txt")
    m = sub.add_parser("measure")
    m.add_argument("--prepared", required=True)
    m.add_argument("--timing", required=True)
    m.add_argument("--node", required=True)
    lat = sub.add_parser("latency")
    lat.add_argument("--games", required=True, help="comma-separated game ids")
    lat.add_argument("--timing", default="")
    for s in (p, m, lat):
        s.add_argument("--out", required=True)
    args = ap.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pbem.settings")
    django.setup()
    fn = {"prepare": prepare, "measure": measure, "latency": latency}[args.cmd]
    Path(args.out).write_text(json.dumps(fn(args), indent=1, default=str))


if __name__ == "__main__":
    main()
