"""Settings, read from the environment with safe defaults for a laptop.

With nothing set you get SQLite, tasks run inline after commit, and email written to files in
var/outbox/ (listed at /outbox/ when DEBUG=1, as `make run` sets it). Production sets DATABASE_URL,
CELERY_BROKER_URL, SITE_URL (https), SECRET_KEY and a mail provider (EMAIL_PROVIDER: smtp plus EMAIL_HOST...,
or an anymail provider plus its keys);
DEBUG is off unless set, and with an https SITE_URL the HTTPS settings below default to production values.
`manage.py check --deploy` reports what is missing.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlparse

import dj_database_url
from celery.schedules import crontab
from csp.constants import NONCE, NONE, SELF, UNSAFE_INLINE

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("PBEM_VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)  # the SQLite file and the dev outbox live here


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    return int(value) if value else default


def env_list(name: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, "").split(",") if item.strip()]


# Off unless set: a server started without configuration shows no debug pages and no /outbox/.
DEBUG = env_bool("DEBUG", False)
# The development key is only used when DEBUG is on; the system check pbem.E001 refuses it otherwise.
DEV_SECRET_KEY = "dev-only-insecure-key-change-me"  # noqa: S105
SECRET_KEY = os.environ.get("SECRET_KEY", DEV_SECRET_KEY)
SITE_URL = os.environ.get("SITE_URL", "http://127.0.0.1:8000").rstrip("/")
SITE_HOST = urlparse(SITE_URL).hostname or ""
SITE_IS_HTTPS = SITE_URL.startswith("https://")
# The site's own host unless told otherwise; in development also the loopback names runserver answers on.
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS") or (
    [SITE_HOST, "localhost", "127.0.0.1", "[::1]"] if DEBUG else [SITE_HOST] if SITE_HOST else []
)
CSRF_TRUSTED_ORIGINS = [SITE_URL] if SITE_URL.startswith("http") else []

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "anymail",
    "axes",
    "csp",
    "games",
    "games.talk",
    "games.leagues",
    "games.api",
    "ninja",  # django-ninja's own static files: the API's browsable docs served from this site (CSP: 'self')
    "games.hooks",  # after the leagues: a league's hooks name its league
    "games.lobby",
    "games.votes",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # A NUL byte or bytes that are not UTF-8 anywhere in a request's path, query or form: 400 before anything reads it.
    "games.incoming.refuse.RefuseUnreadableInput",
    # Serves the admin's CSS and scripts from STATIC_ROOT (`manage.py collectstatic`) under gunicorn, so a
    # deployment needs no separate web server for them; right after SecurityMiddleware, as whitenoise asks.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "csp.middleware.CSPMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # The page's language: the signed-in player's choice, else the switcher's cookie, else Accept-Language, else
    # English (games/incoming/middleware.py); after the session, before anything that renders.
    "games.incoming.middleware.PlayerLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "games.incoming.middleware.PlayerTimeZoneMiddleware",
    "axes.middleware.AxesMiddleware",  # last, as django-axes asks: it turns a lockout into its response
]

ROOT_URLCONF = "pbem.urls"
WSGI_APPLICATION = "pbem.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "OPTIONS": {
            # Django's default loaders, cached (as Django caches them by default: games/outgoing/translating.py's
            # cached loader also keeps each template's fixed translations per language), then each game's board
            # templates from the game's own folder (games/outgoing/boards.py).
            "loaders": [
                (
                    "games.outgoing.translating.Loader",
                    [
                        "django.template.loaders.filesystem.Loader",
                        "django.template.loaders.app_directories.Loader",
                        "games.outgoing.boards.EngineTemplateLoader",
                    ],
                )
            ],
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# Persistent connections: a bare order POST serves ~3x the requests per second with them (DESIGN.md).
# Health checks make a connection dropped by PostgreSQL or a proxy cost one retry, not an error page.
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{VAR_DIR / 'pbem.sqlite3'}",
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "600")),
        conn_health_checks=True,
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# The cache is a table of the database (`manage.py createcachetable` makes it), so that what it caps holds
# across every web and worker process on every machine, which share only the database and the broker: the
# owner's notice of refused replies, at most once a day per email (games/incoming/mail/inbound.py).
CACHES = {"default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "pbem_cache"}}

# django-axes first: it refuses a locked-out login before any password is checked.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

# English, German and French (issue 40). English is the source language and the default; the catalogues are
# locale/<code>/ (the pages, the emails, the apps) and each engine's games/engines/<slug>/locale/ (what the game
# says), compiled at install time (`make messages` writes them; docs/translators.md).
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("de", "Deutsch"), ("fr", "Français")]
LOCALE_PATHS = [BASE_DIR / "locale"] + sorted((BASE_DIR / "games" / "engines").glob("*/locale"))
# British English dates and numbers for "en" ("7 Dec 2026", 24-hour times), as the site wrote before it spoke
# more than English; German and French use Django's own formats (pbem/formats/).
FORMAT_MODULE_PATH = ["pbem.formats"]
# The switcher's cookie (Django's set_language) lasts a year, as Django's default; not readable by scripts.
LANGUAGE_COOKIE_HTTPONLY = True
LANGUAGE_COOKIE_SAMESITE = "Lax"
TIME_ZONE = os.environ.get("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", VAR_DIR / "static"))
# Compressed copies written by collectstatic; no manifest, so a page never fails for a file not collected
# yet (the tests and `make run` never collect). Files are cached by browsers for WHITENOISE_MAX_AGE.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# Players have no password: a seat link opens that seat, and the link /me/ emails opens all their games
# (games/incoming/sessions.py). A session lasts 14 days by default (seconds here): a couple of weeks of 48-hour
# turns without asking for a new sign-in email, and a lost or shared browser stops working soon after.
# Seat links' grants end sooner, with the link itself.
SESSION_COOKIE_AGE = int(os.environ.get("SESSION_COOKIE_AGE", str(60 * 60 * 24 * 14)))
SESSION_COOKIE_HTTPONLY = True

# --- HTTPS (manage.py check --deploy) ----------------------------------------------------------------
# A server whose SITE_URL is https and whose DEBUG is off gets production values; `make run` (DEBUG on,
# http on 127.0.0.1) and the tests get none of them. Every one can be set through the environment.
PRODUCTION_HTTPS = SITE_IS_HTTPS and not DEBUG
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", PRODUCTION_HTTPS)
# A load balancer's health check often speaks plain http to the backend: /healthz is never redirected.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 365 * 24 * 3600 if PRODUCTION_HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", PRODUCTION_HTTPS)
# Asking to be preloaded into browsers is a commitment that takes months to undo: only when told.
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", SITE_IS_HTTPS)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", SITE_IS_HTTPS)


def proxy_ssl_header(value: str) -> tuple[str, str] | None:
    """`X-Forwarded-Proto` (meaning `X-Forwarded-Proto: https`) or `Name: value` -> Django's META form."""
    name, _, expected = value.partition(":")
    if not name.strip():
        return None
    return "HTTP_" + name.strip().upper().replace("-", "_"), expected.strip() or "https"


