"""Management commands: creategame, simulate, replay and the demo."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.utils import translation

from bench import bots as bench_bots
from games.engines import all_engines
from games.models import Game, Player, Seat

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_creategame_seats_players_and_bots_and_prints_their_links():
    out = run("creategame", "piraeus", "--players", "a@x.org,b@y.org", "--bots", "2", "--deadline", "30m")
    game = Game.objects.get()
    assert list(game.seats.filter(is_bot=True).values_list("bot_level", flat=True)) == ["strong", "strong"]
    assert game.phase_length.total_seconds() == 1800
    assert out.count("/l/") == 2


def test_creategame_seats_bots_at_the_level_asked():
    run("creategame", "manila", "--players", "a@x.org", "--bots", "2", "--bot-level", "easy")
    assert list(Seat.objects.filter(is_bot=True).values_list("bot_level", flat=True)) == ["easy", "easy"]
    with pytest.raises(CommandError, match="'genius' is not a bot level: say strong, easy or random."):
        run("creategame", "manila", "--players", "b@x.org", "--bots", "2", "--bot-level", "genius")


def test_creategame_seats_each_bot_at_its_own_level():
    run("creategame", "manila", "--players", "a@x.org", "--bots", "3", "--bot-level", "strong, easy,random")
    seats = Seat.objects.filter(is_bot=True).order_by("number")
    assert [(seat.number, seat.bot_level) for seat in seats] == [(1, "strong"), (2, "easy"), (3, "random")]
    with pytest.raises(CommandError, match="Bot levels given: 2, bot seats: 3; give one level for them all or one"):
        run("creategame", "manila", "--players", "b@x.org", "--bots", "3", "--bot-level", "strong,easy")
    assert Game.objects.count() == 1 and not Player.objects.filter(email="b@x.org").exists()


def test_creategame_refuses_bad_input_clearly():
    with pytest.raises(CommandError, match="3 to 6 players"):
        run("creategame", "piraeus", "--players", "a@x.org")
    with pytest.raises(CommandError, match="no game engine"):
        run("creategame", "chess", "--players", "a@x.org")
    with pytest.raises(CommandError, match="duration"):
        run("creategame", "piraeus", "--bots", "3", "--deadline", "soon")
    with pytest.raises(CommandError, match="'b-at-y' is not an email address"):
        run("creategame", "piraeus", "--players", "a@x.org,b-at-y", "--bots", "2")
    with pytest.raises(CommandError, match="JSON object"):
        run("creategame", "piraeus", "--bots", "3", "--options", "[]")
    with pytest.raises(CommandError, match="only once"):
        run("creategame", "piraeus", "--players", "a@x.org,A@x.org", "--bots", "1")
    assert not Game.objects.exists()
    assert not Player.objects.exists()  # a refused game leaves no player records behind either


def test_simulate_plays_whole_games_and_prints_figures():
    out = run("simulate", "piraeus", "--players", "4", "--games", "2", "--seed", "5")
    lines = out.strip().splitlines()
    figures = json.loads(lines[-1])
    assert figures["finished"] == 2 and figures["games_per_minute"] > 0
    assert figures["queries_per_resolution_max"] == figures["queries_per_resolution_median"]
    assert sum(line.startswith("game #") for line in lines) == 2


def test_simulate_seats_bots_at_their_levels_round_the_table_and_reports_each_level():
    out = run(
        "simulate", "piraeus", "--players", "3", "--games", "2", "--seat-bots", "strong,random,easy",
        "--bot-budget", "0.01", "--bot-iterations", "2",
    )  # fmt: skip
    figures = json.loads(out.strip().splitlines()[-1])
    assert figures["finished"] == 2 and figures["bot_budget"] == 0.01 and figures["bot_iterations"] == 2
    seats = figures["seats"]
    assert [seat["level"] for seat in seats] == ["strong", "random", "easy"]
    assert sum(seat["wins"] for seat in seats) == pytest.approx(2)  # a shared win is a fraction of one
    assert all(seat["decision_seconds"] is not None for seat in seats)
    first, second = Game.objects.order_by("pk")
    assert [s.bot_level for s in first.seats.order_by("number")] == ["strong", "random", "easy"]
    assert [s.bot_level for s in second.seats.order_by("number")] == ["easy", "strong", "random"]
    scores = [{row["seat"]: row["score"] for row in game.result} for game in (first, second)]
    assert seats[0]["score"] == pytest.approx((scores[0][0] + scores[1][1]) / 2)  # strong: seat 1, then seat 2


def test_simulate_refuses_unknown_levels_and_the_wrong_count():
    with pytest.raises(CommandError, match="Unknown bot level 'clever'"):
        run("simulate", "piraeus", "--players", "3", "--seat-bots", "strong,clever,random")
    with pytest.raises(CommandError, match="names 2 levels for 3 players"):
        run("simulate", "piraeus", "--players", "3", "--seat-bots", "strong,random")
    assert not Game.objects.exists()


@pytest.mark.parametrize("engine", all_engines(), ids=lambda e: e.slug)
def test_strong_bots_play_a_whole_game_of_each_engine(engine):
    """Every seat strong, at a tiny budget (one iteration a decision), so the suite stays fast."""
    levels = ",".join(["strong"] * engine.min_players)
    out = run(
        "simulate", engine.slug, "--players", str(engine.min_players), "--games", "1", "--seat-bots", levels,
        "--bot-budget", "0.01", "--bot-iterations", "1",
    )  # fmt: skip
    figures = json.loads(out.strip().splitlines()[-1])
    assert figures["finished"] == 1
    assert Seat.objects.filter(bot_level="strong").count() == engine.min_players


def test_bench_bots_smoke_writes_its_table_into_the_readme(tmp_path):
    """make bench-bots, tiny: one match of one game, its row written between the README's markers (twice: the
    second run replaces the first's table)."""
    readme = tmp_path / "README.md"
    readme.write_text("# Benchmarks\n")
    match = bench_bots.Match("piraeus", ("strong", "random", "random"))
    budget = bench_bots.Budget(0.01, 1)
    said: list[str] = []
    for _ in range(2):
        results = bench_bots.measure([match], games=1, budget=budget, say=said.append)
        bench_bots.write_readme(readme, bench_bots.table(results, 1, budget))
    text = readme.read_text()
    assert text.count(bench_bots.START) == text.count(bench_bots.END) == 1
    assert "| piraeus | 3 | strong vs random | 1 |" in text and said[-1] in text and said[0] != text


