"""Email replies as the providers post them to anymail's inbound webhooks (Postmark, Mailgun, SendGrid)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

from django.core import mail

from tests.support.reply_samples import Turn

WEBHOOK = "/anymail/postmark/inbound/"


def postmark_payload(to: str, text: str, sender: str = "player1@example.com") -> dict:
    """The shape Postmark posts for an inbound email (trimmed to the fields anymail reads)."""
    return {
        "FromName": "Player 1",
        "MessageStream": "inbound",
        "From": sender,
        "FromFull": {"Email": sender, "Name": "Player 1", "MailboxHash": ""},
        "To": to,
        "ToFull": [{"Email": to, "Name": "", "MailboxHash": to.split("+")[1].split("@")[0] if "+" in to else ""}],
        "CcFull": [],
        "BccFull": [],
        "OriginalRecipient": to,
        "Subject": "Re: your turn",
        "MessageID": "73e6d360-66eb-11e1-8e72-a8904824019b",
        "ReplyTo": "",
        "MailboxHash": "",
        "Date": "Wed, 2 Dec 2026 17:40:00 +0000",
        "TextBody": text,
        "HtmlBody": "",
        "StrippedTextReply": "",
        "Tag": "",
        "Headers": [{"Name": "X-Spam-Status", "Value": "No"}],
        "Attachments": [],
    }


def reply_to_of(seat_email: str) -> str:
    message = next(m for m in mail.outbox if m.to == [seat_email])
    assert message.reply_to, "turn emails offer a reply address when replies are on"
    return message.reply_to[0]


def turn_email(address: str = "player1@example.com") -> Turn:
    """The turn email sent to `address`, as the player's mail client sees it when replying (reply_samples.Turn)."""
    message = next(m for m in mail.outbox if m.to == [address])
    headers = message.extra_headers
    return Turn(
        reply_to=message.reply_to[0],
        sender=message.from_email,
        subject=str(message.subject),
        message_id=headers["Message-ID"],
        references=headers.get("References", ""),
        text=str(message.body),
    )


def post(client, payload):
    return client.post(WEBHOOK, payload, content_type="application/json", HTTP_AUTHORIZATION=AUTH)


def mailgun_fields(to: str, text: str, sender: str = "player1@example.com", **changes) -> dict:
    """A Mailgun route's forward() POST, fully parsed (form fields), signed as Mailgun signs it."""
    headers = [["From", f"Player 1 <{sender}>"], ["To", to], ["Subject", "Re: your turn"]]
    fields = {
        "recipient": to,
        "sender": sender,
        "from": f"Player 1 <{sender}>",
        "subject": "Re: your turn",
        "body-plain": text,
        "stripped-text": text,
        "message-headers": json.dumps(headers),
        "timestamp": "1764697200",
        "token": "a" * 50,
    }
    fields.update(changes)
    fields = {key: value for key, value in fields.items() if value is not None}
    message = f"{fields.get('timestamp', '')}{fields.get('token', '')}".encode()
    fields.setdefault("signature", hmac.new(MAILGUN_KEY.encode(), message, hashlib.sha256).hexdigest())
    return fields


def sendgrid_fields(to: str, text: str, sender: str = "player1@example.com", **changes) -> dict:
    """SendGrid's Inbound Parse POST (default, not raw), as multipart form fields."""
    fields = {
        "headers": f"From: Player 1 <{sender}>\nTo: {to}\nSubject: Re: your turn\n",
        "from": f"Player 1 <{sender}>",
        "to": to,
        "subject": "Re: your turn",
        "text": text,
        "envelope": json.dumps({"to": [to], "from": sender}),
        "charsets": json.dumps({"to": "UTF-8", "subject": "UTF-8", "from": "UTF-8", "text": "utf-8"}),
        "spam_score": "0.1",
    }
    fields.update(changes)
    return {key: value for key, value in fields.items() if value is not None}


AUTH = "Basic " + base64.b64encode(b"hook:secret").decode()


MAILGUN_KEY = "mailgun-signing-key"
