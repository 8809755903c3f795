"""A notice (games/hooks/notices.py) as each kind of receiver takes it, and the signature of a JSON hook.

- Discord: an execute-webhook body, mentions off (a game named "@everyone" pings nobody);
- Slack: an incoming webhook's `text`, with &, < and > escaped as Slack asks (so no <!channel>);
- Matrix: a hookshot-compatible generic webhook's `text` and `html`;
- ntfy: a JSON publish to the server's root (under the URL's path, for a server installed there), naming the
  URL's topic, with the game's page as the click action;
- JSON: the notice itself, signed as Standard Webhooks specify (webhook-id, webhook-timestamp and
  webhook-signature "v1,<base64 HMAC-SHA256 of id.timestamp.body>", the key being the secret's bytes after
  "whsec_"), so a receiver can check it with any of that specification's libraries, or a few lines of its own.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from django.utils.html import escape

from games.hooks.models import Hook

DISCORD_MAX = 2000
JSON_TYPE = {"Content-Type": "application/json"}


@dataclass(frozen=True)
class Shaped:
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)
    path: str | None = None  # where on the URL's host to post it, if not the URL's own path


def text_of(notice: dict[str, Any]) -> str:
    return "\n".join([notice["headline"], *notice["lines"], notice["game"]["url"]])


def dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def shape(hook: Hook, notice: dict[str, Any], delivery_id: int, at: datetime) -> Shaped:
    kind = Hook.Kind(hook.kind)
    if kind == Hook.Kind.DISCORD:
        content = text_of(notice)
        if len(content) > DISCORD_MAX:
            content = "\n".join([notice["headline"], notice["game"]["url"]])[:DISCORD_MAX]
        return Shaped(dumps({"content": content, "allowed_mentions": {"parse": []}}), JSON_TYPE)
    if kind == Hook.Kind.SLACK:
        text = "\n".join([notice["headline"], *notice["lines"]])
        link = f"<{notice['game']['url']}|{slack_escape(notice['game']['title'])}>"
        return Shaped(dumps({"text": f"{slack_escape(text)}\n{link}"}), JSON_TYPE)
    if kind == Hook.Kind.MATRIX:
        html = "<br>".join(
            [f"<b>{escape(notice['headline'])}</b>", *(escape(line) for line in notice["lines"])]
            + [f'<a href="{escape(notice["game"]["url"])}">{escape(notice["game"]["title"])}</a>']
        )
        return Shaped(dumps({"text": text_of(notice), "html": html, "username": "pbem"}), JSON_TYPE)
    if kind == Hook.Kind.NTFY:
        # The topic is the URL's last segment; a server installed under a path (https://host/ntfy/topic) has
        # its root, where JSON is published, at that path.
        *base, topic = [segment for segment in urlsplit(hook.url).path.split("/") if segment] or [""]
        publish = {
            "topic": topic,
            "title": notice["headline"][:250],
            "message": "\n".join(notice["lines"]) or notice["headline"],
            "click": notice["game"]["url"],
        }
        return Shaped(dumps(publish), JSON_TYPE, path="/" + "".join(f"{segment}/" for segment in base))
    body = dumps({"type": f"pbem.{notice['event']}", **notice})
    return Shaped(body, {**JSON_TYPE, **signature_headers(hook.secret, f"pbem_{delivery_id}", at, body)})


def slack_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def signature_headers(secret: str, message_id: str, at: datetime, body: bytes) -> dict[str, str]:
    """Standard Webhooks' three headers. The id is the delivery's, the same on every attempt, so a receiver
    that got it once can drop a retry; the timestamp is the attempt's, so a receiver can refuse old replays."""
    timestamp = str(int(at.timestamp()))
    return {
        "webhook-id": message_id,
        "webhook-timestamp": timestamp,
        "webhook-signature": "v1," + sign(secret, message_id, timestamp, body),
    }


def sign(secret: str, message_id: str, timestamp: str, body: bytes) -> str:
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{message_id}.{timestamp}.".encode() + body
    return base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
