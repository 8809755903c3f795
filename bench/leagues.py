"""League figures: drawing a round for many players, and recomputing a season's standings and ratings.

    .venv/bin/python bench/leagues.py [--players 1000] [--games 500] [--phases 30] [--repeat 5]
                                      [--scale-games 100000 | --no-scale]
    (or `make bench-leagues`)

Needs PostgreSQL on 127.0.0.1:5432 (user postgres, trust); drops and recreates the database
`pbem_bench_leagues`, and builds or reuses (bench/scaledb.py) `pbem_scale_100k`. No broker, no worker:
nothing here sends a task. Prints figures (the median of `--repeat` runs, and the fastest) and writes
bench/results/leagues.json; asserts no timing.

- draw: `scheduling.draw_round` alone (pure Python) for a first round (a seeded shuffle), a later round
  that avoids the opponents of three earlier rounds, and a Swiss round (standings order plus repeats).
- generate_round: the organiser's action on the database: reads the members, the season's tables and (for
  Swiss) the season's standings, draws, and writes the round and its tables.
- standings: `results.season_standings` for a season of `--games` finished games of 4-6 players, each with
  `--phases` resolved phases of orders (the reliability figure reads every owed order), including the
  openskill ratings over every game of the league; and the pure part alone (points, tie-breaks, ratings).
- a large league among many other games: the league of bench/scaledb.py's database (2,000 members, 5,000
  finished games of 30 phases, a started round of 500 games) beside `--scale-games` other open games. Its
  season standings, reliability alone and ratings alone, and EXPLAIN (ANALYZE, BUFFERS) of every statement
  they run: a sequential scan of games, phases, orders or seats would read the whole database's rows, not
  the league's, and is flagged.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a script: make the project importable

BENCH_SECRET_KEY = "bench-leagues-secret-key-not-for-production-0123456789abcdefghijklmnop"


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--database", default="pbem_bench_leagues", help="dropped and recreated")
    ap.add_argument("--players", type=int, default=1000, help="active members of the league")
    ap.add_argument("--games", type=int, default=500, help="finished games in the season")
    ap.add_argument("--phases", type=int, default=30, help="resolved phases per finished game")
    ap.add_argument("--repeat", type=int, default=5, help="runs of each measurement")
    ap.add_argument("--scale-games", type=int, default=100_000, help="open games beside the large league")
    ap.add_argument("--no-scale", action="store_true", help="skip the large league (its database takes minutes)")
    ap.add_argument("step", nargs="?", default="run", choices=["run", "scale"], help=argparse.SUPPRESS)
    return ap.parse_args()


def setup_django(database: str) -> None:
    from bench.run import fresh_database

    fresh_database(database)
    os.environ.update(
        DATABASE_URL=f"postgres://postgres@127.0.0.1:5432/{database}",
        DEBUG="0",  # DEBUG would keep every SQL statement in memory
        SECRET_KEY=BENCH_SECRET_KEY,
        ALLOWED_HOSTS="127.0.0.1",
        EMAIL_PROVIDER="test",
        CELERY_BROKER_URL="",
        DJANGO_SETTINGS_MODULE="pbem.settings",
    )
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    logging.getLogger("games.leagues").setLevel(logging.WARNING)  # no log line per round drawn


def timed(runs: int, call: Callable[[], Any], before: Callable[[], Any] | None = None) -> dict[str, float]:
    """Median and fastest wall time of `runs` calls, in milliseconds; `before` runs untimed each time."""
    times = []
    for _ in range(runs):
        if before is not None:
            before()
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return {"median_ms": round(statistics.median(times), 1), "min_ms": round(min(times), 1)}


def fake_result(players: int, rng: random.Random) -> list[dict[str, Any]]:
    """Final standings of a finished game: scores drawn at random, so some places are shared."""
    scores = [rng.randrange(20, 40) for _ in range(players)]
    return [
        {"seat": seat, "score": score, "rank": 1 + sum(other > score for other in scores), "detail": ""}
        for seat, score in enumerate(scores)
    ]


def build_season(players: int, games: int, phases: int) -> Any:
    """A league of `players` members whose current season has `games` finished games, drawn round after
    round by the league's own scheduler, with seatings and every owed order (3 % of them missed)."""
    from django.db import transaction
    from django.utils import timezone

    from games.engines import get_engine
    from games.leagues import scheduling, services
    from games.leagues.models import League, Membership, Round, Seating, Table
    from games.models import Game, Order, Phase, Player, Seat

    engine = get_engine("piraeus")
    rng = random.Random(7)
    now = timezone.now()
    with transaction.atomic():
        league = League.objects.create(name="Bench League", slug="bench", engine="piraeus")
        people = Player.objects.bulk_create(Player(email=f"b{i}@example.com", name=f"B{i}") for i in range(players))
        Membership.objects.bulk_create(Membership(league=league, player=p) for p in people)
        season = services.current_season(league)
        ids = [p.pk for p in people]
        built, number, met = 0, 0, scheduling.met_pairs([])
        while built < games:
            number += 1
            draw = scheduling.draw_round(ids, engine.min_players, engine.max_players, number, met)[: games - built]
            met.update(scheduling.met_pairs(draw))
            round_ = Round.objects.create(
                season=season, number=number, starts_at=now, draw_seed=number, status=Round.Status.FINISHED
            )
            finished = now + timedelta(days=number)
            new_games = Game.objects.bulk_create(
                Game(
                    engine="piraeus",
                    seed=built + i,
                    status=Game.Status.FINISHED,
                    finished_at=finished,
                    result=fake_result(len(seated), rng),
                )
                for i, seated in enumerate(draw)
            )
            tables = Table.objects.bulk_create(
                Table(round=round_, number=i, players=seated, game=game)
                for i, (seated, game) in enumerate(zip(draw, new_games, strict=True), start=1)
            )
            Seating.objects.bulk_create(
                Seating(table=table, seat_number=n, player_id=p)
                for table in tables
                for n, p in enumerate(table.players)
            )
            seats = Seat.objects.bulk_create(
                Seat(game=game, number=n, player_id=p)
                for game, seated in zip(new_games, draw, strict=True)
                for n, p in enumerate(seated)
            )
            new_phases = Phase.objects.bulk_create(
                Phase(game=g, number=n, name="turn", status=Phase.Status.RESOLVED, deadline=finished)
                for g in new_games
                for n in range(1, phases + 1)
            )
            by_game: dict[int, list[Phase]] = {}
            for phase in new_phases:
                by_game.setdefault(phase.game_id, []).append(phase)
            Order.objects.bulk_create(
                (
                    Order(phase=phase, seat=seat, data={}, is_default=rng.random() < 0.03)
                    for seat in seats
                    for phase in by_game[seat.game_id]
                ),
                batch_size=5000,
            )
            built += len(draw)
    return season


