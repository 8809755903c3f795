"""Replies to a turn email as mail clients write them, and as three providers post them to the webhook.

Each client builder returns the MIME message that client sends (headers, parts, transfer encodings, the way it
quotes and signs), written for these tests from how the clients format replies. Each delivery turns a message
into the POST a provider makes of it: the provider's parsed fields, or the raw MIME where it offers that.
"""

from __future__ import annotations

import hashlib
import hmac
import html
import json
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime, make_msgid

PLAYER = "Player 1 <player1@example.com>"
SENT_AT = datetime(2026, 12, 2, 17, 52, tzinfo=UTC)
MAILGUN_KEY = "mailgun-signing-key"


@dataclass(frozen=True)
class Turn:
    """The turn email being answered, as the player's client saw it."""

    reply_to: str  # the signed reply address
    sender: str  # its From: "pbem <turns@...>"
    subject: str
    message_id: str
    references: str
    text: str

    @property
    def quoted(self) -> str:
        return "\n".join(f"> {line}".rstrip() for line in self.text.splitlines())

    @property
    def sender_address(self) -> str:
        return self.sender.rpartition("<")[2].rstrip(">")


def _message(turn: Turn, subject_prefix: str, domain: str, **headers: str) -> EmailMessage:
    message = EmailMessage(policy=SMTP)
    message["From"] = PLAYER
    message["To"] = turn.reply_to
    message["Subject"] = f"{subject_prefix}{turn.subject}"
    message["Date"] = format_datetime(SENT_AT)
    message["Message-ID"] = make_msgid(domain=domain)
    message["In-Reply-To"] = turn.message_id
    message["References"] = f"{turn.references} {turn.message_id}".strip()
    for name, value in headers.items():
        message[name.replace("_", "-")] = value
    return message


def _alternative(message: EmailMessage, text: str, html_body: str | None) -> EmailMessage:
    message.set_content(text, cte="quoted-printable")
    if html_body is not None:
        message.add_alternative(html_body, subtype="html", cte="quoted-printable")
    return message


def _html_lines(lines: list[str]) -> str:
    return "".join(f"<div>{html.escape(line) or '<br>'}</div>" for line in lines)


def _signature(signature: Sequence[str]) -> tuple[str, str]:
    """A "-- " signature: (text, Gmail's HTML of it)."""
    if not signature:
        return "", ""
    text = "\n\n-- \n" + "\n".join(signature)
    markup = '<br clear="all"><div><br></div><span class="gmail_signature_prefix">-- </span><br>'
    return text, markup + f'<div dir="ltr" class="gmail_signature">{"<br>".join(map(html.escape, signature))}</div>'


# --- Gmail ----------------------------------------------------------------------------------------------------------


def gmail(turn: Turn, lines: list[str], signature: Sequence[str] = ()) -> EmailMessage:
    """Gmail's web client: text and HTML; its attribution line wrapped over two lines in the text part."""
    attribution = f"On Wed, 2 Dec 2026 at 17:40, Port of Piraeus turns at pbem <{turn.sender_address}>"
    sig_text, sig_html = _signature(signature)
    text = "\n".join(lines) + sig_text + f"\n\n{attribution}\nwrote:\n\n{turn.quoted}\n"
    quote = html.escape(turn.text).replace("\n", "<br>\n")
    body = (
        f'<div dir="ltr">{_html_lines(lines)}{sig_html}</div><br><div class="gmail_quote gmail_quote_container">'
        f'<div dir="ltr" class="gmail_attr">{html.escape(attribution)} wrote:<br></div>'
        '<blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px solid rgb(204,204,204);'
        f'padding-left:1ex">{quote}</blockquote></div>\n'
    )
    return _alternative(_message(turn, "Re: ", "mail.gmail.com"), text, body)


def gmail_plain_text(turn: Turn, lines: list[str], signature: Sequence[str] = ()) -> EmailMessage:
    """Gmail in plain text mode: one text/plain part, format=flowed; delsp=yes, wrapped at 78."""
    sig_text, _ = _signature(signature)
    attribution = f"On Wed, 2 Dec 2026 at 17:40, pbem <{turn.sender_address}> wrote:"
    text = "\n".join(lines) + sig_text + f"\n\n{attribution}\n\n{turn.quoted}\n"
    message = _message(turn, "Re: ", "mail.gmail.com")
    message.set_content(flowed(text, delsp=True), params={"format": "flowed", "delsp": "yes"}, cte="quoted-printable")
    return message


# --- Outlook --------------------------------------------------------------------------------------------------------


