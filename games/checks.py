"""System checks: misconfiguration shows up in `manage.py check` and at every start."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.conf import settings
from django.core.checks import Error, Warning, register
from django.utils.module_loading import import_string
from django.utils.translation import gettext as _

from games.incoming.mail import mailbox
from games.outgoing import dkim


@register()
def check_deployment(app_configs: Any = None, **kwargs: Any) -> list[Any]:
    problems: list[Any] = []
    if not settings.DEBUG and settings.SECRET_KEY == settings.DEV_SECRET_KEY:
        problems.append(
            Error(_("SECRET_KEY is the development key while DEBUG is off."), hint=_("Set SECRET_KEY."), id="pbem.E001")
        )
    site = urlparse(settings.SITE_URL)
    if site.scheme not in {"http", "https"} or not site.netloc:
        problems.append(
            Error(
                _("SITE_URL %(SITE_URL)s is not an absolute http(s) URL.") % {"SITE_URL": repr(settings.SITE_URL)},
                id="pbem.E002",
            )
        )
    elif not settings.DEBUG and site.scheme != "https":
        problems.append(Warning(_("SITE_URL is not https: signed links would travel in clear."), id="pbem.W001"))
    if not settings.DEBUG and not settings.EMAIL_PROVIDER:
        problems.append(
            Warning(
                _("No EMAIL_PROVIDER: email is written to files, nobody receives it."),
                hint=_(
                    "Set EMAIL_PROVIDER: smtp with EMAIL_HOST (your relay), or an anymail provider such as "
                    "mailgun with its ANYMAIL_* keys."
                ),
                id="pbem.W002",
            )
        )
    if not settings.DEBUG and not settings.CELERY_BROKER_URL:
        problems.append(
            Warning(
                _("No CELERY_BROKER_URL: tasks run inline and no deadline sweep runs."),
                hint=_("Set CELERY_BROKER_URL and run `celery -A pbem worker` and `celery -A pbem beat`."),
                id="pbem.W003",
            )
        )
    try:
        import_string(settings.EMAIL_BACKEND)
    except ImportError:
        problems.append(
            Error(
                _("EMAIL_PROVIDER %(EMAIL_PROVIDER)s is neither smtp nor an anymail provider.")
                % {"EMAIL_PROVIDER": repr(settings.EMAIL_PROVIDER)},
                hint=_(
                    "Use smtp, or the name of a module in anymail.backends, e.g. mailgun, postmark, sendgrid, "
                    "amazon_ses."
                ),
                id="pbem.E003",
            )
        )
    if settings.EMAIL_PROVIDER == "smtp":
        problems += smtp_problems()
    problems += dkim_problems() + mailbox_problems()
    try:
        ZoneInfo(settings.TIME_ZONE)
    except (ZoneInfoNotFoundError, ValueError):
        problems.append(
            Error(
                _("TIME_ZONE %(TIME_ZONE)s is not a known time zone.") % {"TIME_ZONE": repr(settings.TIME_ZONE)},
                id="pbem.E004",
            )
        )
    if settings.PBEM_REPLY_ADDRESS and not settings.ANYMAIL.get("WEBHOOK_SECRET"):
        # Without it anymail only warns and accepts every POST: anyone could play a seat by forging replies.
        problems.append(
            Error(
                _(
                    "PBEM_REPLY_ADDRESS is set but ANYMAIL_WEBHOOK_SECRET is not: the inbound webhook would "
                    "accept replies from anyone."
                ),
                hint=_(
                    "Set ANYMAIL_WEBHOOK_SECRET to a random user:password and put it in the provider's inbound "
                    "URL, or unset PBEM_REPLY_ADDRESS."
                ),
                id="pbem.E005",
            )
        )
    if settings.PBEM_REMINDER_HOURS >= settings.PBEM_DEFAULT_DEADLINE_HOURS:
        problems.append(Warning(_("PBEM_REMINDER_HOURS is not shorter than the default deadline."), id="pbem.W004"))
    return problems


def smtp_problems() -> list[Any]:
    """EMAIL_PROVIDER=smtp: without a host Django would try port 25 of this machine and fail at the first
    email, long after the start; both TLS modes make Django's backend refuse every email."""
    problems: list[Any] = []
    if not settings.EMAIL_HOST:
        problems.append(
            Error(
                _("EMAIL_PROVIDER is smtp but EMAIL_HOST is not set: no email could be sent."),
                hint=_(
                    "Set EMAIL_HOST to your relay (localhost for one on this machine), and as it needs "
                    "EMAIL_PORT, EMAIL_HOST_USER, EMAIL_HOST_PASSWORD and EMAIL_USE_TLS=1 (STARTTLS, port 587) or"
                    " EMAIL_USE_SSL=1 (port 465)."
                ),
                id="pbem.E006",
            )
        )
    if settings.EMAIL_USE_TLS and settings.EMAIL_USE_SSL:
        problems.append(
            Error(
                _("EMAIL_USE_TLS and EMAIL_USE_SSL are both set: Django's SMTP backend refuses to send."),
                hint=_(
                    "Set one: EMAIL_USE_TLS=1 for STARTTLS (usually port 587), EMAIL_USE_SSL=1 for TLS from the "
                    "first byte (usually port 465)."
                ),
                id="pbem.E007",
            )
        )
    return problems