# --- Admin login throttling (django-axes) -------------------------------------------------------------
# After AXES_FAILURE_LIMIT wrong passwords in a row, logins are refused for AXES_COOLOFF_MINUTES (each
# further try during a lockout starts the cool-off again). Locked by username or by IP address, either one:
# a guesser at one address gets the limit over all usernames, and an account gets the limit from all
# addresses together. The price: a stranger who knows an organiser's username can keep that account locked
# (`manage.py axes_reset_username NAME` lifts it). "username+ip_address" locks only that pair instead.
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("AXES_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [
    part.split("+") if "+" in part else part for part in env_list("AXES_LOCKOUT_PARAMETERS")
] or ["username", "ip_address"]
AXES_RESET_ON_SUCCESS = True  # "in a row": a successful login clears the count
# Where the client's address comes from (django-ipware through axes). By default the TCP peer, which behind
# a proxy is the proxy itself: every client would share one address. Behind a proxy name the header it sets,
# e.g. HTTP_X_REAL_IP (a header the proxy overwrites) or HTTP_X_FORWARDED_FOR with AXES_IPWARE_PROXY_ORDER
# right-most (one proxy that appends the client's address); README.md, "Running it for real".
AXES_IPWARE_META_PRECEDENCE_ORDER = env_list("AXES_IPWARE_META_PRECEDENCE_ORDER") or ["REMOTE_ADDR"]
AXES_IPWARE_PROXY_ORDER = os.environ.get("AXES_IPWARE_PROXY_ORDER", "left-most")
AXES_IPWARE_PROXY_COUNT = int(os.environ["AXES_IPWARE_PROXY_COUNT"]) if env_list("AXES_IPWARE_PROXY_COUNT") else None
AXES_IPWARE_PROXY_TRUSTED_IPS = env_list("AXES_IPWARE_PROXY_TRUSTED_IPS") or None

