"""Configuration: misconfiguration shows as system checks; the beat schedule runs the deadline sweep."""

from __future__ import annotations

from games.checks import check_deployment
from pbem.celery import app as celery_app


def ids(settings) -> set[str]:
    return {problem.id for problem in check_deployment()}


def test_the_default_configuration_passes_the_checks(settings):
    settings.DEBUG = True
    assert not {i for i in ids(settings) if i.startswith("pbem.E")}


def test_production_with_the_development_key_is_an_error(settings):
    settings.DEBUG = False
    settings.SECRET_KEY = settings.DEV_SECRET_KEY
    assert "pbem.E001" in ids(settings)


def test_a_relative_site_url_is_an_error(settings):
    settings.SITE_URL = "pbem.example"
    assert "pbem.E002" in ids(settings)


def test_an_unknown_email_provider_is_an_error(settings):
    settings.EMAIL_PROVIDER = "carrier-pigeon"
    settings.EMAIL_BACKEND = "anymail.backends.carrier-pigeon.EmailBackend"
    assert "pbem.E003" in ids(settings)


def test_production_without_broker_or_provider_warns(settings):
    settings.DEBUG = False
    settings.EMAIL_PROVIDER = ""
    settings.CELERY_BROKER_URL = ""
    assert {"pbem.W002", "pbem.W003"} <= ids(settings)


def test_an_unknown_time_zone_is_an_error(settings):
    settings.TIME_ZONE = "Mars/Olympus_Mons"
    assert "pbem.E004" in ids(settings)


def test_beat_runs_the_deadline_sweep_task():
    import games.tasks  # noqa: F401  (registers the tasks)

    entry = celery_app.conf.beat_schedule["sweep-deadlines"]
    assert entry["task"] in celery_app.tasks
    assert entry["schedule"] > 0


def test_email_work_goes_to_its_own_queue_only_when_asked(monkeypatch):
    import importlib

    import pbem.settings as project_settings

    monkeypatch.setenv("PBEM_EMAIL_QUEUE", "email")
    routed = importlib.reload(project_settings)
    assert routed.CELERY_TASK_ROUTES == {"games.tasks.send_emails": {"queue": "email"}}
    monkeypatch.delenv("PBEM_EMAIL_QUEUE")
    assert importlib.reload(project_settings).CELERY_TASK_ROUTES == {}
