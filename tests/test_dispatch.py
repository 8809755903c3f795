"""Wake-up calls by name (games/dispatch.py): the services name a task, a tasks module binds the name."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import transaction

from games import dispatch

ROOT = Path(__file__).resolve().parents[1]

BOUND_AFTER_SETUP = """
import json, django
django.setup()
from celery import current_app
from games import dispatch
print(json.dumps({name: name in current_app.tasks for name in sorted(dispatch.DECLARED)}))
"""


def test_every_wake_up_name_is_bound_to_a_task_once_django_is_set_up() -> None:
    """In a fresh process that imports no tasks module itself, as a web server starts: the apps' ready()
    binds every name the services wake."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "pbem.settings"}
    out = subprocess.run(
        [sys.executable, "-c", BOUND_AFTER_SETUP], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    bound = json.loads(out.stdout)
    assert {"games.tasks.resolve_phase", "games.tasks.send_emails", "leagues.tasks.send_emails"} <= set(bound)
    assert all(bound.values()), bound


@pytest.mark.django_db(transaction=True)
def test_waking_a_name_no_task_binds_fails_loudly_at_commit() -> None:
    unbound = dispatch.TaskName("games.tasks.nothing_here")
    refused = pytest.raises(LookupError, match="no Celery task is bound to 'games.tasks.nothing_here'")
    with refused, transaction.atomic():
        dispatch.after_commit(unbound, 1)
