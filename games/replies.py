"""What a reply says, as real mail clients write it: the text the player typed, whether a program sent it,
and how a receipt answers it. Pure functions over anymail's parsed message; games/inbound.py does the rest.

- The text is the first text/plain part, with format=flowed (RFC 3676) soft line breaks joined, or, when a
  client sent only HTML (or an empty text part), the HTML read as text.
- What the player wrote is what comes before the quoted email or their signature: a ">" line, "-- ", the
  "On ... wrote:" line (Gmail wraps it over two), Outlook's "-----Original Message-----", its line of
  underscores, or its "From: ... Sent: ..." header block.
- A message is automatic when its headers say so (AUTOMATIC below; README "Replies by email" gives why).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

from anymail.inbound import AnymailInboundMessage

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


def reply_text(message: AnymailInboundMessage) -> str:
    """The reply's text: its first text/plain part (flowed text joined), else its HTML read as text."""
    for part in message.walk():
        if part.get_content_type() == "text/plain" and not part.is_attachment():
            text = part.get_content_text() or ""
            if str(part.get_param("format", "")).lower() == "flowed":
                text = unflow(text, delsp=str(part.get_param("delsp", "")).lower() == "yes")
            if text.strip():
                return text
            break
    return html_to_text(message.html or "")


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


class _HtmlText(HTMLParser):
    """HTML as a mail client shows it, in lines: block elements and <br> break lines, whitespace collapses,
    nothing in <head>, <style> or <script> shows, and each outermost <blockquote> (the quoted email, in
    Gmail, Apple Mail and Thunderbird) reads as one ">" line."""

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


# --- What the player wrote -----------------------------------------------------------------------------------------

QUOTE_OR_SIGNATURE = re.compile(r"^(>|--$|_{8,}$|-{2,} ?Original Message)", re.IGNORECASE)
ON_WROTE = re.compile(r"^On\s.+\swrote:$", re.IGNORECASE)  # Gmail, Apple Mail, Thunderbird
OUTLOOK_FROM = re.compile(r"^\*?From:\*?\s")
OUTLOOK_SENT = re.compile(r"^\*?(Sent|Date):\*?\s")


def starts_quote(lines: list[str], at: int) -> bool:
    line = lines[at]
    if QUOTE_OR_SIGNATURE.match(line):
        return True
    if line.lower().startswith("on ") and any(
        ON_WROTE.match(" ".join(lines[at:end])) for end in range(at + 1, min(at + 3, len(lines)) + 1)
    ):
        return True  # "On <date>, <name> <address> wrote:", on one line or wrapped over two
    return bool(OUTLOOK_FROM.match(line)) and any(OUTLOOK_SENT.match(later) for later in lines[at + 1 : at + 4])


def reply_lines(text: str) -> list[str]:
    """The lines the player wrote: those above the quoted email and the signature, without blank lines."""
    lines = [line.replace("\xa0", " ").strip() for line in text.splitlines()]
    written = []
    for at, line in enumerate(lines):
        if starts_quote(lines, at):
            break
        written.append(line)
    return [line for line in written if line]


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


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


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
            if _key(choice[part]) == _key(written):
                return str(choice["value"])
    return written


def parse_order(prompt: dict[str, Any], text: str) -> dict[str, Any]:
    """Map "field: value" lines to the prompt's fields, by name or label; values by value or label. A field
    given twice keeps its first value: what follows an order (a signature the cuts missed) is not the order."""
    fields = {}
    for spec in prompt["fields"]:
        fields[_key(spec["name"])] = spec
        fields[_key(spec["label"])] = spec
    order: dict[str, Any] = {}
    for line in reply_lines(text):
        name, sep, value = line.partition(":")
        spec = fields.get(_key(name)) if sep else None
        if spec is None or spec["name"] in order:
            continue
        if spec["kind"] == "multichoice":
            words = [w for w in re.split(r",|\band\b", value) if w.strip() and _key(w) not in {"none", "nothing"}]
            order[spec["name"]] = [choice_value(spec, w) for w in words]
        elif spec["kind"] == "choice":
            order[spec["name"]] = choice_value(spec, value)
        else:
            order[spec["name"]] = value.strip()
    return order


def order_lines(prompt: dict[str, Any], order: dict[str, Any]) -> list[str]:
    """`order` as the lines of a reply that `parse_order` reads back as it: "name: value" for each of the
    prompt's fields, one a line, choices by their value, picks joined by ", " ("none" for no pick), steps
    by "; ". A field the order leaves blank (an optional number) is left out."""
    lines = []
    for spec in prompt["fields"]:
        value = order.get(spec["name"])
        if value is None:
            continue
        if spec["kind"] == "multichoice":
            written = ", ".join(str(pick) for pick in value) or "none"
        elif isinstance(value, str):
            written = "; ".join(part.strip() for part in value.splitlines() if part.strip())
        else:
            written = str(value)
        lines.append(f"{spec['name']}: {written}".rstrip())
    return lines
