"""One POST to a checked target (games/hooks/guard.py), through urllib3: a connection to the checked address
itself, TLS for the URL's own name (SNI and the certificate's check against it), no redirects, no proxies from
the environment, no retries of its own (the outbox retries: games/hooks/deliver.py), short timeouts, and at
most a few kilobytes of the answer read.

urllib3 rather than requests or httpx: it is already installed (anymail's requests is built on it), and a
connection pool to an address with `server_hostname`/`assert_hostname` set to the name is exactly "connect to
the checked address, verify the name" in two arguments. requests reaches the same only through a custom
transport adapter, and reads HTTPS_PROXY from the environment (a proxy would resolve the name again); httpx
can (its `sni_hostname` extension) but would add five packages for one call, its last release being older.
"""

from __future__ import annotations

import logging
import ssl
from dataclasses import dataclass
from functools import cache

import certifi
import urllib3
from django.conf import settings
from django.utils.translation import gettext as _

from games.hooks.guard import Target

# urllib3 logs each request's line, path included, at DEBUG: a hook's path may hold its token (Discord's,
# Slack's), so its pool logs warnings only, whatever level the server's logging is set to.
logging.getLogger("urllib3.connectionpool").setLevel(logging.WARNING)

CONNECT_SECONDS = 5.0
READ_SECONDS = 10.0
ANSWER_BYTES = 4096  # enough for an error's words; a receiver answering more is not read further
USER_AGENT = "pbem-webhooks/1"


@dataclass(frozen=True)
class Answer:
    status: int  # 0: no answer (the connection failed)
    problem: str = ""  # why it is not a success, in words safe to store and show its owner (never the URL)
    retry_after: str | None = None  # a 429's Retry-After header, as sent (games/hooks/pace.py reads it)

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


@cache
def tls_context(ca_file: str) -> ssl.SSLContext:
    """Certificates checked against certifi's authorities (or PBEM_HOOKS_CA_FILE, a test's own), TLS 1.2 at
    least: Python's defaults for a client."""
    context = ssl.create_default_context(cafile=ca_file)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    return context


def post(target: Target, body: bytes, headers: dict[str, str]) -> Answer:
    """POST `body` to `target` and say how it went. Never raises for the network's or the receiver's faults."""
    context = tls_context(settings.PBEM_HOOKS_CA_FILE or certifi.where())
    pool = urllib3.HTTPSConnectionPool(
        target.address,
        target.port,
        timeout=urllib3.Timeout(connect=CONNECT_SECONDS, read=READ_SECONDS),
        retries=False,
        ssl_context=context,
        server_hostname=target.host,
        assert_hostname=target.host,
    )
    host = target.host if target.port == 443 else f"{target.host}:{target.port}"
    sent = {"Host": host, "User-Agent": USER_AGENT, **headers}
    try:
        with pool:
            response = pool.urlopen(
                "POST", target.path, body=body, headers=sent, redirect=False, retries=False, preload_content=False
            )
            response.read(ANSWER_BYTES)
            response.release_conn()
    except urllib3.exceptions.SSLError:
        return Answer(0, _("the receiver's TLS certificate could not be verified for its name"))
    except urllib3.exceptions.NewConnectionError:  # before TimeoutError: urllib3 makes it one of those
        return Answer(0, _("could not connect to the receiver (refused or unreachable)"))
    except urllib3.exceptions.TimeoutError:
        return Answer(0, _("the receiver did not answer in time"))
    except (urllib3.exceptions.HTTPError, OSError) as error:
        return Answer(0, _("could not connect to the receiver (%(name)s)") % {"name": type(error).__name__})
    wait = response.headers.get("Retry-After") if response.status == 429 else None
    return Answer(response.status, problem_of(response.status), wait)


def problem_of(status: int) -> str:
    if 200 <= status < 300:
        return ""
    if status == 429:
        return _("the receiver asked us to slow down (429)")
    if 300 <= status < 400:
        return _("the receiver answered %(status)s, a redirect; webhooks follow no redirects") % {"status": status}
    return _("the receiver answered %(status)s") % {"status": status}
