"""Issue 42 item 4: `manage.py backup` and its restore (deploy/pbem-restore), as docs/operators.md has an operator do
them. A database with games in every state (finished by play, ended early, running in each engine with sealed
orders in, complete but unresolved, paused) is backed up, restored into a fresh database of the test's own, and
on it every game replays identically from its seed and orders (`manage.py replay --all`, a process of its own on
the restored database), and every open phase then resolves, its games still replaying."""

from __future__ import annotations

import io
import json
import os
import random
import stat
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from games.engines import all_engines
from games.models import Game, Order, Phase
from games.play import endings, orders, organise, turns
from tests.support.faults import complete_but_unresolved
from tests.support.phases import open_phase
from tests.support.resolutions import orders_in, table
from tests.support.workers import ROOT, database_url

pytestmark = pytest.mark.django_db(transaction=True)
SECRET = "a-production-like-key-kept-in-the-settings-file-" + "k" * 20


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue().strip()


def games_in_every_state(lost) -> dict[str, int]:
    """What each state's game is, by id."""
    rng = random.Random(42)
    run("simulate", "piraeus", "--players", "3", "--games", "1", "--seed", "11")  # played to its end by bots
    made = {"finished": Game.objects.get().pk}
    for engine in all_engines():  # two turns played, then one sealed order in the third
        game = table(engine.slug.replace("-", ""), engine.slug)
        for _ in range(2):
            phase = orders_in(game, rng)
            assert phase is not None and turns.resolve_phase(phase.pk)
        phase = open_phase(game)
        seat = game.seats.get(number=phase.owed_seats[0])
        example = turns.engine_of(game).example_order(game.state, seat.number)
        orders.submit_order(seat, phase.number, example)
        made[f"running {engine.slug}"] = game.pk
    complete = table("complete", "piraeus")
    complete_but_unresolved(complete, lost)  # every owed order in; the call to resolve it lost
    made["complete"] = complete.pk
    paused = table("paused", "manila")
    assert organise.pause_game(paused)
    made["paused"] = paused.pk
    early = table("early", "piraeus")
    orders_in(early, rng)
    assert endings.finish_early(early.pk, [], "The organiser ended the game.", timezone.now())
    made["ended early"] = early.pk
    return made