# --- Content-Security-Policy (django-csp) -------------------------------------------------------------
# No page runs inline script: scripts load from this site only (the admin's static files), so an injected
# <script> or on...= handler does not run. A <style> element needs the response's nonce (base.html has the
# only one). Style attributes are allowed: the boards colour their elements from game data (a player's
# colour, a good's) in several hundred style="..." attributes, and an attribute can neither run script nor
# select and read other parts of the page as an injected style sheet can. Browsers without CSP level 3's
# -elem/-attr directives use style-src, which allows inline styles as the site did before.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF, UNSAFE_INLINE],
        "style-src-elem": [SELF, NONCE],
        "style-src-attr": [UNSAFE_INLINE],
        "img-src": [SELF, "data:"],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

# Only when the proxy in front sets this header on every request and drops it from clients' requests:
# otherwise any client could claim to be on https.
SECURE_PROXY_SSL_HEADER = proxy_ssl_header(os.environ.get("SECURE_PROXY_SSL_HEADER", ""))

# --- Tasks -----------------------------------------------------------------------------------------
# Unset broker: every task runs inline, in-process, right after the transaction that asked for it
# commits, so `make run` needs no Redis. With a broker, workers and beat do the same work.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
# Tasks re-check the database row under a lock before acting, so a redelivered task is harmless;
# that is what makes acks_late (no task lost when a worker dies mid-way) safe.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Workers and beat keep reconnecting through a broker outage however long it lasts (Celery's default
# gives up after 100 attempts, about an hour), so the processes need no restart when it comes back.
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
# Faults. A task is only a wake-up call: its row in the database is the truth, a task run twice changes
# nothing, and the sweep finds any work whose wake-up call was lost (games/play/sweep.py).
# - A publish waits at most about 2 s for a broker that does not answer (1 s to connect, 2 s for a reply,
#   no retry; a refused connection fails at once), then is logged and dropped (games/outgoing/dispatch.py): the
#   order that caused it is committed, and the sweep resolves its phase once the broker is back.
# - The Redis transport hands a task that was delivered but never acknowledged (its worker was killed)
#   to another worker after the visibility timeout. It must exceed the longest task, or a task still
#   running is started a second time: the longest is the daily league digest (one provider call per
#   member, about 0.3 s each) or one game's emails with a provider timing out. 30 minutes covers a
#   league of thousands. Resolutions, bots and turn emails do not wait for it: the sweep resends them.
PBEM_BROKER_VISIBILITY_TIMEOUT = int(os.environ.get("PBEM_BROKER_VISIBILITY_TIMEOUT", "1800"))
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": PBEM_BROKER_VISIBILITY_TIMEOUT,
    "socket_connect_timeout": 1,
    # Above the workers' 1 s BRPOP poll; without it a publish to a broker that accepted the connection but
    # stopped answering waits forever.
    "socket_timeout": 2,
}
CELERY_BROKER_CONNECTION_TIMEOUT = 1  # the same bound for RabbitMQ (the AMQP transport's connect timeout)
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 0}
# Celery 5.6+ closes Django's connection around every task: a fresh PostgreSQL connection per
# resolution costs 3-4 ms, about half the throughput. Reusing it for many tasks is safe because
# CONN_HEALTH_CHECKS (above) replaces a dead connection before use.
CELERY_DB_REUSE_MAX = int(os.environ.get("CELERY_DB_REUSE_MAX", "1000"))
SWEEP_EVERY_SECONDS = int(os.environ.get("PBEM_SWEEP_EVERY_SECONDS", "60"))
# A phase whose last order is older than this and is still open lost its resolution (a killed worker, a
# broker outage): the sweep resolves it. The normal path takes milliseconds; the margin keeps the sweep
# from racing it. A complete phase therefore resolves within settle + sweep period (90 s by default).
PBEM_SETTLE_SECONDS = int(os.environ.get("PBEM_SETTLE_SECONDS", "30"))
# /healthz answers 503 past these (games/incoming/health.py): a phase with every order in still unresolved after
# two minutes has missed what the sweep promises; an email unsent for 10 minutes has missed its retries.
PBEM_HEALTH_COMPLETE_PHASE_SECONDS = int(os.environ.get("PBEM_HEALTH_COMPLETE_PHASE_SECONDS", "120"))
PBEM_HEALTH_UNSENT_EMAIL_SECONDS = int(os.environ.get("PBEM_HEALTH_UNSENT_EMAIL_SECONDS", "600"))
# League digests go out once a day at this hour (UTC).
PBEM_DIGEST_HOUR = int(os.environ.get("PBEM_DIGEST_HOUR", "7"))
# A sweep not started within its period is dropped (`expires`): the next one is already on its way, and a
# backlog of sweeps (no worker on the sweep queue for a while) would only run the same finders again.
SWEEP_OPTIONS = {"expires": float(SWEEP_EVERY_SECONDS)}
CELERY_BEAT_SCHEDULE = {
    "sweep-deadlines": {
        "task": "games.tasks.sweep_deadlines",
        "schedule": float(SWEEP_EVERY_SECONDS),
        "options": SWEEP_OPTIONS,
    },
    "sweep-leagues": {"task": "leagues.tasks.sweep", "schedule": float(SWEEP_EVERY_SECONDS), "options": SWEEP_OPTIONS},
    "league-digests": {"task": "leagues.tasks.send_digests", "schedule": crontab(minute=0, hour=PBEM_DIGEST_HOUR)},
    # Table talk: message emails left waiting for their reader's batch window, and the daily digest.
    "talk-sweep": {"task": "talk.tasks.sweep", "schedule": float(SWEEP_EVERY_SECONDS), "options": SWEEP_OPTIONS},
    "talk-digests": {"task": "talk.tasks.send_digests", "schedule": crontab(minute=5, hour=PBEM_DIGEST_HOUR)},
    # The lobby's ready check at each table's start time (games/lobby/ready.py).
    "lobby-sweep": {"task": "lobby.tasks.sweep", "schedule": float(SWEEP_EVERY_SECONDS), "options": SWEEP_OPTIONS},
    # Ending votes past their deadline close (games/votes).
    "votes-sweep": {"task": "votes.tasks.sweep", "schedule": float(SWEEP_EVERY_SECONDS), "options": SWEEP_OPTIONS},
}
# The lobby's limits on invitations (games/lobby/limits.py): per player and per address in any 24 hours, and
# tables a player may have waiting at once.
PBEM_LOBBY_INVITES_PER_DAY = int(os.environ.get("PBEM_LOBBY_INVITES_PER_DAY", "20"))
PBEM_LOBBY_INVITES_PER_ADDRESS = int(os.environ.get("PBEM_LOBBY_INVITES_PER_ADDRESS", "3"))
PBEM_LOBBY_OPEN_TABLES = int(os.environ.get("PBEM_LOBBY_OPEN_TABLES", "5"))
# Sign-up links My games emails to addresses that are nobody's (games/incoming/signup.py): per address in 12
# hours, per client address in an hour.
PBEM_SIGN_UPS_PER_ADDRESS = int(os.environ.get("PBEM_SIGN_UPS_PER_ADDRESS", "3"))
PBEM_SIGN_UPS_PER_CLIENT = int(os.environ.get("PBEM_SIGN_UPS_PER_CLIENT", "10"))

