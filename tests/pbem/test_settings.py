"""Configuration: misconfiguration shows as system checks; the beat schedule runs the deadline sweep."""

from __future__ import annotations

import importlib
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

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
    import games.play.tasks  # noqa: F401  (registers the tasks)

    entry = celery_app.conf.beat_schedule["sweep-deadlines"]
    assert entry["task"] in celery_app.tasks
    assert entry["schedule"] > 0


# --- Deployment settings: read at import, so these load pbem.settings afresh or run manage.py ------------

DEPLOY_VARIABLES = [
    "DEBUG",
    "SITE_URL",
    "ALLOWED_HOSTS",
    "SECURE_SSL_REDIRECT",
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD",
    "SECURE_PROXY_SSL_HEADER",
    "SESSION_COOKIE_SECURE",
    "CSRF_COOKIE_SECURE",
    "EMAIL_PROVIDER",
    "EMAIL_HOST",
    "EMAIL_PORT",
    "EMAIL_HOST_USER",
    "EMAIL_HOST_PASSWORD",
    "EMAIL_USE_TLS",
    "EMAIL_USE_SSL",
    "EMAIL_TIMEOUT",
    "AXES_FAILURE_LIMIT",
    "AXES_COOLOFF_MINUTES",
    "AXES_LOCKOUT_PARAMETERS",
    "AXES_IPWARE_META_PRECEDENCE_ORDER",
    "AXES_IPWARE_PROXY_ORDER",
    "AXES_IPWARE_PROXY_COUNT",
    "AXES_IPWARE_PROXY_TRUSTED_IPS",
]


@pytest.fixture
def load_settings(monkeypatch):
    """load_settings(**environment) -> the pbem.settings module as a server started with it would read it."""
    import pbem.settings as project_settings

    def load(**environment: str):
        for name in DEPLOY_VARIABLES:
            monkeypatch.delenv(name, raising=False)
        for name, value in environment.items():
            monkeypatch.setenv(name, value)
        return importlib.reload(project_settings)

    yield load
    monkeypatch.undo()
    importlib.reload(project_settings)


def test_debug_is_off_unless_set(load_settings):
    assert load_settings().DEBUG is False
    assert load_settings(DEBUG="1").DEBUG is True


def test_an_https_site_without_debug_gets_production_https_settings(load_settings):
    production = load_settings(SITE_URL="https://pbem.example.org")
    assert production.SECURE_SSL_REDIRECT and production.SECURE_HSTS_SECONDS >= 365 * 24 * 3600
    assert production.SECURE_HSTS_INCLUDE_SUBDOMAINS and not production.SECURE_HSTS_PRELOAD
    assert production.SESSION_COOKIE_SECURE and production.CSRF_COOKIE_SECURE
    assert production.ALLOWED_HOSTS == ["pbem.example.org"]
    assert production.SECURE_PROXY_SSL_HEADER is None  # only when told the proxy sets it


def test_make_run_gets_no_https_settings(load_settings):
    demo = load_settings(DEBUG="1", SITE_URL="http://127.0.0.1:8000")
    assert not demo.SECURE_SSL_REDIRECT and demo.SECURE_HSTS_SECONDS == 0
    assert not demo.SESSION_COOKIE_SECURE and not demo.CSRF_COOKIE_SECURE
    assert "127.0.0.1" in demo.ALLOWED_HOSTS and "*" not in demo.ALLOWED_HOSTS


def test_each_https_setting_can_be_given_through_the_environment(load_settings):
    chosen = load_settings(
        SITE_URL="https://pbem.example.org",
        ALLOWED_HOSTS="pbem.example.org,www.pbem.example.org",
        SECURE_SSL_REDIRECT="0",
        SECURE_HSTS_SECONDS="3600",
        SECURE_HSTS_INCLUDE_SUBDOMAINS="0",
        SECURE_HSTS_PRELOAD="1",
        SECURE_PROXY_SSL_HEADER="X-Forwarded-Proto",
        SESSION_COOKIE_SECURE="0",
        CSRF_COOKIE_SECURE="0",
    )
    assert chosen.ALLOWED_HOSTS == ["pbem.example.org", "www.pbem.example.org"]
    assert not chosen.SECURE_SSL_REDIRECT and chosen.SECURE_HSTS_SECONDS == 3600
    assert not chosen.SECURE_HSTS_INCLUDE_SUBDOMAINS and chosen.SECURE_HSTS_PRELOAD
    assert chosen.SECURE_PROXY_SSL_HEADER == ("HTTP_X_FORWARDED_PROTO", "https")
    assert not chosen.SESSION_COOKIE_SECURE and not chosen.CSRF_COOKIE_SECURE
    assert load_settings(SECURE_PROXY_SSL_HEADER="X-Forwarded-Ssl: on").SECURE_PROXY_SSL_HEADER == (
        "HTTP_X_FORWARDED_SSL",
        "on",
    )