def _outlook_header_block(turn: Turn) -> list[str]:
    return [
        f"From: {turn.sender}",
        "Sent: Wednesday, December 2, 2026 5:40 PM",
        f"To: {PLAYER}",
        f"Subject: {turn.subject}",
    ]


def outlook(turn: Turn, lines: list[str], signature: Sequence[str] = ("Bob",)) -> EmailMessage:
    """Outlook (desktop and web): the original is not quoted with ">" but under a line of underscores and a
    From/Sent/To/Subject block; the signature has no "-- "; the subject says "RE:"."""
    block = _outlook_header_block(turn)
    text = "\n\n".join(["\n".join(lines), "\n".join(signature), "_" * 32 + "\n" + "\n".join(block), turn.text])
    bold = "<br>\n".join(f"<b>{html.escape(k)}:</b>{html.escape(v)}" for k, _, v in (h.partition(":") for h in block))
    body = (
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8">'
        '<style type="text/css" style="display:none;"> P {margin-top:0;margin-bottom:0;} </style></head>'
        f'<body dir="ltr"><div style="font-family: Aptos, sans-serif; font-size: 12pt">{_html_lines(lines)}'
        f"<div><br></div>{_html_lines(list(signature))}</div>"
        '<hr style="display:inline-block;width:98%" tabindex="-1">'
        f'<div id="divRplyFwdMsg" dir="ltr"><font face="Calibri, sans-serif" style="font-size:11pt">{bold}</font>'
        f"<div>&nbsp;</div></div><div>{html.escape(turn.text).replace(chr(10), '<br>')}</div></body></html>\n"
    )
    message = _message(
        turn,
        "RE: ",
        "PAXPR02MB1234.eurprd02.prod.outlook.com",
        Thread_Topic=turn.subject,
        Thread_Index="AQHbRk1fZ3K8c2l0aGVyZQ==",
        X_MS_Has_Attach="",
        Content_Language="en-GB",
    )
    return _alternative(message, text + "\n", body)


def outlook_classic(turn: Turn, lines: list[str], signature: Sequence[str] = ("Bob",)) -> EmailMessage:
    """Outlook's plain-text reply: "-----Original Message-----" above the header block."""
    block = "\n".join(_outlook_header_block(turn))
    text = "\n\n".join(["\n".join(lines), "\n".join(signature), f"-----Original Message-----\n{block}", turn.text])
    message = _message(turn, "RE: ", "PAXPR02MB1234.eurprd02.prod.outlook.com", Thread_Topic=turn.subject)
    message.set_content(text + "\n", cte="quoted-printable")
    return message


# --- Apple Mail -----------------------------------------------------------------------------------------------------


def apple_mail(turn: Turn, lines: list[str], signature: Sequence[str] = ()) -> EmailMessage:
    """Apple Mail (macOS, iOS): the attribution inside the quote, <blockquote type="cite"> in HTML."""
    attribution = f"On 2 Dec 2026, at 17:40, pbem <{turn.sender_address}> wrote:"
    sig_text, _ = _signature(signature)
    text = "\n".join(lines) + sig_text + f"\n\n> {attribution}\n>\n{turn.quoted}\n"
    quote = html.escape(turn.text).replace("\n", "<br>")
    body = (
        '<html><head><meta http-equiv="content-type" content="text/html; charset=utf-8"></head>'
        '<body dir="auto">'
        f"{_html_lines(lines)}{_html_lines(['-- ', *signature]) if signature else ''}"
        f'<div dir="ltr"><br><blockquote type="cite">{html.escape(attribution)}<br><br></blockquote></div>'
        f'<blockquote type="cite"><div dir="ltr">{quote}</div></blockquote></body></html>\n'
    )
    message = _message(turn, "Re: ", "icloud.com", X_Mailer="iPhone Mail (22B91)")
    return _alternative(message, text, body)


def apple_mail_plain(turn: Turn, lines: list[str], signature: Sequence[str] = ()) -> EmailMessage:
    """Apple Mail in plain text: format=flowed (delsp=no), the attribution above the quote."""
    sig_text, _ = _signature(signature)
    attribution = f"On 2 Dec 2026, at 17:40, pbem <{turn.sender_address}> wrote:"
    text = "\n".join(lines) + sig_text + f"\n\n{attribution}\n\n{turn.quoted}\n"
    message = _message(turn, "Re: ", "icloud.com", X_Mailer="Apple Mail (2.3826.300.87)")
    message.set_content(flowed(text, width=72), params={"format": "flowed"}, cte="quoted-printable")
    return message