# --- Games -----------------------------------------------------------------------------------------
# The JSON API's rate limit per token (games/api/tokens.py): calls a minute, and how many may come at once.
PBEM_API_RATE = int(os.environ.get("PBEM_API_RATE", "120"))
PBEM_API_BURST = int(os.environ.get("PBEM_API_BURST", "30"))
PBEM_DEFAULT_DEADLINE_HOURS = int(os.environ.get("PBEM_DEFAULT_DEADLINE_HOURS", "48"))
# A reminder goes to each seat still owing an order this long before the deadline.
PBEM_REMINDER_HOURS = int(os.environ.get("PBEM_REMINDER_HOURS", "12"))
# Signed links stay valid this long after the phase's deadline (mail is sometimes read late; the
# page then shows the phase has moved on rather than a bare error).
PBEM_LINK_GRACE_HOURS = int(os.environ.get("PBEM_LINK_GRACE_HOURS", "24"))
# A strong bot's time per decision, in seconds on one core, and its iteration cap (games/play/bots.py): a
# search that reaches the cap first chooses the same order for the same game, whatever the machine. An easy
# bot searches a tenth of both.
PBEM_BOT_SECONDS = float(os.environ.get("PBEM_BOT_SECONDS", "2"))
PBEM_BOT_ITERATIONS = int(os.environ.get("PBEM_BOT_ITERATIONS", "2000"))