PROJECT_DIR = Path(__file__).resolve().parents[2]


def test_the_login_throttle_is_configured_through_the_environment(load_settings):
    default = load_settings()
    assert default.AXES_LOCKOUT_PARAMETERS == ["username", "ip_address"]
    assert default.AXES_IPWARE_META_PRECEDENCE_ORDER == ["REMOTE_ADDR"] and default.AXES_IPWARE_PROXY_COUNT is None
    chosen = load_settings(
        AXES_FAILURE_LIMIT="3",
        AXES_COOLOFF_MINUTES="60",
        AXES_LOCKOUT_PARAMETERS="username+ip_address",
        AXES_IPWARE_META_PRECEDENCE_ORDER="HTTP_X_FORWARDED_FOR",
        AXES_IPWARE_PROXY_ORDER="right-most",
        AXES_IPWARE_PROXY_COUNT="2",
        AXES_IPWARE_PROXY_TRUSTED_IPS="10.0.0.0/8, 192.0.2.1",
    )
    assert chosen.AXES_FAILURE_LIMIT == 3 and chosen.AXES_COOLOFF_TIME.total_seconds() == 3600
    assert chosen.AXES_LOCKOUT_PARAMETERS == [["username", "ip_address"]]
    assert chosen.AXES_IPWARE_META_PRECEDENCE_ORDER == ["HTTP_X_FORWARDED_FOR"]
    assert chosen.AXES_IPWARE_PROXY_ORDER == "right-most" and chosen.AXES_IPWARE_PROXY_COUNT == 2
    assert chosen.AXES_IPWARE_PROXY_TRUSTED_IPS == ["10.0.0.0/8", "192.0.2.1"]


def production_environment(tmp_path, **extra: str) -> dict[str, str]:
    """A production server's environment: only what the README's table asks an operator to set."""
    keep = {"PATH", "HOME", "LANG", "LC_ALL", "PYTHONPATH", "VIRTUAL_ENV"}
    return {
        **{name: value for name, value in os.environ.items() if name in keep},
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "SITE_URL": "https://pbem.example.org",
        "EMAIL_PROVIDER": "mailgun",
        "ANYMAIL_MAILGUN_API_KEY": "key-0123",
        "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0",  # the checks do not connect
        "PBEM_VAR_DIR": str(tmp_path),
        **extra,
    }