def dkim_problems() -> list[Any]:
    """PBEM_DKIM_SELECTOR and PBEM_DKIM_KEY_FILE go together, the key must be a PEM private key we can read (or every
    email would fail at its signing), and only mail through our own relay is signed by us."""
    if not (settings.PBEM_DKIM_SELECTOR or settings.PBEM_DKIM_KEY_FILE):
        return []
    if not dkim.configured():
        return [
            Error(
                _("Only one of PBEM_DKIM_SELECTOR and PBEM_DKIM_KEY_FILE is set: mail is sent unsigned."),
                hint=_("Set both (manage.py dnsrecords then prints the record to publish), or neither."),
                id="pbem.E008",
            )
        ]
    try:
        dkim.public_key(settings.PBEM_DKIM_KEY_FILE)
    except (OSError, ValueError, TypeError) as error:
        return [
            Error(
                _("PBEM_DKIM_KEY_FILE is no RSA private key in PEM without a password (%(name)s).")
                % {"name": type(error).__name__},
                hint=_("openssl genrsa -out /etc/pbem/dkim.pem 2048 makes one (RSA); the server's user must read it."),
                id="pbem.E009",
            )
        ]
    if settings.EMAIL_PROVIDER != "smtp":
        return [
            Warning(
                _(
                    "PBEM_DKIM_SELECTOR and PBEM_DKIM_KEY_FILE are set, but mail goes through a provider's API, "
                    "which signs with its own keys: the key is not used."
                ),
                hint=_("Set up DKIM at the provider, or send through your own relay (EMAIL_PROVIDER=smtp)."),
                id="pbem.W005",
            )
        ]
    return []


def mailbox_problems() -> list[Any]:
    """PBEM_INBOUND_IMAP must be a mailbox's URL (`manage.py mailbox` reads it), and is of use only with replies on."""
    if not settings.PBEM_INBOUND_IMAP:
        return []
    try:
        mailbox.parse(settings.PBEM_INBOUND_IMAP)
    except ValueError:
        return [
            Error(
                _("PBEM_INBOUND_IMAP is not a mailbox's URL."),
                hint=_("imaps://user:password@host/INBOX, the user and password percent-escaped (%40 for @)."),
                id="pbem.E010",
            )
        ]
    if not settings.PBEM_REPLY_ADDRESS:
        return [
            Warning(
                _(
                    "PBEM_INBOUND_IMAP is set but PBEM_REPLY_ADDRESS is not: no email offers a reply address, so "
                    "no reply reaches the mailbox."
                ),
                hint=_("Set PBEM_REPLY_ADDRESS to the mailbox's address (replies go to its + addresses)."),
                id="pbem.W006",
            )
        ]
    return []