# --- Email -----------------------------------------------------------------------------------------
# EMAIL_PROVIDER is "smtp" (Django's SMTP backend, for a relay of your own, set by the EMAIL_* variables
# below) or names an anymail backend ("mailgun", "postmark", "sendgrid", "amazon_ses", ...) whose keys come
# from ANYMAIL_* variables. Without it, mail goes to files in var/outbox/.
EMAIL_PROVIDER = os.environ.get("EMAIL_PROVIDER", "").strip().lower()
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "pbem <turns@pbem.localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
EMAIL_OUTBOX_DIR = VAR_DIR / "outbox"
# Django's own SMTP settings, read only by EMAIL_PROVIDER=smtp. The check pbem.E006 refuses smtp without a
# host, pbem.E007 both TLS modes. The port follows the mode unless set (465 SSL, 587 STARTTLS, 25 neither);
# the timeout (seconds) keeps a relay that stops answering from holding a worker forever.
EMAIL_HOST = os.environ.get("EMAIL_HOST", "").strip()
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
EMAIL_PORT = env_int("EMAIL_PORT", 465 if EMAIL_USE_SSL else 587 if EMAIL_USE_TLS else 25)
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 30)
# DKIM signing of what goes through a relay of one's own (games/outgoing/dkim.py): the selector (a name of the
# operator's choice, published as <selector>._domainkey.<domain>), the PEM private key's file, and the signing domain
# (default: DEFAULT_FROM_EMAIL's). `manage.py dnsrecords` prints the records to publish.
PBEM_DKIM_SELECTOR = os.environ.get("PBEM_DKIM_SELECTOR", "").strip()
PBEM_DKIM_KEY_FILE = os.environ.get("PBEM_DKIM_KEY_FILE", "").strip()
PBEM_DKIM_DOMAIN = os.environ.get("PBEM_DKIM_DOMAIN", "").strip()
if EMAIL_PROVIDER == "test":
    EMAIL_BACKEND = "anymail.backends.test.EmailBackend"
elif EMAIL_PROVIDER == "smtp" and PBEM_DKIM_SELECTOR and PBEM_DKIM_KEY_FILE:
    EMAIL_BACKEND = "games.outgoing.dkim.SigningBackend"
elif EMAIL_PROVIDER == "smtp":
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
elif EMAIL_PROVIDER:
    EMAIL_BACKEND = f"anymail.backends.{EMAIL_PROVIDER}.EmailBackend"
else:
    EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    EMAIL_FILE_PATH = str(EMAIL_OUTBOX_DIR)
# Orders by email reply (games/incoming/mail/inbound.py): the address the provider routes to anymail's inbound webhook
# at /anymail/<provider>/inbound/, e.g. turns@in.example.org. Empty: replies are not offered.
# Webhooks (games/hooks/guard.py): who resolves a hook's host name (a function (host, port) -> addresses; tests
# name their own), and two settings only tests turn on: posting to this machine's loopback address (a test's
# receiver), and the authority that signed that receiver's certificate. Neither is read from the environment.
PBEM_HOOKS_RESOLVER = "games.hooks.guard.system_resolver"
PBEM_HOOKS_ALLOW_LOOPBACK = False
PBEM_HOOKS_CA_FILE: str | None = None

PBEM_REPLY_ADDRESS = os.environ.get("PBEM_REPLY_ADDRESS", "")
# Replies read from a mailbox by `manage.py mailbox` (games/incoming/mail/mailbox.py): imaps://user:password@host/INBOX.
PBEM_INBOUND_IMAP = os.environ.get("PBEM_INBOUND_IMAP", "").strip()
# A reply whose provider's spam score (SpamAssassin's scale at every provider anymail reads one from) is at least
# this is refused as spam, as SpamAssassin's own default threshold does (games/incoming/mail/replies.py, spam_verdict).
PBEM_SPAM_SCORE = float(os.environ.get("PBEM_SPAM_SCORE", "5.0"))
ANYMAIL = {key.removeprefix("ANYMAIL_"): value for key, value in os.environ.items() if key.startswith("ANYMAIL_")}

# The games' lines go to the root logger's handler, not one of their own: a Celery worker replaces the root
# handlers with its own (worker_hijack_root_logger), so each line is written once, in the worker's format,
# and once by the web server's console handler.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {"games": {"level": os.environ.get("LOG_LEVEL", "INFO")}},
}
