"""Orders by email reply, through anymail's inbound webhook (any provider anymail supports).

When PBEM_REPLY_ADDRESS is set (e.g. turns@in.example.org, routed by the provider to
/anymail/<provider>/inbound/), each turn email and reminder carries a Reply-To of the form
turns+<outbox id>-<signature>@in.example.org. The signature binds the address to the seat's link key, so a
reply authenticates like a signed link, and replacing the player makes old addresses stop working.

A reply holds lines like "role: seller" above the quoted email. They become an order through the same
service call as the web form; the player gets a short receipt (stored, or why not) at their own address.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

from anymail.inbound import AnymailInboundMessage
from anymail.signals import AnymailInboundEvent, inbound
from django.core.mail import EmailMessage
from django.dispatch import receiver
from django.utils.crypto import constant_time_compare

from games import turns
from games.emails import game_link, reply_signature, thread_id
from games.models import OutboundEmail

log = logging.getLogger(__name__)
ADDRESS = re.compile(r"\+(\d+)-([0-9a-f]{16})@", re.IGNORECASE)
QUOTE_START = re.compile(r"^(>|On .+wrote:$|-{2,} ?Original Message|From: )", re.IGNORECASE)


def find_row(addresses: list[str]) -> OutboundEmail | None:
    for address in addresses:
        match = ADDRESS.search(address)
        if not match:
            continue
        row = OutboundEmail.objects.select_related("seat__player", "phase__game").filter(pk=match.group(1)).first()
        if row is not None and constant_time_compare(reply_signature(row), match.group(2).lower()):
            return row
    return None


def reply_lines(text: str) -> list[str]:
    """The lines the player wrote: everything above the quoted email."""
    lines = []
    for line in text.splitlines():
        if QUOTE_START.match(line.strip()):
            break
        lines.append(line.strip())
    return [line for line in lines if line]


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def parse_order(prompt: dict[str, Any], text: str) -> dict[str, Any]:
    """Map "field: value" lines to the prompt's fields, by name or label; values by value or label."""
    fields = {}
    for spec in prompt["fields"]:
        fields[_key(spec["name"])] = spec
        fields[_key(spec["label"])] = spec
    order: dict[str, Any] = {}
    for line in reply_lines(text):
        name, sep, value = line.partition(":")
        spec = fields.get(_key(name)) if sep else None
        if spec is None:
            continue
        by_label = {_key(c["label"]): c["value"] for c in spec["choices"]}
        by_value = {_key(c["value"]): c["value"] for c in spec["choices"]}

        def pick(word: str, by_label: dict[str, str] = by_label, by_value: dict[str, str] = by_value) -> str:
            return by_value.get(_key(word)) or by_label.get(_key(word)) or word.strip()

        if spec["kind"] == "multichoice":
            words = [w for w in re.split(r",|\band\b", value) if w.strip() and _key(w) not in {"none", "nothing"}]
            order[spec["name"]] = [pick(w) for w in words]
        elif spec["kind"] == "choice":
            order[spec["name"]] = pick(value)
        else:
            order[spec["name"]] = value.strip()
    return order


@dataclass(frozen=True)
class ReplyOutcome:
    stored: bool
    message: str


class NoOrderFound(turns.OrderRejected):
    pass


def take_reply(row: OutboundEmail, text: str) -> ReplyOutcome:
    """Submit the reply through the service layer, which checks the turn under its lock."""

    def order_from_reply(prompt: dict[str, Any]) -> dict[str, Any]:
        order = parse_order(prompt, text)
        if not order:
            example = "\n".join(f"  {f['name']}: ..." for f in prompt["fields"])
            raise NoOrderFound(f"No order found in your reply. Write it above the quoted email, like:\n{example}")
        return order

    phase = row.phase
    try:
        turns.submit_order(row.seat, phase.number, order_from_reply)
    except turns.TurnClosed:
        return ReplyOutcome(False, f"That turn ({phase.name}) is over, so your reply was not used.")
    except NoOrderFound as error:
        return ReplyOutcome(False, str(error))
    except turns.OrderRejected as error:
        return ReplyOutcome(False, f"Your order was not stored: {error}")
    return ReplyOutcome(
        True, f"Your order for {phase.name} is stored and sealed. You can change it until the turn resolves."
    )


@receiver(inbound, dispatch_uid="pbem-inbound-orders")
def handle_inbound(sender: Any, event: AnymailInboundEvent, esp_name: str, **kwargs: Any) -> None:
    message: AnymailInboundMessage = event.message
    addresses = [str(a.addr_spec) for a in message.to + message.cc]
    if message.envelope_recipient:
        addresses.append(message.envelope_recipient)
    row = find_row(addresses)
    if row is None or row.seat.player is None:
        # Unknown or forged address: nobody to answer, nothing to change.
        log.info("inbound email from %s ignored: no valid reply address", esp_name)
        return
    outcome = take_reply(row, message.stripped_text or message.text or "")
    log.info("inbound reply for game %s seat %s: stored=%s", row.game_id, row.seat.number, outcome.stored)
    EmailMessage(
        subject=f"Re: {message.subject or row.phase.name}",
        body=f"{outcome.message}\n\nThe game page: {game_link(row.seat, row.phase.game)}\n",
        to=[row.seat.player.email],
        headers={"References": thread_id(row.game_id), "In-Reply-To": thread_id(row.game_id)},
    ).send()