def html_only(build: Callable[..., EmailMessage]) -> Callable[..., EmailMessage]:
    """The same client sending HTML alone (as some mobile clients and webmail in rich mode do)."""

    def without_text(*args: object, **kwargs: object) -> EmailMessage:
        full = build(*args, **kwargs)
        html_part = full.get_body(("html",))
        assert html_part is not None
        message = EmailMessage(policy=SMTP)
        for name, value in full.items():
            if name.lower() not in {"content-type", "content-transfer-encoding", "mime-version"}:
                message[name] = value
        message.set_content(html_part.get_content(), subtype="html", cte="quoted-printable")
        return message

    return without_text


def flowed(text: str, width: int = 78, delsp: bool = False) -> str:
    """Encode text as format=flowed (RFC 3676): a long line is broken at spaces, each soft break marked by a
    space at the end of the line (with delsp=yes one more, which the reader deletes); quoted lines are
    ">" and a stuffed space, and an unquoted line starting with " ", ">" or "From " is stuffed."""
    out = []
    for line in text.split("\n"):
        depth = len(line) - len(line.lstrip(">"))
        body = line[depth:].removeprefix(" ") if depth else line
        if body == "-- " or len(line) <= width:
            pieces = [body]
        else:
            pieces = textwrap.wrap(body, width - depth - 1, break_long_words=False, break_on_hyphens=False)
            pieces = [piece + ("  " if delsp else " ") for piece in pieces[:-1]] + pieces[-1:]
        for piece in pieces:
            if depth:
                out.append(">" * depth + " " + piece)
            else:
                out.append(" " + piece if piece.startswith((" ", ">", "From ")) else piece)
    return "\n".join(out)


# --- Automatic answers ----------------------------------------------------------------------------------------------


def gmail_vacation(turn: Turn) -> EmailMessage:
    message = _message(turn, "Re: ", "mail.gmail.com", Auto_Submitted="auto-replied")
    return _alternative(message, "I am away until 9 December and will reply when I am back.\n", None)


def exchange_out_of_office(turn: Turn) -> EmailMessage:
    message = _message(
        turn,
        "",
        "PAXPR02MB1234.eurprd02.prod.outlook.com",
        Auto_Submitted="auto-generated",
        X_Auto_Response_Suppress="All",
        X_MS_Exchange_Inbox_Rules_Loop="player1@example.com",
    )
    message.replace_header("Subject", f"Automatic reply: {turn.subject}")
    text = "Thank you for your message. I am out of the office with limited access to email.\n"
    return _alternative(message, text, f"<html><body><p>{text}</p></body></html>")


def cpanel_autoresponder(turn: Turn) -> EmailMessage:
    message = _message(turn, "", "example.com", X_Autorespond="yes", Precedence="auto_reply")
    message.replace_header("Subject", f"Autoreply: {turn.subject}")
    return _alternative(message, "This mailbox is not monitored.\n", None)


def list_bulk(turn: Turn) -> EmailMessage:
    message = _message(turn, "Re: ", "lists.example.com", Precedence="bulk", X_Autoreply="yes")
    return _alternative(message, "role: buyer\n", None)


def exchange_suppress_only(turn: Turn) -> EmailMessage:
    """A program's message that carries only Exchange's request for no automatic replies."""
    message = _message(turn, "Re: ", "example.com", X_Auto_Response_Suppress="DR, OOF, AutoReply")
    return _alternative(message, "role: buyer\n", None)


def mailing_list(turn: Turn) -> EmailMessage:
    message = _message(turn, "Re: ", "lists.example.com", List_Id="Piraeus players <players.lists.example.com>")
    return _alternative(message, "role: buyer\n", None)


# --- Deliveries: what each provider posts for a message --------------------------------------------------------------

PARSED_AWAY = {"from", "to", "cc", "subject", "date", "reply-to", "content-type", "content-transfer-encoding"}


def _part(message: EmailMessage, subtype: str) -> str:
    part = message.get_body((subtype,))
    return part.get_content() if part is not None and part.get_content_type() == f"text/{subtype}" else ""


def _envelope_sender(message: EmailMessage) -> str:
    return "" if message["Auto-Submitted"] == "auto-generated" else "player1@example.com"