WATCHED = {"games_game", "games_phase", "games_order", "games_seat"}  # read by league, never whole


def scale_figures(repeat: int) -> dict[str, Any]:
    """In a process of its own, with Django on the scale database: the large league's standings."""
    import django

    django.setup()
    from bench.sqlprobe import Statements
    from games.leagues import results
    from games.leagues.models import Season, Table

    season = Season.objects.select_related("league").get(league__slug="scale", number=1)
    tables = list(Table.objects.filter(round__season=season, game__isnull=False).select_related("game"))
    figures: dict[str, Any] = {
        "members": season.league.memberships.filter(status="active").count(),
        "finished_games": sum(t.game is not None and t.game.status == "finished" for t in tables),
        "tables": len(tables),
    }
    results.season_standings(season)  # warm the cache: the figures are of a league in use
    figures["standings_db"] = timed(repeat, lambda: results.season_standings(season))
    figures["reliability_db"] = timed(repeat, lambda: results.reliability(tables))
    figures["ratings_db"] = timed(repeat, lambda: results.league_ratings(season.league))
    with Statements(explain=True) as log:
        results.season_standings(season)
    figures["statements"] = log.described(WATCHED)
    return figures


def scale_case(games: int, repeat: int) -> dict[str, Any]:
    import subprocess

    from bench import scaledb

    db = scaledb.ensure(games)
    env = scaledb.django_env(db.name)
    cmd = [sys.executable, str(Path(__file__)), "scale", "--repeat", str(repeat)]
    out = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"the large league's figures failed:\n{out.stderr[-4000:]}")
    figures: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    figures.update(database=db.name, other_games=games, counts=db.counts)
    return figures


def print_scale(figures: dict[str, Any], repeat: int) -> None:
    from bench.sqlprobe import print_described

    counts = figures["counts"]
    print(
        f"\nA large league beside {figures['other_games']:,} other open games ({figures['database']}: "
        f"{counts['games_game']:,} games, {counts['games_order']:,} orders, {counts['games_seat']:,} seats)"
    )
    print(
        f"{figures['members']:,} members, {figures['finished_games']:,} finished games, "
        f"{figures['tables']:,} tables with a game (median and fastest of {repeat} runs)"
    )
    print(f"{'measurement':<52} {'median ms':>10} {'min ms':>10}")
    for name, key in [
        ("season standings + ratings (PostgreSQL)", "standings_db"),
        ("  reliability alone", "reliability_db"),
        ("  league ratings alone", "ratings_db"),
    ]:
        print(f"{name:<52} {figures[key]['median_ms']:>10.1f} {figures[key]['min_ms']:>10.1f}")
    print("EXPLAIN (ANALYZE, BUFFERS) of each statement of the standings:")
    print_described(figures["statements"])