@pytest.fixture
def restored_database(postgres) -> Iterator[str]:
    """A fresh database of the test's own beside its test database, dropped at the end."""
    name = f"{connection.settings_dict['NAME']}_restore"
    admin = database_url().rpartition("/")[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as server:
        server.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        server.execute(f'CREATE DATABASE "{name}"')
    try:
        yield database_url().rpartition("/")[0] + f"/{name}"
    finally:
        with psycopg.connect(admin, autocommit=True) as server:
            server.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def on(database: str, *command: str) -> subprocess.CompletedProcess[str]:
    """manage.py on the restored database, in a process of its own (as the restored server would run it)."""
    env = {
        **os.environ,
        "DATABASE_URL": database,
        "SECRET_KEY": SECRET,
        "CELERY_BROKER_URL": "",
        "EMAIL_PROVIDER": "test",
    }
    return subprocess.run(
        [sys.executable, "manage.py", *command], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )


# Resolve every open phase at once (the organiser's "resolve now"), and say how many.
RESOLVE_OPEN = """
from games.models import Game
from games.play import organise
print(sum(organise.resolve_now(game) for game in Game.objects.exclude(status="finished").order_by("pk")))
"""


def test_a_backup_restores_into_a_fresh_database_where_every_game_replays_and_open_phases_resolve(
    restored_database, tmp_path, settings, lost
):
    made = games_in_every_state(lost)
    states = {name: Game.objects.get(pk=pk).status for name, pk in made.items()}
    assert states["finished"] == states["ended early"] == "finished" and states["paused"] == "paused"
    assert Phase.objects.filter(game_id=made["complete"], status="open").get().complete_at is not None
    sealed = Order.objects.filter(phase__status="open").count()
    assert sealed > 3  # the complete game's three, and those of the running games whose turn waits for more
    replayed = run("replay", "--all").splitlines()
    assert len(replayed) == len(made) and all("replays identically" in line for line in replayed)
    env_file = tmp_path / "etc" / "env"
    env_file.parent.mkdir()
    env_file.write_text(f"SECRET_KEY={SECRET}\nDATABASE_URL={database_url()}\n")
    settings.PBEM_DKIM_KEY_FILE = ""

    archive = Path(run("backup", str(tmp_path / "backups"), "--env-file", str(env_file)))
    assert archive.parent == tmp_path / "backups" and archive.name.startswith("pbem-backup-")
    assert stat.S_IMODE(archive.stat().st_mode) == 0o600  # it holds SECRET_KEY
    with tarfile.open(archive) as contents:
        assert sorted(contents.getnames()) == ["database.dump", "env", "manifest.json"]
        assert stat.S_IMODE(contents.getmember("env").mode) == 0o600  # as `tar -xf` puts it back by hand
        manifest = json.load(contents.extractfile("manifest.json"))
    assert manifest["files"] == ["database.dump", "env"]
    assert manifest["migrations"]["games"][-1].startswith("00")

    new_settings = tmp_path / "restored-etc"
    new_settings.mkdir()
    restore = subprocess.run(
        [str(ROOT / "deploy" / "pbem-restore"), str(archive), restored_database, str(new_settings)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert restore.returncode == 0, restore.stderr
    assert (new_settings / "env").read_text() == env_file.read_text()
    assert stat.S_IMODE((new_settings / "env").stat().st_mode) == 0o600

    replay = on(restored_database, "replay", "--all")
    assert replay.returncode == 0, replay.stderr
    assert replay.stdout.splitlines() == replayed  # every game, as it replayed before the backup
    with psycopg.connect(restored_database) as restored:
        assert restored.execute(
            "SELECT count(*) FROM games_order WHERE phase_id IN (SELECT id FROM games_phase WHERE status = 'open')"
        ).fetchone() == (sealed,)
        was_open = restored.execute("SELECT game_id, number FROM games_phase WHERE status = 'open'").fetchall()
    assert len(was_open) == len(made) - 2  # every game but the two that are over

    resolving = on(restored_database, "shell", "--verbosity", "0", "-c", RESOLVE_OPEN)
    assert (resolving.returncode, resolving.stdout.split()[-1:]) == (0, [str(len(was_open))]), resolving.stderr
    with psycopg.connect(restored_database) as restored:
        for game_id, number in was_open:
            (status,) = restored.execute(
                "SELECT status FROM games_phase WHERE game_id = %s AND number = %s", [game_id, number]
            ).fetchone()
            assert status == "resolved", (game_id, number)
    again = on(restored_database, "replay", "--all")
    assert again.returncode == 0 and again.stdout.count("replays identically") == len(made), again.stderr
    assert Game.objects.count() == len(made)  # the original is untouched


def test_backups_kept_are_the_newest_and_a_missing_settings_file_is_said(tmp_path, postgres):
    folder = tmp_path / "backups"
    folder.mkdir()
    for stamp in ("20260101-000000", "20260102-000000", "20260103-000000"):
        (folder / f"pbem-backup-{stamp}.tar").write_bytes(b"an older backup")
    err = io.StringIO()
    call_command(
        "backup", str(folder), "--env-file", str(tmp_path / "nowhere"), "--keep", "2", stdout=io.StringIO(), stderr=err
    )
    kept = sorted(path.name for path in folder.iterdir())
    assert len(kept) == 2 and kept[0] == "pbem-backup-20260103-000000.tar" and kept[1].startswith("pbem-backup-2")
    assert "Not kept:" in err.getvalue() and "SECRET_KEY" in err.getvalue()
    with tarfile.open(folder / kept[1]) as contents:
        assert sorted(contents.getnames()) == ["database.dump", "manifest.json"]
