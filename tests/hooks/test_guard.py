"""Where a webhook may post (games/hooks/guard.py): https to public addresses only, checked on the URL and on
every address its name resolves to, through the resolver seam (tests/support/hooks_receiver.py's `resolve`) and
through the system's own resolver for names it answers without a network (localhost, numeric forms)."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import translation

from games.hooks import guard
from tests.support import hooks_receiver

# Each class of address a hook may not reach, by one or more examples (IPv4 and IPv6, and IPv4 wrapped in IPv6).
REFUSED = {
    "loopback": ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"],
    "private": [
        "10.1.2.3",
        "172.16.5.4",
        "192.168.1.1",
        "fd12:3456::1",
        "::ffff:10.0.0.1",
        "2002:0a00:0001::1",
        "64:ff9b::a00:1",
    ],
    "link-local": ["169.254.1.1", "fe80::1"],
    "carrier-grade NAT": ["100.64.0.1", "100.127.255.254"],
    "multicast": ["224.0.0.1", "239.1.2.3", "ff02::1"],
    "reserved": ["240.0.0.1", "255.255.255.255", "192.0.0.8", "198.18.0.1"],
    "unspecified": ["0.0.0.0", "::"],  # noqa: S104  (an address under test, not one bound to)
    "metadata": ["169.254.169.254", "fd00:ec2::254", "100.100.100.200"],
    "not public": ["192.0.2.1", "198.51.100.7", "203.0.113.9", "2001:db8::1"],
}
CLASS_WORDS = {
    "loopback": "loopback",
    "private": "private network",
    "link-local": "link-local",
    "carrier-grade NAT": "carrier-grade NAT",
    "multicast": "multicast",
    "reserved": "reserved",
    "unspecified": "unspecified",
    "metadata": "cloud metadata",
    "not public": "not public",
}
PUBLIC = ["93.184.215.14", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"]


@pytest.fixture(autouse=True)
def _seam(settings: Any) -> None:
    settings.PBEM_HOOKS_RESOLVER = "tests.support.hooks_receiver.resolve"
    hooks_receiver.ANSWERS.clear()


def literal(address: str) -> str:
    return f"https://[{address}]/hook" if ":" in address else f"https://{address}/hook"


@pytest.mark.parametrize(("kind", "address"), [(k, a) for k, found in REFUSED.items() for a in found])
def test_each_class_of_address_is_refused_by_literal_and_by_a_name_resolving_to_it(kind: str, address: str) -> None:
    with pytest.raises(guard.Refused, match=CLASS_WORDS[kind]):
        guard.check(literal(address))
    # A public-looking name whose DNS answers the address: refused after resolving.
    hooks_receiver.ANSWERS["chat.example.com"] = [address]
    with pytest.raises(guard.Refused, match=CLASS_WORDS[kind]) as refused:
        guard.check("https://chat.example.com/api/webhooks/123/TOKEN-abc")
    assert "TOKEN" not in str(refused.value), "a refusal never quotes the URL's path"


@pytest.mark.parametrize("address", PUBLIC)
def test_a_public_address_is_the_target_connected_to(address: str) -> None:
    hooks_receiver.ANSWERS["chat.example.com"] = [address]
    target = guard.check("https://chat.example.com:8443/api/x?y=1")
    assert target == guard.Target(host="chat.example.com", port=8443, path="/api/x?y=1", address=address)


def test_a_name_with_one_private_address_among_public_ones_is_refused() -> None:
    # Else the connection could be steered to whichever address answers.
    hooks_receiver.ANSWERS["chat.example.com"] = ["93.184.215.14", "10.0.0.7"]
    with pytest.raises(guard.Refused, match="private network"):
        guard.check("https://chat.example.com/x")


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("http://chat.example.com/x", "must start with https://"),
        ("ftp://chat.example.com/x", "must start with https://"),
        ("chat.example.com/x", "must start with https://"),
        ("https:///x", "names no host"),
        ("https://user:pw@chat.example.com/x", "user name or password"),
        ("https://chat.example.com:99999/x", "not a web address"),
        ("https://chat.example.com/" + "a" * 600, "at most 500 characters"),
        ("https://nowhere.example.com/x", "could not be found"),
    ],
)
def test_malformed_or_unresolvable_urls_are_refused_with_a_reason(url: str, words: str) -> None:
    hooks_receiver.ANSWERS["chat.example.com"] = ["93.184.215.14"]
    with pytest.raises(guard.Refused, match=words):
        guard.check(url)


@pytest.mark.parametrize("url", ["https://localhost/x", "https://2130706433/x", "https://0x7f.1/x", "https://[::1]/x"])
def test_the_system_resolver_finds_loopback_behind_other_spellings(settings: Any, url: str) -> None:
    settings.PBEM_HOOKS_RESOLVER = "games.hooks.guard.system_resolver"
    with pytest.raises(guard.Refused, match="loopback"):
        guard.check(url)


def test_loopback_is_allowed_only_by_the_test_setting_which_is_off_by_default(settings: Any) -> None:
    import pbem.settings  # noqa: PLC0415  (the module's own value, whatever a test set)

    assert pbem.settings.PBEM_HOOKS_ALLOW_LOOPBACK is False
    assert pbem.settings.PBEM_HOOKS_CA_FILE is None
    assert pbem.settings.PBEM_HOOKS_RESOLVER == "games.hooks.guard.system_resolver"
    hooks_receiver.ANSWERS["hooks.test"] = ["127.0.0.1"]
    with pytest.raises(guard.Refused, match="loopback"):
        guard.check("https://hooks.test/x")
    settings.PBEM_HOOKS_ALLOW_LOOPBACK = True
    assert guard.check("https://hooks.test/x").address == "127.0.0.1"
    # It opens loopback only: every other class stays refused.
    hooks_receiver.ANSWERS["hooks.test"] = ["10.0.0.1"]
    with pytest.raises(guard.Refused, match="private network"):
        guard.check("https://hooks.test/x")


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("de", "Webhooks gehen nur an öffentliche Adressen; 10.1.2.3 führt zu der Adresse eines privaten Netzes."),
        ("fr", "l’adresse d’un réseau privé"),
    ],
)
def test_the_kind_of_address_is_named_in_the_readers_language(language: str, words: str) -> None:
    with translation.override(language), pytest.raises(guard.Refused) as refused:
        guard.check("https://10.1.2.3/hook")
    assert words in str(refused.value)
