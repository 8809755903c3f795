"""What a reply says, as real mail clients write it: the text the player typed, whether a program sent it,
whether a spam filter flagged it, and the order in it. Pure functions over anymail's parsed message;
games/incoming/mail/inbound.py does the rest.

- The text is every text/plain part in order, with format=flowed (RFC 3676) soft line breaks joined, and the
  HTML read as text (<pre> keeps its lines). The text is read unless it is empty, or a line of its order may
  have been broken by the client (read_order): then the HTML, which no client breaks; without HTML such a reply
  is refused, never read as a different order.
- The order is read with the reply syntax the turn email teaches (games/outgoing/order_text.py SYNTAX): a value
  of steps goes on over the lines under its field line; lines that may belong to the order but are not read
  into it make the reply refused, never stored shortened.
- What the player wrote is what comes before the quoted email, its header block or their signature, in any
  language (games/incoming/mail/quotes.py); or, when that holds no order and the quote is marked with ">", what
  comes after it (a bottom-posted reply).
- A message is automatic when its headers say so (automatic_marker; README "Replies by email" gives why).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass, replace
from html.parser import HTMLParser
from typing import Any

from anymail.inbound import AnymailInboundMessage

from games.incoming.mail.quotes import NONE_OF_OURS, QUOTE_MARK, WRAP_AT, Ours, bottom_posted, is_field, key, written
from games.outgoing.order_text import SYNTAX, read_steps

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
# Postmark passes on and other filters add, Mailgun's flag, rspamd's X-Spam ("Yes", its milter_headers) and
# Barracuda's: the verdict is the first word of the value.
SPAM_FLAGS = ("X-Spam-Status", "X-Spam-Flag", "X-Mailgun-Sflag", "X-Spam", "X-Barracuda-Spam-Status")
# rspamd's action for the message, when it is one taken for spam (not "no action", "greylist", "soft reject").
RSPAMD_SPAM_ACTIONS = {"reject", "add header", "rewrite subject"}
# Exchange's spam confidence level: 5 and up is junk (-1 is a bypass, 0-4 not spam).
EXCHANGE_JUNK_SCL = 5


def spam_verdict(message: AnymailInboundMessage, threshold: float) -> str | None:
    """Why the message counts as spam, or None: anymail's own verdict (Postmark's and Mailgun's flags when exactly
    "Yes", Amazon SES's spamVerdict FAIL); any spam header whose verdict is yes, however it goes on; rspamd's
    action, Exchange's junk level or its filter's SFV:SPM (what a mail server in front of a pipe or mailbox
    writes); or the provider's score (Postmark, Mailgun, SendGrid, Mailjet, Mandrill, Brevo: SpamAssassin's scale) at
    `threshold` or above."""
    if message.spam_detected is True:
        return "the provider's verdict"
    for name in SPAM_FLAGS:
        for value in message.get_all(name) or []:
            if (re.split(r"[\s,;]+", str(value).strip(), maxsplit=1)[0]).lower() in {"yes", "true"}:
                return name
    for value in message.get_all("X-Rspamd-Action") or []:
        if str(value).strip().lower() in RSPAMD_SPAM_ACTIONS:
            return "X-Rspamd-Action"
    for value in message.get_all("X-MS-Exchange-Organization-SCL") or []:
        with suppress(ValueError):
            if int(str(value).strip()) >= EXCHANGE_JUNK_SCL:
                return "X-MS-Exchange-Organization-SCL"
    for value in message.get_all("X-Forefront-Antispam-Report") or []:
        if "SFV:SPM" in str(value).upper().replace(" ", ""):
            return "X-Forefront-Antispam-Report"
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
    """Every text/plain part that is no attachment, in order (Apple Mail puts one on each side of an inline
    photo), flowed text joined; and every such text/html part read as text. A message forwarded as an
    attachment (message/rfc822) is not read."""
    plain: list[str] = []
    html: list[str] = []
    flowed = False
    for part in _body_parts(message):
        if part.get_content_type() == "text/plain":
            text = part.get_content_text() or ""
            if str(part.get_param("format", "")).lower() == "flowed":
                flowed = True
                text = unflow(text, delsp=str(part.get_param("delsp", "")).lower() == "yes")
            plain.append(text)
        elif part.get_content_type() == "text/html":
            html.append(part.get_content_text() or "")
    return Texts("\n".join(plain), flowed, html_to_text("\n".join(html)))


def _body_parts(part: AnymailInboundMessage) -> Iterator[AnymailInboundMessage]:
    if part.get_content_maintype() == "message":
        return
    if part.is_multipart():
        for sub in part.get_payload():
            yield from _body_parts(sub)
    elif not part.is_attachment():
        yield part


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
    block (divRplyFwdMsg, or a div under a top border, Outlook's and Windows Mail's), Gmail's and Thunderbird's
    attribution (gmail_quote, moz-cite-prefix), Yahoo's quote."""
    found = dict(attrs)
    classes = set((found.get("class") or "").split())
    style = (found.get("style") or "").replace(" ", "").lower()
    return (
        tag == "hr"
        or found.get("id") in {"divRplyFwdMsg", "appendonsend"}
        or bool(classes & {"gmail_quote", "moz-cite-prefix", "yahoo_quoted"})
        # Outlook's border short-hand, or Windows Mail's long-hand ("border-top-style: solid; …").
        or (tag == "div" and ("border-top:solid" in style or "border-top-style:solid" in style))
    )


