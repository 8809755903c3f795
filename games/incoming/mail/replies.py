"""What a reply says, as real mail clients write it: the text the player typed, whether a program sent it,
whether a spam filter flagged it, and the order in it. Pure functions over anymail's parsed message;
games/incoming/mail/inbound.py does the rest.

- The text is the first text/plain part, with format=flowed (RFC 3676) soft line breaks joined, and the HTML
  read as text. The text part is read unless it is empty, or a field line in it may have been broken by the
  client (games/incoming/mail/quotes.py, broken_line): then the HTML, which no client breaks; without HTML such a reply
  is refused, never read as a different order.
- What the player wrote is what comes before the quoted email, its header block or their signature, in any
  language (games/incoming/mail/quotes.py).
- A message is automatic when its headers say so (automatic_marker; README "Replies by email" gives why).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any

from anymail.inbound import AnymailInboundMessage

from games.incoming.mail.quotes import NONE_OF_OURS, QUOTE_MARK, Ours, broken_line, is_field, key, reply_lines, written

# --- Automatic messages (RFC 3834 and the conventions of common auto-responders) -----------------------------------

BULK_PRECEDENCE = {"bulk", "junk", "list", "auto_reply"}
# Exchange asks, with these, that no automatic reply be sent to the message: a receipt would be one.
SUPPRESSES_REPLIES = {"all", "oof", "autoreply"}


def automatic_marker(message: AnymailInboundMessage) -> str | None:
    """The header that marks the message as sent by a program rather than typed by a player, or None."""

    def value(name: str) -> str | None:
        found = message.get(name)
        return None if found is None else str(found).strip().lower()

    auto_submitted = value("Auto-Submitted")
    if auto_submitted is not None and auto_submitted.partition(";")[0].strip() != "no":
        return "Auto-Submitted"
    if value("Precedence") in BULK_PRECEDENCE:
        return "Precedence"
    for name in ("X-Autoreply", "X-Autorespond"):
        if value(name) not in (None, "no", "false", "0"):
            return name
    if SUPPRESSES_REPLIES & set(re.split(r"[\s,]+", value("X-Auto-Response-Suppress") or "")):
        return "X-Auto-Response-Suppress"
    if value("List-Id") is not None:
        return "List-Id"
    if message.envelope_sender is not None and str(message.envelope_sender).strip("<> ") == "":
        return "an empty envelope sender"  # bounces and auto-replies are sent from <>
    return None


# --- Spam verdicts, as providers and the filters on the way write them ------------------------------------------------

# SpamAssassin's headers (X-Spam-Status "Yes, score=9.0 required=5.0 tests=...", X-Spam-Flag "YES"), which
# Postmark passes on and other filters add, and Mailgun's flag: the verdict is the first word of the value.
SPAM_FLAGS = ("X-Spam-Status", "X-Spam-Flag", "X-Mailgun-Sflag")


def spam_verdict(message: AnymailInboundMessage, threshold: float) -> str | None:
    """Why the message counts as spam, or None: anymail's own verdict (Postmark's and Mailgun's flags when exactly
    "Yes", Amazon SES's spamVerdict FAIL); any spam header whose verdict is yes, however it goes on; or the
    provider's score (Postmark, Mailgun, SendGrid, Mailjet, Mandrill, Brevo: SpamAssassin's scale) at
    `threshold` or above."""
    if message.spam_detected is True:
        return "the provider's verdict"
    for name in SPAM_FLAGS:
        for value in message.get_all(name) or []:
            if str(value).split(",", 1)[0].split(";", 1)[0].strip().lower() in {"yes", "true"}:
                return name
    try:
        score = float(message.spam_score) if message.spam_score is not None else None
    except (TypeError, ValueError):
        score = None
    if score is not None and score >= threshold:
        return f"score {score:g}"
    return None


# --- The text ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Texts:
    """A reply's text part (format=flowed text joined) and its HTML read as text; either may be empty."""

    plain: str
    flowed: bool
    html: str


