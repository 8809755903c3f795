"""The signed tokens in our emails' links never read as a Bitcoin address to SpamAssassin (games/outgoing/signed.py).

PDS_BTC_ID is `__BITCOIN_ID`'s pattern (Debian's 72_active.cf, read from there when SpamAssassin is installed) found
in an email's text. A token as Django writes it matches it now and then (about 1 seat link in 5,000: the one below
was found so); broken up, no string over a token's characters can match it, whatever its content, because every
stretch of it between two `~` is shorter than the shortest match. Links written before (without `~`) still open."""

from __future__ import annotations

import re
import string
from pathlib import Path
from typing import Any

import pytest
from django.core import signing
from django.urls import reverse
from hypothesis import given, settings
from hypothesis import strategies as st

from games.models import Seat
from games.outgoing import links, signed

RULES = Path("/usr/share/spamassassin/72_active.cf")
# Debian's SpamAssassin 4.0.1 (bookworm), for machines without it.
KNOWN = (
    r"\b(?<!=)(?:[13](?:(?:[-_=\s][a-km-zA-HJ-NP-Z1-9]){29,34}|[a-km-zA-HJ-NP-Z1-9]{29,34})"
    r"|bc1[acdefghjklmnpqrstuvwxyz234567890]{30,90}"
    r"|b[-_=\s]c[-_=\s]1(?:[-_=\s][acdefghjklmnpqrstuvwxyz234567890]){30,90})\b"
)
SHORTEST_MATCH = 30  # "1" or "3" and 29 more; "bc1" and 30 more is longer, the spaced spellings longer still
# What a Django token is made of (base64url, its ":" and a compressed payload's leading ".").
TOKEN_CHARACTERS = string.ascii_letters + string.digits + "-_:."
# A seat link as Django signs it (with another key than the tests'): ":18BUog…tH2-" is 31 base58 characters
# from a "1" between two word boundaries.
CAUGHT = "eyJnIjoxMzk1LCJzIjoxLCJwIjozLCJrIjoiSlV5b0Q0NXlreXlxIn0:1xaA8Y:18BUogQ4hKeJN5vSGfctD67mjLbdtH2-zyDm6ccRcFI"


def bitcoin_id() -> re.Pattern[str]:
    """The rule's pattern, as SpamAssassin compiles it ((?aa): ASCII classes and word boundaries)."""
    installed = RULES.read_text(errors="replace") if RULES.exists() else ""
    found = re.search(r"^body\s+__BITCOIN_ID\s+/(.+)/\s*$", installed, re.M)
    return re.compile(found.group(1) if found else KNOWN, re.ASCII)


RULE = bitcoin_id()


def in_email(token: str) -> list[str]:
    """The token where our emails put one: a link's path, a query (a league member's settings), a line of text."""
    return [f"Open https://pbem.example/l/{token}/ now.", f"https://pbem.example/leagues/s/me/?k={token}", token]


def test_the_rule_reads_a_token_as_django_writes_it_as_a_bitcoin_address_but_not_once_broken_up() -> None:
    assert RULE.search(in_email(CAUGHT)[0]) is not None
    assert not [text for text in in_email(signed.broken_up(CAUGHT)) if RULE.search(text)]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=TOKEN_CHARACTERS, max_size=400))
def test_no_string_of_a_tokens_characters_matches_once_broken_up(token: str) -> None:
    broken = signed.broken_up(token)
    assert broken.replace(signed.MARK, "") == token
    assert max(len(stretch) for stretch in broken.split(signed.MARK)) < SHORTEST_MATCH
    assert not [text for text in in_email(broken) if RULE.search(text)]


@pytest.mark.parametrize(
    "token",
    [
        "1" + "a" * 33,  # a base58 run of the longest length the rule takes
        "bc1" + "q" * 60,
        "b-c-1" + "-q" * 40,
        "3" + "-A" * 34,
        ":".join(["x", "3" + "z" * 30, "y"]),
    ],
)
def test_the_rules_own_spellings_are_broken_too(token: str) -> None:
    assert [text for text in in_email(token) if RULE.search(text)], "the rule reads it unbroken"
    assert not [text for text in in_email(signed.broken_up(token)) if RULE.search(text)]


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=20),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
        max_leaves=12,
    ),
    st.booleans(),
)
def test_a_signed_token_reads_back_and_never_matches(payload: Any, compress: bool) -> None:
    token = signed.dumps(payload, salt="pbem.test", compress=compress)
    assert signed.loads(token, salt="pbem.test") == payload
    assert not [text for text in in_email(token) if RULE.search(text)]
    with pytest.raises(signing.BadSignature):
        signed.loads(token, salt="pbem.other")


@pytest.mark.django_db
def test_seat_links_are_broken_up_and_one_written_before_still_opens_its_seat(make_game: Any, client: Any) -> None:
    game = make_game(humans=3)
    seat = Seat.objects.get(game=game, number=0)
    phase = game.phases.get(number=1)
    token = links.make_token(seat, phase)
    assert signed.MARK in token and links.read_token(token).seat == seat
    before = signing.dumps({"g": game.pk, "s": 0, "p": 1, "k": seat.link_key}, salt=links.SALT, compress=True)
    assert links.read_token(before).seat == seat, "a link of an email sent before still works until it expires"
    opened = client.get(reverse("games-link", args=[token]))
    assert opened.status_code == 302 and opened.url == reverse("games-game", args=[game.pk])
