"""The lobby's emails, through the project's one mail pipeline (games/outgoing/outbox.py): rendered when written (what
the table was then), kept as a LobbyEmail row in the transaction that decided it, sent after commit by a task,
retried by the sweep like every outbox (registered in games/lobby/apps.py).

Kinds, and what each is for (games/outgoing/mailpolicy.py's Need, which decides who may be sent it):
- "lobby-invitation": a player invites an address to a table (PLAY: it lets them play; a bounced or
  complained address gets none). It is the one unasked-for email here, so it carries RFC 8058's one-click
  List-Unsubscribe, which declines the invitation and keeps its inviter from inviting the address again;
- "lobby-started": the table passed its ready check, for the players whom the first turn asks nothing (the
  others get their turn email at once) (PLAY);
- "lobby-cancelled": the table will not start (its creator cancelled it, or the ready check failed at the
  start time), for everyone who sat at it or was still invited (END: like a game's end, never declined).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.urls import reverse

from games.extensions import EmailAsk, Outbox
from games.lobby import links
from games.lobby.facts import table_facts
from games.lobby.models import Invitation, LobbyEmail, Table
from games.models import Player
from games.outgoing import mailpolicy, messages, outbox
from games.outgoing.dispatch import after_commit, task_name
from games.outgoing.facts import addressee
from games.outgoing.mailpolicy import Need

log = logging.getLogger(__name__)
SEND_LOBBY_EMAILS = task_name("lobby.tasks.send_emails")
INVITATION, STARTED, CANCELLED = "lobby-invitation", "lobby-started", "lobby-cancelled"
NEEDS = {INVITATION: Need.PLAY, STARTED: Need.PLAY, CANCELLED: Need.END}


def queue(table: Table, kind: str, player: Player | None, invitation: Invitation | None = None, **context: Any) -> bool:
    """Render an email of `kind` to `player` (None: the invitation's address, nobody's yet) about `table`
    and send it after commit, unless the mail policy declines it (a bounced address, a complaint). Returns
    whether it was written. Times are shown in the reader's zone, or the table's for a newcomer."""
    readers = (player,) if player is not None else ()
    if mailpolicy.declined(EmailAsk(kind=kind, players=readers, need=NEEDS[kind].value)):
        return False
    to = player.email if player is not None else invitation.address if invitation is not None else ""
    assert to, "a lobby email goes to a player or an invited address"
    context = {
        "table": table_facts(table),
        "player": addressee(player),
        "my_games_url": settings.SITE_URL + reverse("games-mine"),
        "open_url": settings.SITE_URL + reverse("lobby-open"),
        **context,
    }
    if invitation is not None:
        context |= {
            "inviter": invitation.inviter.display_name,
            "join_url": links.join_url(invitation),
            "decline_url": links.decline_url(invitation),
        }
    zone = messages.zone_of(player.time_zone if player is not None else table.time_zone)
    # A newcomer (no player yet) reads the inviter's language: whoever invites them most likely shares it.
    reader = player or (invitation.inviter if invitation is not None else None)
    language = messages.language_of(reader)
    rendered = messages.render(f"emails/lobby/{kind.removeprefix('lobby-')}", context, zone, language=language)
    LobbyEmail.objects.create(
        table=table,
        invitation=invitation,
        player=player,
        to=to,
        kind=kind,
        subject=rendered.subject[:250],
        text=rendered.text,
        html=rendered.html,
    )
    after_commit(SEND_LOBBY_EMAILS)
    return True


def still_wanted(row: LobbyEmail) -> bool:
    """Asked again just before sending: the address may have bounced meanwhile, or the invitation been
    answered or withdrawn (an invitation that can no longer be accepted is not worth sending)."""
    if row.player is not None and not mailpolicy.allows(row.player, NEEDS.get(row.kind, Need.NEWS)):
        return False
    if row.kind == INVITATION:
        invitation = row.invitation
        return invitation is not None and invitation.answer == Invitation.Answer.PENDING
    return True


def compose(row: LobbyEmail) -> Any:
    """The row's message. An invitation's one-click List-Unsubscribe is its decline link (a POST needing no
    session: RFC 8058); a table's later emails to the same reader join the invitation's thread."""
    thread = messages.Thread(messages.message_id(f"pbem.lobby.{row.pk}"), root=thread_root(row))
    headers: dict[str, str] = {}
    if row.kind == INVITATION and row.invitation is not None:
        headers = {
            "List-Unsubscribe": f"<{links.decline_url(row.invitation)}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        }
    reader = row.player or (row.invitation.inviter if row.invitation is not None else None)
    rendered = messages.Rendered(row.subject, row.text, row.html, language=messages.language_of(reader))
    metadata = {"lobby_email": str(row.pk)}
    return messages.compose(rendered, row.to, kind=row.kind, thread=thread, headers=headers, metadata=metadata)


def thread_root(row: LobbyEmail) -> str | None:
    sent = LobbyEmail.objects.filter(table_id=row.table_id, to=row.to, status=LobbyEmail.Status.SENT)
    return sent.exclude(message_id="").order_by("pk").values_list("message_id", flat=True).first()


def send_pending() -> int:
    """Send every pending lobby email (a row nobody wants any more is marked skipped)."""
    rows = list(
        LobbyEmail.objects.filter(status=LobbyEmail.Status.PENDING)
        .select_related("player", "invitation__inviter")
        .order_by("pk")
    )

    def outgoing() -> Iterator[outbox.Outgoing]:
        for row in rows:
            yield outbox.Outgoing([row.pk], compose(row) if still_wanted(row) else None)

    return outbox.deliver(LobbyEmail, outgoing())


def wake_sender(table_ids: list[Any]) -> None:
    after_commit(SEND_LOBBY_EMAILS)


OUTBOX = Outbox(model=LobbyEmail, wake=wake_sender, value="table_id")