def texts(message: AnymailInboundMessage) -> Texts:
    plain, flowed = "", False
    for part in message.walk():
        if part.get_content_type() == "text/plain" and not part.is_attachment():
            plain = part.get_content_text() or ""
            flowed = str(part.get_param("format", "")).lower() == "flowed"
            if flowed:
                plain = unflow(plain, delsp=str(part.get_param("delsp", "")).lower() == "yes")
            break
    return Texts(plain, flowed, html_to_text(message.html or ""))


def reply_text(message: AnymailInboundMessage) -> str:
    """The reply's text: its first text/plain part (flowed text joined), else its HTML read as text."""
    found = texts(message)
    return found.plain if found.plain.strip() else found.html


def unflow(text: str, delsp: bool = False) -> str:
    """Join format=flowed text (RFC 3676): a line ending in a space continues on the next line of the same
    quote depth (with delsp=yes that space was added by the sender and goes); "-- " is never continued."""
    lines: list[tuple[int, str]] = []
    soft = False
    for raw in text.split("\n"):
        content = raw.lstrip(">")
        depth = len(raw) - len(content)
        content = content.removeprefix(" ")  # space-stuffing
        if soft and lines and lines[-1][0] == depth:
            lines[-1] = (depth, lines[-1][1] + content)
        else:
            lines.append((depth, content))
        soft = content.endswith(" ") and content != "-- "
        if soft and delsp:
            lines[-1] = (depth, lines[-1][1][:-1])
    return "\n".join((">" * depth + " " if depth else "") + content for depth, content in lines)


def _starts_quote(tag: str, attrs: list[tuple[str, str | None]]) -> bool:
    """Where a client's HTML puts the quoted email, before any <blockquote>: Outlook's rule (<hr>) and reply
    block (divRplyFwdMsg, or a div under a top border, Outlook for Windows'), Gmail's and Thunderbird's
    attribution (gmail_quote, moz-cite-prefix), Yahoo's quote."""
    found = dict(attrs)
    classes = set((found.get("class") or "").split())
    style = (found.get("style") or "").replace(" ", "").lower()
    return (
        tag == "hr"
        or found.get("id") in {"divRplyFwdMsg", "appendonsend"}
        or bool(classes & {"gmail_quote", "moz-cite-prefix", "yahoo_quoted"})
        or (tag == "div" and "border-top:solid" in style)
    )


