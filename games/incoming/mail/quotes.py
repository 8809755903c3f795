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

from games.outgoing.order_text import key

QUOTE_MARK = "_" * 32  # how games/incoming/mail/replies.py writes the start of a quote found in HTML
QUOTED = re.compile(r"^(>|--$|_{8,}$|={8,}$)")  # "=====" above a French webmail's "Message du …" block
DASHED = re.compile(r"^-{3,}\s*[^-\s].{1,60}?\s*-{3,}$")  # "-----Original Message-----" in any language
HEADER_LINE = re.compile(r"^\*?[^\s:*][^:]{0,40}?\s?\*?:\*?\s")  # "Von: ", "Objet : ", "*From:* "
# Every language mail-parser-reply knows: its header and attribution patterns, compiled once.
LIBRARY_HEADERS = LibraryMessage(text="", languages=sorted(MAIL_LANGUAGES)).HEADER_REGEX
# A phone's or a client's own last line, "Sent from my iPhone", "Get Outlook for iOS", "Gesendet von Outlook für
# Android": the library's "sent from" phrases in every language it knows, and what phones write that it lacks.
PHONE_PHRASES = (
    "Sent from Mail for Windows",
    "Von meinem (?:iPhone|iPad|Samsung|Smartphone|Handy)",
    "Envoyé de mon",
    "Enviado do meu",
    "Enviado de mi",
    "Inviato dal mio",
    "Verstuurd vanaf mijn",
    "Отправлено (?:с|из)",
    "Надіслано з",
    "Wysłane z",
    "iPhone(?:'|’)umdan",
    ".{1,30} ile gönderildi",  # "Windows için Posta ile gönderildi"
    "iPhoneから送信",
)
SENT_FROM = re.compile(
    "^(?:"
    + "|".join([*(found for lang in MAIL_LANGUAGES.values() if (found := lang.get("sent_from"))), *PHONE_PHRASES])
    + r")\b.{0,60}$",
    re.IGNORECASE,
)
# A sign-off that starts a signature after a blank line ("Best regards", "Thanks!", "Mit freundlichen Grüßen"):
# the library's phrases in every language it knows, their trailing comma optional.
SIGN_OFF = re.compile(
    "^(?:"
    + "|".join(
        phrase.rstrip(",，.")
        for lang in MAIL_LANGUAGES.values()
        for phrase in lang.get("signatures") or []
        if not phrase.startswith("/")
    )
    + r")\b.{0,40}$",
    re.IGNORECASE,
)
# An attribution by its shape, in any language: a line (or two, its address wrapped) ending in ":" that holds a
# date and a time ("Le mer. 2 déc. 2026 à 17:40, … a écrit :", "30.09.2017, 18.30, …:", "W dniu 2.12.2026 o
# 17:40 … napisał:"); and a header block's date line.
DATE = re.compile(r"\b(?:\d{1,4}[./-]\d{1,2}[./-]\d{1,4}|(?:19|20)\d\d)\b|\d{4}年")
TIME = re.compile(r"\b\d{1,2}[:.]\d{2}\b")
ENDS_ATTRIBUTION = re.compile(r"[:：]\s*$")
HEADER_BLOCK = 3  # so many header lines in a row, one with a time, are a quoted email's header block
# Clients break plain text at 72 to 78 columns (RFC 5322's 78, Thunderbird's 72, Outlook's 76): a line that,
# with the next line's first word, would pass this many characters may have been broken there.
WRAP_AT = 66


@dataclass(frozen=True)
class Ours:
    """What our email shows of itself when quoted: the addresses it came from and asked replies to, and the
    game's subject and sender's name."""

    addresses: tuple[str, ...] = ()
    subject: str = ""
    names: tuple[str, ...] = ()  # its sender's display name: a header line "От: pbem" (no address) is ours
    signers: tuple[str, ...] = ()  # the reply's writer's name: alone on a line after a blank one, it signs


NONE_OF_OURS = Ours()  # a reply read without knowing the email it answers (table talk): shapes and patterns only


def is_field(line: str, keys: Collection[str]) -> bool:
    """Whether `line` is "name: value" for one of the prompt's fields (`keys`: their names and labels as keys)."""
    name, sep, _ = line.partition(":")
    return bool(sep) and key(name) in keys


def _ours(line: str, ours: Ours) -> bool:
    lowered = line.lower()
    if any(address and address.lower() in lowered for address in ours.addresses):
        return True
    header = HEADER_LINE.match(line)
    if header is None:
        return False
    # A header line whose value is the subject ("Betreff: Re: <title> #4"), not a sentence that names it; or
    # whose value is our sender's name, alone or linked ("От: pbem", "De : pbem <mailto:…>").
    value = lowered[header.end() :].strip(" *")
    if ours.subject and lowered.endswith(ours.subject.lower()):
        return True
    return any(name and re.match(rf"{re.escape(name.lower())}(?:$|[\s<\[(,;])", value) for name in ours.names)


