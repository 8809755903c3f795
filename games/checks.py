"""System checks: misconfiguration shows up in `manage.py check` and at every start."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.conf import settings
from django.core.checks import Error, Warning, register
from django.utils.module_loading import import_string


@register()
def check_deployment(app_configs: Any = None, **kwargs: Any) -> list[Any]:
    problems: list[Any] = []
    if not settings.DEBUG and settings.SECRET_KEY == settings.DEV_SECRET_KEY:
        problems.append(
            Error("SECRET_KEY is the development key while DEBUG is off.", hint="Set SECRET_KEY.", id="pbem.E001")
        )
    site = urlparse(settings.SITE_URL)
    if site.scheme not in {"http", "https"} or not site.netloc:
        problems.append(Error(f"SITE_URL {settings.SITE_URL!r} is not an absolute http(s) URL.", id="pbem.E002"))
    elif not settings.DEBUG and site.scheme != "https":
        problems.append(Warning("SITE_URL is not https: signed links would travel in clear.", id="pbem.W001"))
    if not settings.DEBUG and not settings.EMAIL_PROVIDER:
        problems.append(
            Warning(
                "No EMAIL_PROVIDER: email is written to files, nobody receives it.",
                hint="Set EMAIL_PROVIDER (e.g. mailgun) and its ANYMAIL_* keys.",
                id="pbem.W002",
            )
        )
    if not settings.DEBUG and not settings.CELERY_BROKER_URL:
        problems.append(
            Warning(
                "No CELERY_BROKER_URL: tasks run inline and no deadline sweep runs.",
                hint="Set CELERY_BROKER_URL and run `celery -A pbem worker` and `celery -A pbem beat`.",
                id="pbem.W003",
            )
        )
    try:
        import_string(settings.EMAIL_BACKEND)
    except ImportError:
        problems.append(
            Error(
                f"EMAIL_PROVIDER {settings.EMAIL_PROVIDER!r} is not an anymail provider.",
                hint="Use the name of a module in anymail.backends, e.g. mailgun, postmark, sendgrid, amazon_ses.",
                id="pbem.E003",
            )
        )
    try:
        ZoneInfo(settings.TIME_ZONE)
    except (ZoneInfoNotFoundError, ValueError):
        problems.append(Error(f"TIME_ZONE {settings.TIME_ZONE!r} is not a known time zone.", id="pbem.E004"))
    if settings.PBEM_REPLY_ADDRESS and not settings.ANYMAIL.get("WEBHOOK_SECRET"):
        # Without it anymail only warns and accepts every POST: anyone could play a seat by forging replies.
        problems.append(
            Error(
                "PBEM_REPLY_ADDRESS is set but ANYMAIL_WEBHOOK_SECRET is not: the inbound webhook would accept "
                "replies from anyone.",
                hint="Set ANYMAIL_WEBHOOK_SECRET to a random user:password and put it in the provider's inbound "
                "URL, or unset PBEM_REPLY_ADDRESS.",
                id="pbem.E005",
            )
        )
    if settings.PBEM_REMINDER_HOURS >= settings.PBEM_DEFAULT_DEADLINE_HOURS:
        problems.append(Warning("PBEM_REMINDER_HOURS is not shorter than the default deadline.", id="pbem.W004"))
    return problems