def postmark(message: EmailMessage, raw: bool = False) -> tuple[str, dict, str]:
    """Postmark's inbound JSON: parsed fields, the headers it keeps (after the Return-Path it prepends) and,
    with "Include raw email content in JSON payload" on, RawEmail."""
    to = str(message["To"])
    headers = [{"Name": "Return-Path", "Value": f"<{_envelope_sender(message)}>"}]
    headers += [{"Name": "X-Spam-Status", "Value": "No"}, {"Name": "X-Spam-Score", "Value": "-0.1"}]
    headers += [{"Name": k, "Value": str(v)} for k, v in message.items() if k.lower() not in PARSED_AWAY]
    payload = {
        "FromName": "Player 1",
        "MessageStream": "inbound",
        "From": "player1@example.com",
        "FromFull": {"Email": "player1@example.com", "Name": "Player 1", "MailboxHash": ""},
        "To": to,
        "ToFull": [{"Email": to, "Name": "", "MailboxHash": to.partition("+")[2].partition("@")[0]}],
        "CcFull": [],
        "BccFull": [],
        "OriginalRecipient": to,
        "Subject": str(message["Subject"]),
        "MessageID": "5c7e9a52-0b1e-4f44-9a0d-0d1b2a3c4d5e",
        "ReplyTo": "",
        "MailboxHash": to.partition("+")[2].partition("@")[0],
        "Date": str(message["Date"]),
        "TextBody": _part(message, "plain"),
        "HtmlBody": _part(message, "html"),
        "StrippedTextReply": "",
        "Tag": "",
        "Headers": headers,
        "Attachments": [],
    }
    if raw:
        payload["RawEmail"] = message.as_string()
    return "/anymail/postmark/inbound/", payload, "json"


def _mailgun_signed(fields: dict) -> dict:
    fields |= {"timestamp": "1764697920", "token": "c2d9" * 12 + "ab"}
    message = f"{fields['timestamp']}{fields['token']}".encode()
    return fields | {"signature": hmac.new(MAILGUN_KEY.encode(), message, hashlib.sha256).hexdigest()}


def mailgun(message: EmailMessage) -> tuple[str, dict, str]:
    """A Mailgun route's forward() to our URL, fully parsed: UTF-8 fields, all headers as JSON pairs."""
    fields = {
        "recipient": str(message["To"]),
        "sender": _envelope_sender(message),
        "from": str(message["From"]),
        "subject": str(message["Subject"]),
        "body-plain": _part(message, "plain"),
        "stripped-text": _part(message, "plain").split("\n\n")[0],
        "message-headers": json.dumps([[k, str(v)] for k, v in message.items()]),
    }
    if _part(message, "html"):
        fields["body-html"] = _part(message, "html")
    return "/anymail/mailgun/inbound/", _mailgun_signed(fields), "form"


def mailgun_mime(message: EmailMessage) -> tuple[str, dict, str]:
    """forward() to a URL ending in "mime": the message as it came, in body-mime."""
    fields = {"recipient": str(message["To"]), "sender": _envelope_sender(message), "body-mime": message.as_string()}
    return "/anymail/mailgun/inbound_mime/", _mailgun_signed(fields), "form"


def _sendgrid_common(message: EmailMessage) -> dict:
    return {
        "envelope": json.dumps({"to": [str(message["To"])], "from": _envelope_sender(message)}),
        "spam_score": "0.1",
        "SPF": "pass",
        "dkim": "{@example.com : pass}",
        "sender_ip": "192.0.2.10",
    }


def sendgrid(message: EmailMessage) -> tuple[str, dict, str]:
    """SendGrid's Inbound Parse, default (parsed) fields."""
    header_block = message.as_string().partition("\n\n")[0] + "\n"  # as sent: encoded words and all
    fields = _sendgrid_common(message) | {
        "headers": header_block,
        "from": str(message["From"]),
        "to": str(message["To"]),
        "subject": str(message["Subject"]),
        "text": _part(message, "plain"),
        "charsets": json.dumps({"to": "UTF-8", "from": "UTF-8", "subject": "UTF-8", "text": "utf-8", "html": "utf-8"}),
    }
    if _part(message, "html"):
        fields["html"] = _part(message, "html")
    return "/anymail/sendgrid/inbound/", fields, "form"


def sendgrid_raw(message: EmailMessage) -> tuple[str, dict, str]:
    """Inbound Parse with "POST the raw, full MIME message"."""
    return "/anymail/sendgrid/inbound/", _sendgrid_common(message) | {"email": message.as_string()}, "form"


DELIVERIES: dict[str, Callable[[EmailMessage], tuple[str, dict, str]]] = {
    "Postmark": postmark,
    "Postmark raw": lambda message: postmark(message, raw=True),
    "Mailgun": mailgun,
    "Mailgun mime": mailgun_mime,
    "SendGrid": sendgrid,
    "SendGrid raw": sendgrid_raw,
}
RAW_DELIVERIES = ["Postmark raw", "Mailgun mime", "SendGrid raw"]
