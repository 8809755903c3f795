"""How well the bots play (issue 41, item 5): `make bench-bots`.

For each game at 3 and 4 players, one `strong` seat against `random` ones, and at 3 players one `strong`
seat against two `easy` ones: `manage.py simulate ENGINE --players N --games G --seat-bots ... --bot-budget S`
in this process (inline tasks, a fresh SQLite database in a temporary folder, no watching players so no email),
whose last line gives each
seat's wins. Prints, and writes into bench/README.md between its bench-bots markers, a table of the strong
seat's win rate with its 95% confidence interval (Wilson's, from the number of games), its fair share and
the issue's aim. It measures play, not speed: no figure here is a time but the mean decision time, and no
test asserts on any of it. A shared first place counts as a fraction of a win.

    .venv/bin/python bench/bots.py [--games 12] [--budget 0.5] [--iterations 16] [--engine manila ...] [--direct]

--direct plays the same bot decisions on the engines alone, without the database: about ten times quicker,
for the 40 games and more a line needs to say something (bench/README.md).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from io import StringIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
START, END = "<!-- bench-bots: start -->", "<!-- bench-bots: end -->"
# The issue's aims for the strong seat: 2.5 times its fair share against random bots, as it words it "75% at
# 3 players" (so 62.5% at 4), and more than its fair share against easy ones.
AIM_RANDOM = {3: 0.75, 4: 0.625}


@dataclass(frozen=True)
class Match:
    engine: str
    levels: tuple[str, ...]

    @property
    def players(self) -> int:
        return len(self.levels)

    @property
    def against(self) -> str:
        return self.levels[1]

    def aim(self) -> float:
        fair = 1 / self.players
        return AIM_RANDOM.get(self.players, 2.5 * fair) if self.against == "random" else fair


@dataclass(frozen=True)
class Result:
    match: Match
    games: int
    wins: float
    decision_seconds: float | None

    def row(self) -> str:
        rate = self.wins / self.games if self.games else 0.0
        low, high = wilson(self.wins, self.games)
        fair = 1 / self.match.players
        aim = self.match.aim()
        verdict = "met" if low > aim else "missed" if high < aim else "not shown"
        spent = f"{self.decision_seconds:.3f}" if self.decision_seconds is not None else "—"
        return (
            f"| {self.match.engine} | {self.match.players} | strong vs {self.match.against} | {self.games} "
            f"| {rate:.0%} ({self.wins:g}) | {low:.0%}–{high:.0%} | {fair:.0%} | {aim:.1%} | {verdict} | {spent} |"
        )


HEADER = (
    "| game | players | seats | games | strong's wins | 95% interval | fair share | aim | aim met? | s/decision |\n"
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
)


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson's 95% score interval for a win rate of `wins` in `games`."""
    if not games:
        return 0.0, 1.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def matches(engines: Sequence[str], players: Sequence[int]) -> list[Match]:
    from games.engines import get_engine

    found = []
    for slug in engines:
        engine = get_engine(slug)
        for n in players:
            if engine.min_players <= n <= engine.max_players:
                found.append(Match(slug, ("strong", *["random"] * (n - 1))))
        if engine.min_players <= 3 <= engine.max_players:
            found.append(Match(slug, ("strong", "easy", "easy")))
    return found


@dataclass(frozen=True)
class Budget:
    seconds: float
    iterations: int


def simulate(match: Match, games: int, budget: Budget, seed: int) -> Result:
    """One match through `manage.py simulate`, in this process."""
    from django.core.management import call_command

    out = StringIO()
    args = [match.engine, "--players", str(match.players), "--games", str(games), "--seed", str(seed)]
    args += ["--seat-bots", ",".join(match.levels), "--bot-budget", str(budget.seconds)]
    call_command("simulate", *args, "--bot-iterations", str(budget.iterations), "--no-watchers", stdout=out)
    strong = json.loads(out.getvalue().strip().splitlines()[-1])["seats"][0]
    return Result(match, games, strong["wins"], strong["decision_seconds"])


