"""A backup in one archive (docs/operators.md, "Backups"): a consistent dump of the PostgreSQL database and what the
database does not hold but a restored server needs: the settings file (SECRET_KEY signs every link, reply address
and webhook secret: without it every link already sent stops working) and the DKIM key. The archive holds secrets,
so it is written readable by its owner only; a manifest says what is in it and which migrations the code that
restores it must know.

pg_dump reads every table in one transaction (a snapshot at its start), so the dump is consistent while the server
runs: an order stored meanwhile is in it entirely or not at all. Its custom format is compressed and restored by
pg_restore, without owners or grants, so it goes into any role's database."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tarfile
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection
from django.db.migrations.recorder import MigrationRecorder

PREFIX = "pbem-backup-"


def dump(target: Path) -> str:
    """pg_dump of the default database to `target`; its version."""
    db = connection.settings_dict
    env = {**os.environ, "PGPASSWORD": str(db.get("PASSWORD") or "")}  # not in the arguments: ps would show it
    command = ["pg_dump", "--format=custom", "--no-owner", "--no-privileges", f"--file={target}"]
    # What DATABASE_URL leaves out, libpq's defaults fill in as for the server: postgres:///pbem is the local
    # socket as the server's own user (peer authentication, no password anywhere).
    given = {"host": db.get("HOST"), "port": db.get("PORT"), "username": db.get("USER")}
    command += [f"--{option}={value}" for option, value in given.items() if value]
    command.append(str(db["NAME"]))
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=3600)
    except FileNotFoundError:
        raise CommandError("pg_dump is not installed (Debian: apt-get install postgresql-client).") from None
    if done.returncode != 0:
        raise CommandError(f"pg_dump failed: {done.stderr.strip()[-500:]}")
    return subprocess.run(["pg_dump", "--version"], capture_output=True, text=True).stdout.strip()


def migrations() -> dict[str, list[str]]:
    applied: dict[str, list[str]] = {}
    for app, name in MigrationRecorder(connection).migration_qs.order_by("app", "name").values_list("app", "name"):
        applied.setdefault(app, []).append(name)
    return applied


class Command(BaseCommand):
    help = "Back up the database (a consistent pg_dump) and the settings and DKIM key it does not hold, in one archive."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("folder", help="where the archive is written (pbem-backup-<UTC time>.tar)")
        parser.add_argument(
            "--env-file",
            default=os.environ.get("PBEM_ENV_FILE", "/etc/pbem/env"),
            help="the settings file to keep with it (default: PBEM_ENV_FILE or /etc/pbem/env)",
        )
        parser.add_argument("--keep", type=int, default=0, help="then delete all but the newest N backups there")

    def handle(self, *args: Any, **opts: Any) -> None:
        if connection.vendor != "postgresql":
            raise CommandError("backup dumps PostgreSQL; this server's database is not (DATABASE_URL).")
        folder = Path(opts["folder"])
        folder.mkdir(parents=True, exist_ok=True)
        now = datetime.now(UTC)
        name = f"{PREFIX}{now:%Y%m%d-%H%M%S}.tar"
        files = {"env": Path(opts["env_file"])}
        if settings.PBEM_DKIM_KEY_FILE:
            files["dkim.pem"] = Path(settings.PBEM_DKIM_KEY_FILE)
        with tempfile.TemporaryDirectory(dir=folder, prefix=".pbem-backup-") as work:
            version = dump(Path(work) / "database.dump")
            kept = []
            for inside, source in files.items():
                if source.is_file():
                    shutil.copyfile(source, Path(work) / inside)
                    os.chmod(Path(work) / inside, 0o600)  # secrets: extracted by hand, they stay the owner's only
                    kept.append(inside)
                else:
                    self.stderr.write(f"Not kept: {source} is not a file. Keep its secrets (SECRET_KEY) safe yourself.")
            manifest = {
                "created": now.isoformat(),
                "database": connection.settings_dict["NAME"],
                "pg_dump": version,
                "files": ["database.dump", *kept],
                "migrations": migrations(),
            }
            (Path(work) / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
            partial = folder / f".{name}.part"
            with tarfile.open(partial, "w") as archive:
                os.chmod(partial, 0o600)  # before anything is in it: the settings hold secrets
                for inside in ["manifest.json", *manifest["files"]]:
                    archive.add(Path(work) / inside, arcname=inside)
            partial.rename(folder / name)  # whole or not there: a backup cut short is never taken for one
        self.stdout.write(str(folder / name))
        if opts["keep"] > 0:
            for old in sorted(folder.glob(f"{PREFIX}*.tar"))[: -opts["keep"]]:
                old.unlink()
