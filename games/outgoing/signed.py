"""Signed tokens for the links our emails carry: django.core.signing's, written so that no stretch of one reads as a
Bitcoin address to a spam filter.

SpamAssassin's PDS_BTC_ID (Debian's 72_active.cf: `__BITCOIN_ID`, scored 1.0 for want of a score of its own) looks in
an email's text for a word that starts with 1 or 3 and runs on for 29 to 34 more base58 characters (no 0, O, I, l,
`-` or `_`), or starts with bc1 and runs on for 30 or more; or the same with `-`, `_`, `=` or a space between every
character. A signed token is base64: its 43-character signature, between the token's `:` and the URL's `/`, or a
stretch of it between two `-`, is such a word now and then by chance (one of our emails once scored 1.0 for it).

So a `~` is written after every CHUNK characters of the token: every word in it is then at most CHUNK characters
long (< 30), and a `~` also breaks the spellings with a separator between every character, since it is none of
them. `~` is unreserved in URLs (RFC 3986: no client escapes it) and never part of a Django token, so `loads` drops
every `~` first: a link written before this (without any) still verifies, as it did, until its own expiry.
tests/outgoing/test_signed.py checks tokens against the rule's own pattern.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.core import signing

CHUNK = 24
MARK = "~"


def broken_up(token: str) -> str:
    """`token` with MARK after every CHUNK characters."""
    return MARK.join(token[start : start + CHUNK] for start in range(0, len(token), CHUNK))


def dumps(obj: Any, *, salt: str, compress: bool = False) -> str:
    """django.core.signing.dumps, broken up."""
    return broken_up(signing.dumps(obj, salt=salt, compress=compress))


def loads(token: str, *, salt: str, max_age: timedelta | int | None = None) -> Any:
    """django.core.signing.loads of a token written by `dumps` (or by Django itself, before): BadSignature,
    SignatureExpired as there."""
    return signing.loads(token.replace(MARK, ""), salt=salt, max_age=max_age)