def direct(match: Match, games: int, budget: Budget, seed: int, first: int = 0) -> Result:
    """One match played on the engine contract alone (no database, no order pages), ten times quicker than
    `simulate` on a loaded machine, for the games a line needs. Each decision is the one the server's bots
    make (games.play.bots.bot_order, at the same levels and budgets); the seats move round the table a seat a
    game as in `simulate`, and what differs is only that the order is not stored, so the play is the same.
    `first` starts at the line's game of that number (0 the first), so a line can be carried on: 40 games from
    `first=40` are games 41 to 80 of the line, the same seeds and seats as one run of 80."""
    import random
    import time

    from django.test import override_settings

    from games.engines import get_engine
    from games.play.bots import bot_order

    engine = get_engine(match.engine)
    players = match.players
    wins = 0.0
    spent: list[float] = []
    with override_settings(PBEM_BOT_SECONDS=budget.seconds, PBEM_BOT_ITERATIONS=budget.iterations):
        for k in range(first, first + games):
            levels = [match.levels[(seat - k) % players] for seat in range(players)]
            rng = random.Random(f"{seed + k}:resolve")
            state = engine.setup(players, {}, random.Random(seed + k))
            phase = 0
            while prompts := engine.prompts(state):
                phase += 1
                orders = {}
                for seat in prompts:
                    started = time.perf_counter()
                    orders[seat] = bot_order(engine, state, seat, levels[seat], f"{seed + k}:{phase}:bot")
                    if levels[seat] == match.levels[0]:
                        spent.append(time.perf_counter() - started)
                state, _ = engine.resolve(state, orders, rng)
            standings = engine.outcome(state) or []
            winners = [standing.seat for standing in standings if standing.rank == 1]
            strong = levels.index(match.levels[0])
            wins += 1 / len(winners) if strong in winners else 0.0
            # Progress on stderr: a long line on a loaded machine shows how far it has come.
            print(
                f"{match.engine} {players}p game {k + 1}/{first + games}: strong wins {wins:g}",
                file=sys.stderr,
                flush=True,
            )
    return Result(match, games, wins, sum(spent) / len(spent) if spent else None)


def measure(
    found: Sequence[Match],
    games: int,
    budget: Budget,
    run: Callable[[Match, int, Budget, int], Result] = simulate,
    say: Callable[[str], None] = print,
    seed: int = 1,
) -> list[Result]:
    results = []
    for number, match in enumerate(found):
        results.append(run(match, games, budget, 1000 * number + seed))
        say(results[-1].row())
    return results


def table(results: Sequence[Result], games: int, budget: Budget, direct: bool = False) -> str:
    how = "played on the engines alone (--direct)" if direct else "played through manage.py simulate"
    return "\n".join(
        [
            f"{games} games a line, {how}; a strong decision searches at most {budget.seconds:g} s and"
            f" {budget.iterations} iterations (easy: a tenth of both); the strong seat moves round the table a"
            " seat each game.",
            "",
            HEADER,
            *(result.row() for result in results),
        ]
    )


def write_readme(readme: Path, text: str) -> None:
    """Put `text` between the bench-bots markers of `readme` (added at its end the first time)."""
    current = readme.read_text()
    block = f"{START}\n{text}\n{END}"
    if START in current and END in current:
        head, rest = current.split(START, 1)
        current = head + block + rest.split(END, 1)[1]
    else:
        current = current.rstrip("\n") + f"\n\n## Bots: how well they play (`make bench-bots`)\n\n{block}\n"
    readme.write_text(current)


def setup(folder: Path) -> None:
    """Django on a fresh SQLite database in `folder`, tasks inline (no broker)."""
    os.environ["DATABASE_URL"] = f"sqlite:///{folder / 'bots.sqlite3'}"
    os.environ["PBEM_VAR_DIR"] = str(folder)
    os.environ.pop("CELERY_BROKER_URL", None)
    os.environ.setdefault("DEBUG", "1")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pbem.settings")
    sys.path.insert(0, str(ROOT))
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=12, help="games per line (default 12)")
    parser.add_argument("--budget", type=float, default=0.5, help="seconds per strong decision (default 0.5)")
    parser.add_argument("--iterations", type=int, default=16, help="iterations per strong decision (default 16)")
    parser.add_argument("--engine", action="append", help="a game's slug (repeatable; default every game)")
    parser.add_argument("--players", type=int, action="append", help="table sizes (default 3 and 4)")
    parser.add_argument("--seed", type=int, default=1, help="the first line's seed (default 1; a line 1000 more)")
    parser.add_argument("--readme", type=Path, default=ROOT / "bench" / "README.md")
    parser.add_argument(
        "--direct",
        action="store_true",
        help="play on the engines alone, the server's bot decisions without storing orders (much quicker)",
    )
    opts = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="pbem-bench-bots-") as folder:
        setup(Path(folder))
        from games.engines import all_engines

        engines = opts.engine or [engine.slug for engine in all_engines()]
        found = matches(engines, opts.players or [3, 4])
        print(HEADER)
        budget = Budget(opts.budget, opts.iterations)
        results = measure(found, opts.games, budget, direct if opts.direct else simulate, seed=opts.seed)
    write_readme(opts.readme, table(results, opts.games, budget, opts.direct))
    print(f"written to {opts.readme}")


if __name__ == "__main__":
    main()