def _attribution(lines: list[str], i: int) -> bool:
    """Whether line `i` ends an attribution by its shape: it ends in ":" and, alone or with the line above (an
    address wrapped), holds a date and a time."""
    if not ENDS_ATTRIBUTION.search(lines[i]):
        return False
    text = " ".join(lines[max(0, i - 1) : i + 1]) if i and lines[i - 1] else lines[i]
    return DATE.search(text) is not None and TIME.search(text) is not None


def _header_block(lines: list[str], i: int, order: set[int]) -> bool:
    """Whether a header block starts at line `i`: HEADER_BLOCK header lines in a row, none of the order, one
    with a time ("Sent: …", "Gönderildi: …"), whatever the language."""
    block = lines[i : i + HEADER_BLOCK]
    return (
        len(block) == HEADER_BLOCK
        and all(HEADER_LINE.match(line) for line in block)
        and not order & set(range(i, i + HEADER_BLOCK))
        and any(TIME.search(line) for line in block)
    )


def order_lines_at(lines: list[str], keys: Collection[str], spanning: Collection[str] = ()) -> set[int]:
    """The indexes of the lines that are the player's order, never a quote's header: its field lines and the
    lines right under a field whose value may span lines (`spanning`: their keys), up to a blank line or a line
    whose shape starts a quote or signature whatever it follows (">", "-- ", "Sent from my iPhone")."""
    found: set[int] = set()
    going_on = False
    for i, line in enumerate(lines):
        if is_field(line, keys):
            found.add(i)
            going_on = key(line.partition(":")[0]) in spanning
        elif going_on and line and not (QUOTED.match(line) or DASHED.match(line) or SENT_FROM.match(line)):
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
    at = next((i for i, line in enumerate(lines[:at]) if _starts_quote(lines, i, order, ours)), at)
    if at < len(lines) and HEADER_LINE.match(lines[at]):
        # The rest of a header block above the line found ("Von:", "Gesendet:", "An:" ...).
        while at > 0 and lines[at - 1] and HEADER_LINE.match(lines[at - 1]) and at - 1 not in order:
            at -= 1
    elif 0 < at < len(lines) and lines[at - 1] and at - 1 not in order and _attribution(lines, at):
        at -= 1  # an attribution whose address wrapped: "On …, pbem <" / "turns@…> wrote:"
    # A line that introduces a header block or a ">" quote ("Begin forwarded message:", "Ivan wrote:"), a blank
    # line apart at most; above an attribution, a line ending in ":" is the player's ("Here is my order:").
    above = at - 1 if at > 0 and lines[at - 1] else at - 2
    introduced = at < len(lines) and (HEADER_LINE.match(lines[at]) or lines[at].startswith(">"))
    if introduced and above >= 0 and ENDS_ATTRIBUTION.search(lines[above]) and above not in order:
        at = above
    return at


def _starts_quote(lines: list[str], i: int, order: set[int], ours: Ours) -> bool:
    """Whether the quote or a signature starts at line `i` by its shape, the same in every language; a sign-off
    or the writer's name alone only after a blank line."""
    line = lines[i]
    if i in order:
        return False
    signs = i > 0 and not lines[i - 1] and (SIGN_OFF.match(line) or _signed(line, ours))
    return bool(
        QUOTED.match(line)
        or DASHED.match(line)
        or SENT_FROM.match(line)
        or signs
        or _attribution(lines, i)
        or _header_block(lines, i, order)
    )


def _signed(line: str, ours: Ours) -> bool:
    """Whether `line` is the writer's name or its first word alone ("Player 1", "Ann", "- Ann")."""
    said = key(line)
    names = {key(name) for signer in ours.signers for name in (signer, signer.split()[0] if signer.split() else "")}
    return bool(said) and said in names


def reply_lines(text: str, ours: Ours = NONE_OF_OURS, keys: Collection[str] = ()) -> list[str]:
    """The lines the player wrote (stripped, blank ones left out)."""
    return [line for line in written(text, ours, keys) if line]


def written(
    text: str, ours: Ours = NONE_OF_OURS, keys: Collection[str] = (), spanning: Collection[str] = ()
) -> list[str]:
    """The lines above the quote, stripped, blank ones kept (they end a value that spans lines)."""
    lines = [line.replace("\xa0", " ").strip() for line in text.splitlines()]
    return lines[: quote_start(lines, ours, keys, spanning)]


def bottom_posted(
    text: str, ours: Ours = NONE_OF_OURS, keys: Collection[str] = (), spanning: Collection[str] = ()
) -> str:
    """What a bottom-posted reply wrote under the quote ("" if it is not one): the text must begin with the
    quote, an attribution at most above a block of ">" lines, and the reply is what follows that block."""
    lines = [line.replace("\xa0", " ").strip() for line in text.splitlines()]
    at = quote_start(lines, ours, keys, spanning)
    if any(lines[:at]):
        return ""
    first = next((i for i in range(at, min(at + 4, len(lines))) if lines[i].startswith(">")), None)
    if first is None:
        return ""
    end = first
    while end < len(lines) and (lines[end].startswith(">") or not lines[end]):
        end += 1
    return "\n".join(lines[end:])