def manage(tmp_path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=PROJECT_DIR,
        env=production_environment(tmp_path, **extra),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_production_environment_passes_check_deploy_without_a_warning(tmp_path):
    result = manage(tmp_path, "check", "--deploy", "--fail-level", "WARNING", SECURE_HSTS_PRELOAD="1")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout, result.stdout + result.stderr


def test_check_deploy_names_what_a_production_environment_leaves_out(tmp_path):
    # The same environment with HSTS turned off is reported: the check above is not vacuous.
    result = manage(tmp_path, "check", "--deploy", "--fail-level", "WARNING", SECURE_HSTS_SECONDS="0")
    assert result.returncode != 0 and "security.W004" in result.stderr + result.stdout


def test_taking_replies_without_a_webhook_secret_is_an_error(settings):
    settings.PBEM_REPLY_ADDRESS = "turns@in.example.org"
    settings.ANYMAIL = {"MAILGUN_API_KEY": "key-0123"}
    assert "pbem.E005" in ids(settings)
    settings.ANYMAIL = {"MAILGUN_API_KEY": "key-0123", "WEBHOOK_SECRET": "hook:secret"}
    assert "pbem.E005" not in ids(settings)
    settings.PBEM_REPLY_ADDRESS = ""
    settings.ANYMAIL = {}
    assert "pbem.E005" not in ids(settings)


def test_the_webhook_secret_check_reads_the_anymail_environment(tmp_path):
    result = manage(tmp_path, "check", PBEM_REPLY_ADDRESS="turns@in.example.org")
    assert result.returncode != 0 and "pbem.E005" in result.stderr
    result = manage(tmp_path, "check", PBEM_REPLY_ADDRESS="turns@in.example.org", ANYMAIL_WEBHOOK_SECRET="a:b")
    assert result.returncode == 0, result.stderr


# --- EMAIL_PROVIDER=smtp: Django's SMTP backend, set from the environment (tests/outgoing/test_smtp.py sends it) --


def test_smtp_is_chosen_and_set_through_the_environment(load_settings):
    relay = load_settings(
        EMAIL_PROVIDER="SMTP",
        EMAIL_HOST="smtp.example.org",
        EMAIL_PORT="2525",
        EMAIL_HOST_USER="pbem",
        EMAIL_HOST_PASSWORD="s3cret",
        EMAIL_USE_TLS="1",
        EMAIL_TIMEOUT="12",
    )
    assert relay.EMAIL_BACKEND == "django.core.mail.backends.smtp.EmailBackend"
    assert (relay.EMAIL_HOST, relay.EMAIL_PORT, relay.EMAIL_HOST_USER, relay.EMAIL_HOST_PASSWORD) == (
        "smtp.example.org",
        2525,
        "pbem",
        "s3cret",
    )
    assert relay.EMAIL_USE_TLS and not relay.EMAIL_USE_SSL and relay.EMAIL_TIMEOUT == 12


def test_the_smtp_port_follows_the_tls_mode_unless_set(load_settings):
    assert load_settings(EMAIL_PROVIDER="smtp", EMAIL_HOST="relay").EMAIL_PORT == 25
    assert load_settings(EMAIL_PROVIDER="smtp", EMAIL_HOST="relay", EMAIL_USE_TLS="1").EMAIL_PORT == 587
    ssl = load_settings(EMAIL_PROVIDER="smtp", EMAIL_HOST="relay", EMAIL_USE_SSL="1")
    assert ssl.EMAIL_PORT == 465 and ssl.EMAIL_TIMEOUT == 30  # never Django's default of waiting forever


def test_smtp_without_a_host_or_with_both_tls_modes_is_an_error(settings):
    settings.EMAIL_PROVIDER = "smtp"
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = ""
    [problem] = [p for p in check_deployment() if p.id == "pbem.E006"]
    assert "EMAIL_HOST" in problem.msg and "EMAIL_HOST" in problem.hint
    settings.EMAIL_HOST = "smtp.example.org"
    assert not {"pbem.E003", "pbem.E006", "pbem.E007"} & ids(settings)
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = True
    assert "pbem.E007" in ids(settings)


def test_an_smtp_production_environment_passes_check_deploy(tmp_path):
    relay = {"EMAIL_PROVIDER": "smtp", "EMAIL_HOST": "smtp.example.org", "EMAIL_USE_TLS": "1"}
    result = manage(tmp_path, "check", "--deploy", "--fail-level", "WARNING", SECURE_HSTS_PRELOAD="1", **relay)
    assert result.returncode == 0, result.stdout + result.stderr
    result = manage(tmp_path, "check", **{**relay, "EMAIL_HOST": ""})
    assert result.returncode != 0 and "pbem.E006" in result.stderr and "EMAIL_HOST" in result.stderr


LOG_ONE_LINE = """
import logging, django
django.setup()
if WORKER:
    from pbem.celery import app
    app.log.setup_logging_subsystem(loglevel="INFO")  # what a worker does when it starts
logging.getLogger("games.play.turns").info("phase 7 of game 3 resolved")
"""


@pytest.mark.parametrize("worker", [False, True], ids=["web", "worker"])
def test_a_games_log_line_is_written_once_by_the_web_server_and_by_a_worker(worker):
    result = subprocess.run(
        [sys.executable, "-c", f"WORKER = {worker}\n{LOG_ONE_LINE}"],
        cwd=PROJECT_DIR,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "pbem.settings", "PYTHONPATH": str(PROJECT_DIR)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert (result.stdout + result.stderr).count("phase 7 of game 3 resolved") == 1, result.stderr