class _HtmlText(HTMLParser):
    """HTML as a mail client shows it, in lines: block elements and <br> break lines, whitespace collapses but
    in <pre> (its line breaks are lines), nothing in <head>, <style> or <script> shows, each outermost
    <blockquote> (the quoted email, in Gmail, Apple Mail and Thunderbird) reads as one ">" line, and a client's
    mark of where the quote starts as a line of underscores (QUOTE_MARK). A blank line is one the client shows
    as blank: a <br> on a line of its own (Gmail's and Apple Mail's <div><br></div>, two <br>s), or a block of
    nothing but no-break spaces (Outlook's <p>&nbsp;</p>); a block's end alone is no blank line."""

    BREAKS = {"br", "p", "div", "tr", "li", "ul", "ol", "table", "hr", "pre", "h1", "h2", "h3", "h4", "h5", "h6"}
    HIDDEN = {"head", "style", "script", "title", "template"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.line = ""
        self.blank = False  # the line so far is a no-break space: it shows as a blank line
        self.hidden = 0
        self.quoted = 0
        self.pre = 0

    def end_line(self, always: bool = False) -> None:
        """End the line: one with text, one shown blank, or (`always`: a <br>) any."""
        if always or self.line.strip() or self.blank:
            self.lines.append(self.line.strip())
        self.line, self.blank = "", False

    def mark(self, line: str) -> None:
        self.end_line()
        self.lines.append(line)

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag in self.HIDDEN:
            self.hidden += 1
        elif tag == "blockquote":
            if not self.quoted:
                self.mark(">")
            self.quoted += 1
        elif self.hidden or self.quoted:
            return
        elif _starts_quote(tag, attrs):
            self.mark(QUOTE_MARK)
        elif tag in self.BREAKS:
            self.end_line(always=tag == "br")
            self.pre += tag == "pre"

    def handle_endtag(self, tag: str) -> None:
        if tag in self.HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        elif tag == "blockquote":
            self.quoted = max(0, self.quoted - 1)
        elif tag in self.BREAKS - {"br"} and not self.hidden and not self.quoted:
            self.end_line()
            self.pre = max(0, self.pre - (tag == "pre"))

    def handle_data(self, data: str) -> None:
        if self.hidden or self.quoted:
            return
        if self.pre:
            first, *rest = data.replace("\r\n", "\n").split("\n")
            self.line += first
            for line in rest:
                self.end_line(always=True)
                self.line = line
            return
        self.blank = self.blank or (not self.line.strip() and "\xa0" in data and not data.strip())
        self.line += re.sub(r"\s+", " ", data)


def html_to_text(html: str) -> str:
    """The HTML's lines as a client shows them, no-break spaces as spaces; blank lines where it shows one (no
    two in a row, none first or last)."""
    parser = _HtmlText()
    parser.feed(html)
    parser.close()
    parser.end_line()
    lines: list[str] = []
    for line in (line.replace("\xa0", " ").strip() for line in parser.lines):
        if line or (lines and lines[-1]):
            lines.append(line)
    return "\n".join(lines).strip("\n")


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
    """The value of the choice of `spec` that `word` names: its value as written (in any case), else its value,
    label or English label with punctuation ignored; else `word` itself, for `validate` to refuse. The value as
    written comes first, since keys alone confuse values that differ only in punctuation ("jade+1", "jade-1")."""
    written = word.strip()
    for choice in spec["choices"]:
        if choice["value"].strip().lower() == written.lower():
            return str(choice["value"])
    for part in ("value", "label", "english"):
        for choice in spec["choices"]:
            if (said := key(choice.get(part) or "")) and said == key(written):
                return str(choice["value"])
    return written


def field_keys(prompt: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The prompt's fields by their names, labels and English labels as keys (games/incoming/mail/quotes.py key):
    how a line names one."""
    fields = {}
    for spec in prompt["fields"]:
        fields[key(spec["name"])] = spec
        fields[key(spec["label"])] = spec
    for spec in prompt["fields"]:  # the English label (games/words.py prompt) after every name and label read
        fields.setdefault(key(spec.get("english") or spec["label"]), spec)
    return fields


def spanning_keys(keys: dict[str, dict[str, Any]]) -> frozenset[str]:
    """The keys of the fields whose value may span lines (games/outgoing/order_text.py SYNTAX)."""
    return frozenset(name for name, spec in keys.items() if SYNTAX.spans_lines(spec))


@dataclass(frozen=True)
class Reading:
    """What a reply says for a prompt: the lines read as the player's own, the order in them (a field given twice
    keeps its first value: what follows an order, a signature the cuts missed, is not the order), the fields
    given again with another value, a line the client may have broken (with the line after it), and the lines
    that may belong to the order but were not read into it (`read`: the lines that were, field lines and the
    lines of their values)."""

    lines: tuple[str, ...]
    order: dict[str, Any]
    twice: tuple[str, ...] = ()
    broken: tuple[str, str] | None = None
    read: tuple[str, ...] = ()
    unread: tuple[str, ...] = ()
    in_quote: tuple[str, ...] = ()  # with no order read: the field lines in the quoted part, not read


def read_order(prompt: dict[str, Any], reply: Texts, ours: Ours = NONE_OF_OURS) -> Reading:
    """The reply's text part, unless it is empty or a line of its order may have been broken by the client
    (hard-wrapped, not format=flowed) and there is HTML, which no client breaks."""
    keys = field_keys(prompt)
    spanning = spanning_keys(keys)

    def own(text: str) -> list[str]:
        lines = written(text, ours, keys, spanning)
        if not any(lines) and (below := bottom_posted(text, ours, keys, spanning)):
            lines = written(below, ours, keys, spanning)  # no order above the quote: written under it
        return lines

    names = {key(spec["name"]) for spec in prompt["fields"]}

    def quoted(text: str) -> tuple[str, ...]:
        """The lines under where the reply ends (">" marks taken off) that name a field by its name, as the
        example does (the email's help names them by label): an order written into the quote."""
        lines = [line.replace("\xa0", " ").strip() for line in text.splitlines()]
        rest = (line.lstrip("> ").strip() for line in lines[len(own(text)) :])
        return tuple(line for line in rest if is_field(line, names))

    if reply.plain.strip():
        reading = _fields(keys, own(reply.plain), wrapped=not reply.flowed)
        if reading.broken is None or not reply.html.strip():
            return replace(reading, in_quote=quoted(reply.plain)) if not reading.order else reading
    reading = _fields(keys, own(reply.html), wrapped=False)
    return replace(reading, in_quote=quoted(reply.html)) if not reading.order else reading


def parse_order(prompt: dict[str, Any], text: str) -> dict[str, Any]:
    """Map "field: value" lines above the quote to the prompt's fields, by name or label; values by value or
    label."""
    keys = field_keys(prompt)
    return _fields(keys, written(text, keys=keys, spanning=spanning_keys(keys)), wrapped=False).order


@dataclass
class _Open:
    """The field being read: its spec and the parts of its value so far."""

    spec: dict[str, Any]
    parts: list[str]


def _fields(keys: dict[str, dict[str, Any]], lines: list[str], wrapped: bool) -> Reading:
    """Read the order in `lines` (the player's own, stripped, blank ones kept). A field line starts a value; a
    value that may span lines goes on over the lines under it up to the next field line or a blank line.

    Lines that may belong to the order but are not read into it are `unread`: under a multi-line field or a
    one-line field left empty, every line after its value up to the next field line; right under a one-line
    field whose value ends in a separator, the lines up to a blank one. Other lines (above the order, under a
    one-line field with its value) are what the player said around it. `wrapped` (plain text not flowed): a
    long line of the order directly followed by one more is `broken`, since the client may have broken it."""
    order: dict[str, Any] = {}
    twice: list[str] = []
    read: list[str] = []
    unread: list[str] = []
    broken: tuple[str, str] | None = None
    current: _Open | None = None  # a multi-line field whose value goes on over the next line
    after: str = ""  # "field": what follows, up to the next field, is unread; "block": up to a blank line
    last_read = ""  # the line just before, if it was read into the order

    def close() -> None:
        nonlocal current
        if current is not None:
            keep(current.spec, "\n".join(current.parts))
        current = None

    def keep(spec: dict[str, Any], value: str) -> None:
        found = _value(spec, value)
        if spec["name"] not in order:
            order[spec["name"]] = found
        elif order[spec["name"]] != found and spec["name"] not in twice:
            twice.append(spec["name"])

    for line in lines:
        if wrapped and broken is None and last_read and line and not is_field(line, keys):
            broken = (last_read, line) if _may_break(last_read, line) else None
        if is_field(line, keys):
            close()
            name, _, value = line.partition(SYNTAX.name_separator)
            spec = keys[key(name)]
            read.append(line)
            if SYNTAX.spans_lines(spec):
                current = _Open(spec, [value.strip()] if value.strip() else [])
                after = "field"
            else:
                keep(spec, value)
                after = "field" if not value.strip() else "block" if _goes_on(value) else ""
            last_read = line
            continue
        if not line:
            close()
            after = "" if after == "block" else after
        elif current is not None:
            current.parts.append(line)
            read.append(line)
        elif after:
            unread.append(line)
        last_read = line if current is not None and line else ""
    close()
    return Reading(tuple(line for line in lines if line), order, tuple(twice), broken, tuple(read), tuple(unread))


def _goes_on(value: str) -> bool:
    """Whether a one-line field's value ends in a separator, as if more followed."""
    words = value.split()
    last = words[-1].lower() if words else ""
    return any(last == sep if sep.isalpha() else last.endswith(sep) for sep in SYNTAX.pick_words())


def _may_break(line: str, after: str) -> bool:
    """Whether `line` would have reached a client's wrap with the first word of `after` (quotes.py WRAP_AT)."""
    return len(line) + 1 + len(after.split()[0]) > WRAP_AT


def _value(spec: dict[str, Any], value: str) -> Any:
    if spec["kind"] == "multichoice":
        separators = "|".join(
            re.escape(sep) if not sep.isalpha() else rf"\b{re.escape(sep)}\b" for sep in SYNTAX.pick_words()
        )
        nothing = {key(word) for word in SYNTAX.no_pick_words()}
        words = [w for w in re.split(separators, value) if w.strip() and key(w) not in nothing]
        return [choice_value(spec, w) for w in words]
    if spec["kind"] == "choice":
        return choice_value(spec, value)
    return read_steps(spec, value.strip())