def main() -> None:
    args = parse_args()
    if args.step == "scale":
        print(json.dumps(scale_figures(args.repeat)))
        return
    setup_django(args.database)
    from django.db import connection

    from games.engines import get_engine
    from games.leagues import results, scheduling, services, standings
    from games.leagues.models import Round, Table

    engine = get_engine("piraeus")
    lo, hi = engine.min_players, engine.max_players
    figures: dict[str, Any] = {"players": args.players, "games": args.games, "phases": args.phases}

    # Pure draws: the history of three earlier rounds, and standings in a random order.
    ids = list(range(1, args.players + 1))
    history = [table for r in range(3) for table in scheduling.draw_round(ids, lo, hi, f"history{r}")]
    met = scheduling.met_pairs(history)
    order = random.Random(1).sample(ids, len(ids))
    figures["draw_first"] = timed(args.repeat, lambda: scheduling.draw_round(ids, lo, hi, 1))
    figures["draw_later"] = timed(args.repeat, lambda: scheduling.draw_round(ids, lo, hi, 2, met))
    figures["draw_swiss"] = timed(args.repeat, lambda: scheduling.draw_round(ids, lo, hi, 3, met, order))
    repeats = sum(
        met[scheduling.pair(a, b)] > 0
        for table in scheduling.draw_round(ids, lo, hi, 2, met)
        for i, a in enumerate(table)
        for b in table[i + 1 :]
    )
    figures["later_round_repeat_pairs"] = repeats

    start = time.perf_counter()
    season = build_season(args.players, args.games, args.phases)
    figures["build_s"] = round(time.perf_counter() - start, 1)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")

    def drop_drawn() -> None:
        Round.objects.filter(season__league=season.league, status=Round.Status.SCHEDULED).delete()

    figures["generate_round_swiss_db"] = timed(
        args.repeat, lambda: services.generate_round(season, seed=11), before=drop_drawn
    )
    drop_drawn()
    fresh = services.start_season(season.league)
    figures["generate_round_first_db"] = timed(
        args.repeat, lambda: services.generate_round(fresh, seed=12), before=drop_drawn
    )
    drop_drawn()
    fresh.delete()  # the built season stays the current one: rounds are drawn only in the current season

    figures["standings_db"] = timed(args.repeat, lambda: results.season_standings(season))
    tables = list(Table.objects.filter(round__season=season).select_related("game", "round"))
    finishes = results.finishes(tables)
    owed = results.reliability(tables)
    points = season.league.points
    figures["standings_pure"] = timed(args.repeat, lambda: standings.season_standings(finishes, points, owed))
    figures["ratings_pure"] = timed(args.repeat, lambda: standings.ratings(finishes))
    figures["finished_games"] = len(finishes)

    rows = [
        ("draw, first round (pure)", figures["draw_first"]),
        ("draw, later round, repeats avoided (pure)", figures["draw_later"]),
        ("draw, Swiss round (pure)", figures["draw_swiss"]),
        ("generate_round, first round (PostgreSQL)", figures["generate_round_first_db"]),
        ("generate_round, Swiss after the season (PostgreSQL)", figures["generate_round_swiss_db"]),
        ("season standings + ratings (PostgreSQL)", figures["standings_db"]),
        ("  of which points and tie-breaks (pure)", figures["standings_pure"]),
        ("  of which openskill ratings (pure)", figures["ratings_pure"]),
    ]
    print(f"League figures: {args.players} players, {len(finishes)} finished games of {args.phases} phases")
    print(f"(median and fastest of {args.repeat} runs; building the season took {figures['build_s']} s)")
    print(f"{'measurement':<52} {'median ms':>10} {'min ms':>10}")
    for name, figure in rows:
        print(f"{name:<52} {figure['median_ms']:>10.1f} {figure['min_ms']:>10.1f}")
    print(f"repeat pairs left in a later round after 3 earlier rounds: {repeats}")
    if not args.no_scale:
        figures["large_league"] = scale_case(args.scale_games, args.repeat)
        print_scale(figures["large_league"], args.repeat)
    from bench.procs import RESULTS

    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "leagues.json").write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
