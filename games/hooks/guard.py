"""Where a webhook may go: an https URL whose host resolves only to public addresses. A hook's URL is typed by
whoever adds it, and the server then makes requests to it, so without this anyone could have the server post
to its own machine, its private network or a cloud's metadata service (server-side request forgery).

The URL is checked when it is saved (a clear message, nothing stored) and again at every send, since a name's
addresses can change after it was saved (DNS rebinding). At a send the name is resolved once, every address
it gives is checked, and the request goes to the checked address itself (games/hooks/transport.py), with the
name kept for TLS (SNI and the certificate's check) and the Host header: nothing resolves it a second time.
Redirects are not followed (a 3xx answer is a failed delivery), so no answer can lead the request elsewhere.

The resolver is a seam: PBEM_HOOKS_RESOLVER names a function (host, port) -> addresses, the system's
getaddrinfo by default; tests name one that answers what they need (a private address for a public name).
PBEM_HOOKS_ALLOW_LOOPBACK lets tests reach a receiver on this machine; it is off unless a test turns it on.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.utils.module_loading import import_string
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], list[str]]

MAX_URL = 500


class Refused(ValueError):
    """A URL or address a hook may not use; the message says why, for whoever typed it, and never quotes the
    URL (its path may hold a token)."""


# Named ranges first, so a refusal says which kind of address it met (in the reader's language); anything else that
# is not globally routable (documentation, benchmarking, 6to4 relays, ...) is caught by `is_global` after these.
CLASSES: tuple[tuple[Any, tuple[str, ...]], ...] = (
    (gettext_lazy("a cloud metadata address"), ("169.254.169.254/32", "fd00:ec2::254/128", "100.100.100.200/32")),
    (gettext_lazy("this machine's own (loopback) address"), ("127.0.0.0/8", "::1/128")),
    (gettext_lazy("an unspecified address"), ("0.0.0.0/8", "::/128")),
    (gettext_lazy("a private network's address"), ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7")),
    (gettext_lazy("a link-local address"), ("169.254.0.0/16", "fe80::/10")),
    (gettext_lazy("a carrier-grade NAT (shared) address"), ("100.64.0.0/10",)),
    (gettext_lazy("a multicast address"), ("224.0.0.0/4", "ff00::/8")),
    (gettext_lazy("a reserved address"), ("240.0.0.0/4", "192.0.0.0/24", "198.18.0.0/15")),
)
NETWORKS = [(name, ipaddress.ip_network(net)) for name, nets in CLASSES for net in nets]
LOOPBACK = CLASSES[1][0]


@dataclass(frozen=True)
class Target:
    """A checked URL: where to connect (`address`, checked) and what to ask for there."""

    host: str  # the name, for TLS and the Host header
    port: int
    path: str  # with its query
    address: str


def embedded(address: IPAddress) -> IPAddress:
    """The IPv4 address inside an IPv6 one that carries it (IPv4-mapped, 6to4, NAT64's well-known prefix), which
    is where the packets end up; otherwise the address itself."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return address.ipv4_mapped
        if address.sixtofour is not None:
            return address.sixtofour
        if address in ipaddress.ip_network("64:ff9b::/96"):
            return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return address


def address_refusal(text: str) -> str | None:
    """Why a hook may not be sent to the address `text` (None: it is public)."""
    address = embedded(ipaddress.ip_address(text.split("%", 1)[0]))  # a zone index (fe80::1%eth0) is link-local
    for name, network in NETWORKS:
        if address.version == network.version and address in network:
            if name is LOOPBACK and settings.PBEM_HOOKS_ALLOW_LOOPBACK:
                return None
            return str(name)  # in the reader's language
    if not address.is_global:
        return _("an address that is not public")
    return None


def is_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def system_resolver(host: str, port: int) -> list[str]:
    """Every address the system's resolver gives `host` (IPv4 and IPv6)."""
    found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    return [str(info[4][0]) for info in found]


def resolver() -> Resolver:
    resolve: Resolver = import_string(settings.PBEM_HOOKS_RESOLVER)
    return resolve


def parse(url: str) -> tuple[str, int, str]:
    """The host, port and path of an https URL, or Refused saying what is wrong with it."""
    if len(url) > MAX_URL:
        raise Refused(_("A webhook's address can be at most %(MAX_URL)s characters.") % {"MAX_URL": MAX_URL})
    try:
        parts = urlsplit(url.strip())
        port = parts.port or 443
    except ValueError:
        raise Refused(_("That is not a web address (it should start with https://).")) from None
    if parts.scheme != "https":
        raise Refused(_("A webhook's address must start with https:// (deliveries are always encrypted)."))
    if not parts.hostname:
        raise Refused(_("That address names no host."))
    if parts.username or parts.password:
        raise Refused(_("A webhook's address may not hold a user name or password before the host."))
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return parts.hostname.rstrip("."), port, path


def check(url: str) -> Target:
    """The URL's target, with every address its host resolves to checked: Refused if any is not public
    (a name that answers a public and a private address could be steered to the private one)."""
    host, port, path = parse(url)
    try:
        addresses = [host] if is_literal(host) else resolver()(host, port)
    except (OSError, UnicodeError):
        raise Refused(
            _("The name %(host)s could not be found (a typo, or its DNS is down).") % {"host": host}
        ) from None
    if not addresses:
        raise Refused(_("The name %(host)s has no address.") % {"host": host})
    for address in addresses:
        try:
            why = address_refusal(address)
        except ValueError:
            raise Refused(_("%(host)s gave an answer that is not an address.") % {"host": host}) from None
        if why is not None:
            raise Refused(
                _("Webhooks go only to public addresses; %(host)s leads to %(why)s.") % {"host": host, "why": why}
            )
    return Target(host=host, port=port, path=path, address=addresses[0])
