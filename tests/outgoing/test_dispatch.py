"""Wake-up calls by name (games/outgoing/dispatch.py): the services name a task, a tasks module binds the name."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import transaction

from games.outgoing import dispatch

ROOT = Path(__file__).resolve().parents[2]

BOUND_AFTER_SETUP = """
import json, django
django.setup()
from celery import current_app
from games.outgoing import dispatch
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


QUEUES_AFTER_SETUP = """
import json, django
django.setup()
from celery import current_app
print(json.dumps({
    "declared": sorted(current_app.amqp.queues),
    "routes": {name: current_app.amqp.router.route({}, name, (), {})["queue"].name
               for name in current_app.tasks if not name.startswith("celery.")},
    "beat": {entry["task"]: entry.get("options", {}) for entry in current_app.conf.beat_schedule.values()},
}))
"""


def test_each_task_goes_to_the_queue_of_its_kind_of_work_and_a_plain_worker_consumes_all_of_them() -> None:
    """In a fresh process, as a worker or beat starts: resolutions, the bots' decisions, email, and the sweeps
    each have a queue; a worker started without -Q consumes all four, so one worker alone still does everything."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "pbem.settings"}
    out = subprocess.run(
        [sys.executable, "-c", QUEUES_AFTER_SETUP], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    found = json.loads(out.stdout)
    assert found["declared"] == ["bots", "email", "resolve", "sweep"]
    assert found["routes"] == {
        "games.tasks.resolve_phase": "resolve",
        "games.tasks.resolve_overdue": "resolve",
        "games.tasks.resolve_overdue_phases": "resolve",
        "games.tasks.play_bots": "bots",
        "games.tasks.send_due_emails": "email",
        "games.tasks.send_emails": "email",
        "games.tasks.send_reminders": "email",
        "games.tasks.send_sign_in_link": "email",
        "games.tasks.send_sign_up_link": "email",
        "games.tasks.send_receipts": "email",
        "games.tasks.send_address_confirmation": "email",
        "leagues.tasks.send_emails": "email",
        "leagues.tasks.send_digests": "email",
        "games.tasks.sweep_deadlines": "sweep",
        "leagues.tasks.sweep": "sweep",
        "leagues.tasks.finish_round": "sweep",
        "talk.tasks.send_talk": "email",
        "talk.tasks.send_digests": "email",
        "talk.tasks.sweep": "sweep",
        "hooks.tasks.send_due": "email",
        "hooks.tasks.send_emails": "email",
        "lobby.tasks.send_emails": "email",
        "lobby.tasks.sweep": "sweep",
        "votes.tasks.send_emails": "email",
        "votes.tasks.settle": "resolve",
        "votes.tasks.sweep": "sweep",
    }
    # A sweep left waiting longer than its period (no worker on the sweep queue) is dropped, not run late.
    sweep_names = (
        "games.tasks.sweep_deadlines",
        "leagues.tasks.sweep",
        "talk.tasks.sweep",
        "lobby.tasks.sweep",
        "votes.tasks.sweep",
    )
    sweeps = [found["beat"][name] for name in sweep_names]
    assert all(options.get("expires") == 60 for options in sweeps)


def test_a_task_bound_without_a_queue_goes_to_the_resolutions_queue() -> None:
    assert dispatch.route("games.tasks.nothing_here", (), {}, {}) == {"queue": "resolve"}
