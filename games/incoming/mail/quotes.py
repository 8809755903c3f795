"""Where what a player wrote in a reply ends: above the quoted email, its header block or attribution, a
signature, in whatever language the mail client speaks.

The quoted email is found three ways, and the earliest wins:
- by its shape, the same in every language: a ">" line, a "-- " signature line, Outlook's line of underscores
  (games/incoming/mail/replies.py writes one for the HTML's <hr> and Outlook's reply block), a line of dashes around
  words ("-----Original Message-----", "---------- Forwarded message ---------", "-----Ursprüngliche Nachricht-----");
- by what our own email shows of itself there: our sender's or the reply address (in an attribution or a From
  line) or a header line ending in the game's subject (the header block's Subject line in any language), with
  the header lines above it;
- by mail-parser-reply's header patterns, in every language it knows ("Am … schrieb …:", "Von:"/"Gesendet:"…).
A line that introduces the quote ("Begin forwarded message:", "Le … a écrit :") goes with it. A line of the
order (a field line, or a line of a value that spans lines) is never taken for a quote's header: what the player
wrote is not thrown away.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from mailparser_reply.constants import MAIL_LANGUAGES
from mailparser_reply.parser import EmailMessage as LibraryMessage

QUOTE_MARK = "_" * 32  # how games/incoming/mail/replies.py writes the start of a quote found in HTML
QUOTED = re.compile(r"^(>|--$|_{8,}$)")
DASHED = re.compile(r"^-{3,}\s*[^-\s].{1,60}?\s*-{3,}$")  # "-----Original Message-----" in any language
HEADER_LINE = re.compile(r"^\*?[^\s:*][^:]{0,40}?\s?\*?:\*?\s")  # "Von: ", "Objet : ", "*From:* "
# Every language mail-parser-reply knows: its header and attribution patterns, compiled once.
LIBRARY_HEADERS = LibraryMessage(text="", languages=sorted(MAIL_LANGUAGES)).HEADER_REGEX
# Clients break plain text at 72 to 78 columns (RFC 5322's 78, Thunderbird's 72, Outlook's 76): a line that,
# with the next line's first word, would pass this many characters may have been broken there.
WRAP_AT = 66


@dataclass(frozen=True)
class Ours:
    """What our email shows of itself when quoted: the addresses it came from and asked replies to, and the
    game's subject."""

    addresses: tuple[str, ...] = ()
    subject: str = ""


NONE_OF_OURS = Ours()  # a reply read without knowing the email it answers (table talk): shapes and patterns only


def key(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def is_field(line: str, keys: Collection[str]) -> bool:
    """Whether `line` is "name: value" for one of the prompt's fields (`keys`: their names and labels as keys)."""
    name, sep, _ = line.partition(":")
    return bool(sep) and key(name) in keys


def _ours(line: str, ours: Ours) -> bool:
    lowered = line.lower()
    if any(address and address.lower() in lowered for address in ours.addresses):
        return True
    # A header line whose value is the subject ("Betreff: Re: <title> #4"), not a sentence that names it.
    return bool(ours.subject) and HEADER_LINE.match(line) is not None and lowered.endswith(ours.subject.lower())


def order_lines_at(lines: list[str], keys: Collection[str], spanning: Collection[str] = ()) -> set[int]:
    """The indexes of the lines that are the player's order, never a quote's header: its field lines and the
    lines right under a field whose value may span lines (`spanning`: their keys), up to a blank line."""
    found: set[int] = set()
    going_on = False
    for i, line in enumerate(lines):
        if is_field(line, keys):
            found.add(i)
            going_on = key(line.partition(":")[0]) in spanning
        elif going_on and line:
            found.add(i)
        else:
            going_on = False
    return found


def _library_start(lines: list[str], order: set[int]) -> int:
    """The first line where mail-parser-reply finds a header or attribution (len(lines) if none)."""
    text = "\n".join(lines)
    for found in LIBRARY_HEADERS.finditer(text):
        start = found.start() + (text[found.start() : found.start() + 1] == "\n")
        at = text.count("\n", 0, start)
        if at not in order:
            return at
    return len(lines)


def quote_start(
    lines: list[str], ours: Ours = NONE_OF_OURS, keys: Collection[str] = (), spanning: Collection[str] = ()
) -> int:
    """The index of the first line of `lines` (stripped) that is not the player's own."""
    order = order_lines_at(lines, keys, spanning)
    # What shows our address or subject is no step of a value, even right under one: only a field line is kept.
    own = (i for i, line in enumerate(lines) if _ours(line, ours) and not is_field(line, keys))
    at = min(_library_start(lines, order), next(own, len(lines)))
    at = next((i for i, line in enumerate(lines[:at]) if QUOTED.match(line) or DASHED.match(line)), at)
    if at < len(lines) and HEADER_LINE.match(lines[at]):
        # The rest of a header block above the line found ("Von:", "Gesendet:", "An:" ...).
        while at > 0 and lines[at - 1] and HEADER_LINE.match(lines[at - 1]) and at - 1 not in order:
            at -= 1
    # A line that introduces the quote ("Begin forwarded message:", "On … wrote:"), a blank line apart at most.
    above = at - 1 if at > 0 and lines[at - 1] else at - 2
    if at < len(lines) and above >= 0 and lines[above].endswith(":") and above not in order:
        at = above
    return at


def reply_lines(text: str, ours: Ours = NONE_OF_OURS, keys: Collection[str] = ()) -> list[str]:
    """The lines the player wrote (stripped, blank ones left out)."""
    return [line for line in written(text, ours, keys) if line]


def written(
    text: str, ours: Ours = NONE_OF_OURS, keys: Collection[str] = (), spanning: Collection[str] = ()
) -> list[str]:
    """The lines above the quote, stripped, blank ones kept (they end a value that spans lines)."""
    lines = [line.replace("\xa0", " ").strip() for line in text.splitlines()]
    return lines[: quote_start(lines, ours, keys, spanning)]