class _HtmlText(HTMLParser):
    """HTML as a mail client shows it, in lines: block elements and <br> break lines, whitespace collapses,
    nothing in <head>, <style> or <script> shows, each outermost <blockquote> (the quoted email, in Gmail,
    Apple Mail and Thunderbird) reads as one ">" line, and a client's mark of where the quote starts as a line
    of underscores (QUOTE_MARK)."""

    BREAKS = {"br", "p", "div", "tr", "li", "ul", "ol", "table", "hr", "pre", "h1", "h2", "h3", "h4", "h5", "h6"}
    HIDDEN = {"head", "style", "script", "title", "template"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.chunks: list[str] = []
        self.hidden = 0
        self.quoted = 0

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag in self.HIDDEN:
            self.hidden += 1
        elif tag == "blockquote":
            if not self.quoted:
                self.chunks.append("\n>\n")
            self.quoted += 1
        elif not self.hidden and not self.quoted and _starts_quote(tag, attrs):
            self.chunks.append(f"\n{QUOTE_MARK}\n")
        elif tag in self.BREAKS:
            self.chunks.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        elif tag == "blockquote":
            self.quoted = max(0, self.quoted - 1)
        elif tag in self.BREAKS - {"br"}:
            self.chunks.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.hidden and not self.quoted:
            self.chunks.append(re.sub(r"\s+", " ", data))


def html_to_text(html: str) -> str:
    parser = _HtmlText()
    parser.feed(html)
    parser.close()
    lines = (line.strip() for line in "".join(parser.chunks).replace("\xa0", " ").split("\n"))
    return "\n".join(line for line in lines if line)


# --- Answering: the thread -------------------------------------------------------------------------

MESSAGE_ID = re.compile(r"<[^<>\s@]+@[^<>\s@]+>")
MAX_REFERENCES = 10


def thread_headers(message_id: str, references: str, root: str) -> dict[str, str]:
    """In-Reply-To and References of an answer to a message (RFC 5322 3.6.4): its own References, or the game's
    thread root when it has none, then its Message-ID; only well-formed ids pass, the list kept short."""
    parent = MESSAGE_ID.fullmatch(message_id.strip())
    if parent is None:
        return {"In-Reply-To": root, "References": root}
    chain = [found for found in MESSAGE_ID.findall(references) if found != parent.group()] or [root]
    if len(chain) >= MAX_REFERENCES:
        chain = [chain[0], *chain[-(MAX_REFERENCES - 2) :]]
    return {"In-Reply-To": parent.group(), "References": " ".join([*chain, parent.group()])}


# --- The order in it --------------------------------------------------------------------------------------------------


def choice_value(spec: dict[str, Any], word: str) -> str:
    """The value of the choice of `spec` that `word` names: its value as written (in any case), else its value
    or label with punctuation ignored; else `word` itself, for `validate` to refuse. The value as written comes
    first, since keys alone confuse values that differ only in punctuation ("jade+1", "jade-1")."""
    written = word.strip()
    for choice in spec["choices"]:
        if choice["value"].strip().lower() == written.lower():
            return str(choice["value"])
    for part in ("value", "label"):
        for choice in spec["choices"]:
            if key(choice[part]) == key(written):
                return str(choice["value"])
    return written


def field_keys(prompt: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The prompt's fields by their names and labels as keys (games/incoming/mail/quotes.py key): how a line names
    one."""
    fields = {}
    for spec in prompt["fields"]:
        fields[key(spec["name"])] = spec
        fields[key(spec["label"])] = spec
    return fields


@dataclass(frozen=True)
class Reading:
    """What a reply says for a prompt: the lines read as the player's own, the order in them (a field given twice
    keeps its first value: what follows an order, a signature the cuts missed, is not the order), the fields
    given again with another value, and a field line the client may have broken (with the line after it)."""

    lines: tuple[str, ...]
    order: dict[str, Any]
    twice: tuple[str, ...] = ()
    broken: tuple[str, str] | None = None


def read_order(prompt: dict[str, Any], reply: Texts, ours: Ours = NONE_OF_OURS) -> Reading:
    """The reply's text part, unless it is empty or a field line in it may have been broken and there is HTML."""
    keys = field_keys(prompt)
    if reply.plain.strip():
        lines = written(reply.plain, ours, keys)
        broken = None if reply.flowed else broken_line(lines, keys)
        if broken is None or not reply.html.strip():
            return _fields(keys, [line for line in lines if line], broken)
    return _fields(keys, reply_lines(reply.html, ours, keys), None)


def parse_order(prompt: dict[str, Any], text: str) -> dict[str, Any]:
    """Map "field: value" lines above the quote to the prompt's fields, by name or label; values by value or
    label."""
    keys = field_keys(prompt)
    return _fields(keys, reply_lines(text, keys=keys), None).order


def _fields(keys: dict[str, dict[str, Any]], lines: list[str], broken: tuple[str, str] | None) -> Reading:
    order: dict[str, Any] = {}
    twice: list[str] = []
    for line in lines:
        if not is_field(line, keys):
            continue
        name, _, value = line.partition(":")
        spec = keys[key(name)]
        read = _value(spec, value)
        if spec["name"] not in order:
            order[spec["name"]] = read
        elif order[spec["name"]] != read and spec["name"] not in twice:
            twice.append(spec["name"])
    return Reading(tuple(lines), order, tuple(twice), broken)


def _value(spec: dict[str, Any], value: str) -> Any:
    if spec["kind"] == "multichoice":
        words = [w for w in re.split(r",|\band\b", value) if w.strip() and key(w) not in {"none", "nothing"}]
        return [choice_value(spec, w) for w in words]
    if spec["kind"] == "choice":
        return choice_value(spec, value)
    return value.strip()


