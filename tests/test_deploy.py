"""What docs/operators.md has an operator install from deploy/: the systemd units pass `systemd-analyze verify`
(where Debian's systemd is installed; skipped otherwise), pointed at this checkout instead of /srv/pbem; and the
settings file deploy/env.example, filled in as its comments say, passes `manage.py check --deploy` with nothing
but the HSTS preload reminder the manual tells of."""

from __future__ import annotations

import os
import secrets
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.import_graph import ROOT
from tests.support.smtp import dkim_key
from tests.support.workers import database_url

UNITS = sorted((ROOT / "deploy" / "systemd").iterdir())


def test_the_systemd_units_verify(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("needs Debian's systemd (systemd-analyze)")
    for unit in UNITS:
        (tmp_path / unit.name).write_text(unit.read_text().replace("/srv/pbem", str(ROOT)))
    names = sorted(unit.name for unit in UNITS)
    assert names == [
        "pbem-backup.service",
        "pbem-backup.timer",
        "pbem-beat.service",
        "pbem-mailbox.service",
        "pbem-web.service",
        "pbem-worker.service",
    ]
    done = subprocess.run(
        [analyze, "verify", *(str(tmp_path / name) for name in names)], capture_output=True, text=True, timeout=120
    )
    ours = [line for line in (done.stdout + done.stderr).splitlines() if "pbem" in line]
    assert (done.returncode, ours) == (0, [])


def settings_file(path: Path) -> dict[str, str]:
    """KEY=value lines as the shell (deploy/pbem-manage) and systemd's EnvironmentFile read them."""
    values = {}
    for line in path.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, value = line.partition("=")
            values[name] = " ".join(shlex.split(value))
    return values


def test_the_example_settings_file_passes_the_deploy_checks(tmp_path: Path) -> None:
    values = settings_file(ROOT / "deploy" / "env.example")
    # Filled in as the comments say: a new random key, a DKIM key made with openssl, and the database.
    values |= {
        "SECRET_KEY": secrets.token_urlsafe(50),
        "PBEM_DKIM_KEY_FILE": str(dkim_key(tmp_path)),
        "DATABASE_URL": database_url(),
    }
    env = {name: value for name, value in os.environ.items() if name in {"PATH", "HOME", "LANG"}} | values
    done = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    problems = [line for line in done.stderr.splitlines() if line.startswith("?:")]
    assert [line.split()[1] for line in problems] == ["(security.W021)"], done.stderr