def test_bench_scale_smoke_sweeps_a_small_database_and_explains_its_statements(tmp_path, broker_url, postgres):
    """make bench-scale, tiny: 1,000 open games built by bulk SQL (a database of this test process's own, dropped
    after), both sweeps and the realistic minute measured. The first deadline sweep takes what the builder made
    due (its finders' counts), the one right after takes nothing, the realistic minute only the last minute's,
    and no sweep's statement reads the games, phases, seats, orders or outbox sequentially."""
    prefix = f"pbem_scale_smoke_{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"
    results = tmp_path / "scale.json"
    command = [sys.executable, "bench/scale.py", "--games", "1000", "--repeat", "1", "--broker", broker_url]
    env = {**os.environ, "BENCH_SCALE_DB": prefix}
    try:
        out = subprocess.run(
            [*command, "--results", str(results)], cwd=ROOT, env=env, capture_output=True, text=True, check=False
        )
    finally:
        subprocess.run([sys.executable, "-c", DROP_SMOKE], cwd=ROOT, env=env, check=True)
    assert out.returncode == 0, out.stderr[-3000:]
    run = json.loads(results.read_text())["runs"][0]
    first, again = run["sweep"]["deadline sweep"]["returned"], run["sweep"]["deadline sweep again"]["returned"]
    assert first["overdue"] == run["find"]["overdue"]["rows"] > 0
    assert first["reminders"] == run["find"]["reminders"]["rows"] > 0
    assert again["overdue"] == again["reminders"] == 0
    minute = run["sweep"]["realistic minute"]
    assert minute["returned"]["reminders"] < first["reminders"] and minute["work done before it"]["reminded"] > 0
    assert "A realistic minute" in out.stdout and "SEQ SCAN" not in out.stdout


DROP_SMOKE = "from bench import scaledb; scaledb.drop(scaledb.database_name(1000))"


def test_bench_bots_direct_plays_the_bots_decisions_on_the_engines_reproducibly():
    """bench/bots.py --direct: whole games of the server's bot decisions without the database; under the
    iteration cap (the time never runs out first) the same seed gives the same wins, and a line carried on from
    its second game (`first`) plays the games the whole line played there."""
    match = bench_bots.Match("piraeus", ("strong", "easy", "easy"))
    budget = bench_bots.Budget(600, 2)
    first = bench_bots.direct(match, games=3, budget=budget, seed=5)
    assert first.games == 3 and 0 <= first.wins <= 3 and first.decision_seconds is not None
    opening = bench_bots.direct(match, games=1, budget=budget, seed=5)
    rest = bench_bots.direct(match, games=2, budget=budget, seed=5, first=1)
    assert rest.games == 2 and opening.wins + rest.wins == first.wins
    assert "on the engines alone" in bench_bots.table([first], 3, budget, direct=True)


def test_the_win_rates_interval_is_wilsons():
    low, high = bench_bots.wilson(8, 10)
    assert round(low, 3) == 0.490 and round(high, 3) == 0.943
    assert bench_bots.wilson(0, 0) == (0.0, 1.0)


def test_replay_matches_a_finished_game_and_notices_tampering():
    run("simulate", "piraeus", "--players", "3", "--games", "1", "--seed", "11")
    game = Game.objects.get()
    assert "replays identically" in run("replay", str(game.pk))
    game.state["prices"] = [1] * len(game.state.get("prices", [0]))
    game.save()
    with pytest.raises(CommandError, match="does not replay"):
        run("replay", str(game.pk))


def test_the_demo_seats_you_once_at_a_table_of_every_game():
    first = run("demo")
    second = run("demo")
    slugs = sorted(engine.slug for engine in all_engines())
    assert sorted(Game.objects.values_list("engine", flat=True)) == slugs
    assert Seat.objects.filter(player__email="you@demo.localhost").count() == len(slugs)
    for engine in all_engines():
        assert engine.title in first and engine.title in second
    assert first.count("/l/") == second.count("/l/") == len(slugs)
    # Untitled (no English "Demo: ..."): each reader reads the game's name in their language.
    genoa = Game.objects.get(engine="genoa")
    assert genoa.title == ""
    with translation.override("de"):
        assert genoa.name == "Die Händler von Genua"


def test_the_demo_seats_strong_bots_and_a_newcomer_may_ask_for_easy_ones():
    run("demo", "--engine", "piraeus")
    run("demo", "--engine", "manila", "--bot-level", "easy")
    levels = dict(Seat.objects.filter(is_bot=True).values_list("game__engine", "bot_level").distinct())
    assert levels == {"piraeus": "strong", "manila": "easy"}


def test_the_demo_of_one_game_fits_its_player_count():
    run("demo", "--engine", "manila", "--players", "9")
    game = Game.objects.get()
    assert game.engine == "manila" and game.seats.count() == 5
