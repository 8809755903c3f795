"""Outgoing email: one small function per kind over subject/text/HTML templates, and the outbox sender.

Rows are written by the service layer in the transaction that makes an email due; `send_pending`, run
after commit, renders them with the game as it is now, claims each one just before sending it and records
the result just after. A turn email for a phase that has already resolved is skipped, not sent. The sweep
wakes a sender again for rows whose task was lost (`send_stragglers`) and retries failures.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlparse
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.conf import settings
from django.core.mail import EmailMultiAlternatives, get_connection
from django.db.models import F, Max, Q, QuerySet
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.crypto import salted_hmac
from django.utils.timezone import now

from games.dispatch import SEND_EMAILS, after_commit
from games.engines import board_templates, get_engine
from games.engines.base import Engine
from games.facts import GameFacts, PhaseFacts, addressee, game_facts, log_lines, phase_facts
from games.links import SIGN_IN_MINUTES, seat_url, sign_in_url
from games.models import Event, Game, OutboundEmail, Phase, Player, Seat, claim, unique_row

log = logging.getLogger(__name__)
MAX_LOG_LINES = 40
MAX_ATTEMPTS = 5
# Longer than one provider call can take (anymail's requests time out well before): a row still being
# sent after this has lost its worker.
SENDING_TIMEOUT = timedelta(minutes=2)


def mail_domain() -> str:
    return urlparse(settings.SITE_URL).hostname or "pbem.localhost"


def thread_id(game_id: int) -> str:
    """Every email of a game points at this root, so mail clients group a game's emails together."""
    return f"<pbem.game.{game_id}@{mail_domain()}>"


def game_link(seat: Seat, game: Game) -> str:
    """A signed link to the seat's game page, for the game's latest phase."""
    phase = unique_row(Phase.objects.filter(game=game, number=game.phase_number))
    assert phase is not None, "a game has a phase from its creation on"
    return seat_url(seat, phase)


def reply_signature(row: OutboundEmail) -> str:
    # Bound to the seat's link key: a replaced player's reply addresses stop working with their links.
    return salted_hmac("pbem.reply", f"{row.pk}:{row.seat.link_key}").hexdigest()[:16]


def reply_address(row: OutboundEmail) -> str | None:
    """Where a reply to this email goes, if replies are taken (games/inbound.py)."""
    if not settings.PBEM_REPLY_ADDRESS or not row.asks_for_order:
        return None
    local, _, domain = settings.PBEM_REPLY_ADDRESS.partition("@")
    return f"{local}+{row.pk}-{reply_signature(row)}@{domain}"


def player_zone(seat: Seat) -> ZoneInfo:
    try:
        return ZoneInfo(seat.player.time_zone if seat.player else "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


@dataclass
class Batch:
    """What the emails of one game being sent together share, read once: the seats, the current phase,
    each seat's last emailed log line and the log since then, and the public facts every reader's email
    shows (games/facts.py). Keeps the queries per batch constant, and renders per reader only what differs."""

    game: Game
    engine: Engine
    seats: list[Seat]
    current: Phase
    emailed_upto: dict[int, int]  # seat id -> events_upto of its last sent email
    events: list[Event]
    facts: GameFacts
    phases: dict[int, PhaseFacts]  # phase id -> its facts, built once for every reader

    @classmethod
    def load(cls, game: Game, rows: list[OutboundEmail]) -> Batch:
        emailed_upto = dict(
            OutboundEmail.objects.filter(
                seat__in={r.seat_id for r in rows}, status=OutboundEmail.Status.SENT, id__lt=max(r.pk for r in rows)
            )
            .values("seat_id")
            .annotate(upto=Max("events_upto"))
            .values_list("seat_id", "upto")
        )
        since = min((emailed_upto.get(r.seat_id, 0) for r in rows), default=0)
        events = list(Event.objects.filter(game=game, seq__gt=since, seq__lte=max(r.events_upto for r in rows)))
        current = unique_row(Phase.objects.filter(game=game, number=game.phase_number))
        assert current is not None, "a game has a phase from its creation on"
        engine = get_engine(game.engine)
        seats = list(game.seats.select_related("player").order_by("number"))
        return cls(
            game=game,
            engine=engine,
            seats=seats,
            current=current,
            emailed_upto=emailed_upto,
            events=sorted(events, key=lambda e: e.seq),
            facts=game_facts(game, engine, seats),
            phases={},
        )

    def phase(self, phase: Phase) -> PhaseFacts:
        if phase.pk not in self.phases:
            self.phases[phase.pk] = phase_facts(phase)
        return self.phases[phase.pk]

    def news(self, row: OutboundEmail) -> tuple[list[Event], int]:
        """The log lines this seat has not been emailed yet (public and its own), newest last, capped."""
        since = self.emailed_upto.get(row.seat_id, 0)
        lines = [
            e for e in self.events if since < e.seq <= row.events_upto and (e.seat is None or e.seat == row.seat.number)
        ]
        return lines[-MAX_LOG_LINES:], max(0, len(lines) - MAX_LOG_LINES)


def _context(row: OutboundEmail, batch: Batch) -> dict[str, Any]:
    """Only what this email's reader may see (games/facts.py): the batch's public facts, then their seat's
    view, prompt, news and links."""
    seat, engine, state = row.seat, batch.engine, batch.game.state
    news, older = batch.news(row)
    board = board_templates(batch.game.engine)
    phase = batch.phase(row.phase)
    return {
        "game": batch.facts,
        "phase": phase,
        "deadline": phase.deadline,
        "board_html": board.email_html,
        "board_txt": board.email_text,
        "my_games_url": settings.SITE_URL + reverse("games-mine"),
        # The reader's own:
        "player": addressee(seat.player),
        "seat_title": engine.seat_name(state, seat.number),
        "view": engine.view(state, seat.number),
        "prompt": row.phase.prompt_for(seat.number),
        "time_zone": seat.player.time_zone if seat.player else "UTC",
        "link": seat_url(seat, batch.current),
        "can_reply": reply_address(row) is not None,
        "news": log_lines(news),
        "older_news": older,
    }


def build(row: OutboundEmail, batch: Batch | None = None) -> EmailMultiAlternatives:
    """The message for one outbox row, from templates/emails/<kind>-subject.txt, -body.txt, -body.html."""
    context = _context(row, batch or Batch.load(row.game, [row]))
    # Templates show datetimes in the active time zone: the player's own.
    with timezone.override(player_zone(row.seat)):
        subject = " ".join(render_to_string(f"emails/{row.kind}-subject.txt", context).split())
        text = render_to_string(f"emails/{row.kind}-body.txt", context)
        html = render_to_string(f"emails/{row.kind}-body.html", context)
    thread = thread_id(row.game_id)
    reply_to = reply_address(row)
    message = EmailMultiAlternatives(
        subject=subject,
        body=text,
        to=[row.to],
        reply_to=[reply_to] if reply_to else None,
        headers={
            "Message-ID": f"<pbem.{row.game_id}.{row.pk}@{mail_domain()}>",
            "References": thread,
            "In-Reply-To": thread,
        },
    )
    message.attach_alternative(html, "text/html")
    # anymail extensions: providers that support them record the kind and the row for webhooks.
    message.tags = [row.kind]  # type: ignore[attr-defined]
    message.metadata = {"game": str(row.game_id), "outbox": str(row.pk)}  # type: ignore[attr-defined]
    return message


def is_obsolete(row: OutboundEmail) -> bool:
    """A turn email or reminder for a phase that has resolved asks for something no longer wanted."""
    return row.asks_for_order and row.phase.status != Phase.Status.OPEN


def send_pending(game_id: int) -> int:
    """Send every pending email of a game. Returns how many went out.

    Each row is rendered, then claimed (pending -> sending, committed) just before its send and recorded
    just after, so a worker killed half-way through a batch leaves the rows it sent recorded sent, the
    rows it had not reached pending, and at most one row, the one in the provider's hands, sending."""
    rows = list(
        OutboundEmail.objects.filter(game_id=game_id, status=OutboundEmail.Status.PENDING)
        .select_related("game", "phase", "seat__player")
        .order_by("id")
    )
    if not rows:
        return 0
    sent = 0
    connection = get_connection()
    batch = Batch.load(rows[0].game, rows)
    for row in rows:
        pending = OutboundEmail.objects.filter(pk=row.pk, status=OutboundEmail.Status.PENDING)
        if is_obsolete(row):
            pending.update(status=OutboundEmail.Status.SKIPPED)
            continue
        message = build(row, batch)  # before the claim: a worker killed while rendering has sent nothing
        # The claim is conditional: of two senders of one game (its task and the sweep), one sends each row.
        if not pending.update(status=OutboundEmail.Status.SENDING, attempts=F("attempts") + 1, attempted_at=now()):
            continue
        claimed = OutboundEmail.objects.filter(pk=row.pk)
        try:
            message.connection = connection
            message.send()
        except Exception as error:  # noqa: BLE001  (any provider error: keep the row to retry)
            error_text = f"{type(error).__name__}: {error}"[:2000]
            claimed.update(status=OutboundEmail.Status.FAILED, error=error_text)
            log.warning("email %s (%s) failed: %s", row.pk, row.kind, error_text)
            continue
        claimed.update(status=OutboundEmail.Status.SENT, subject=message.subject[:250], sent_at=now())
        sent += 1
    return sent


def unsent() -> QuerySet[OutboundEmail]:
    """Rows owed and not yet sent: pending, being sent, or failed with attempts left. Its partial index
    (OutboundEmail.Meta) keeps the health check's oldest-first read cheap."""
    return OutboundEmail.objects.filter(
        Q(status__in=[OutboundEmail.Status.PENDING, OutboundEmail.Status.SENDING])
        | Q(status=OutboundEmail.Status.FAILED, attempts__lt=MAX_ATTEMPTS)
    )


def retry_failed(at: datetime | None = None) -> int:
    """Put failed rows with attempts left back in the queue and wake a sender for each of their games.
    Returns how many rows were put back. Run by the sweep: the rows are taken in batches through the unsent
    index, and marked woken at `at` (attempted_at), so a later sweep wakes them again only if they are still
    pending a minute later (send_stragglers)."""
    at = at or now()
    failed = OutboundEmail.objects.filter(status=OutboundEmail.Status.FAILED, attempts__lt=MAX_ATTEMPTS)
    woken: set[int] = set()
    requeue = {"status": OutboundEmail.Status.PENDING, "attempted_at": at}
    return len(claim(failed.order_by("created_at"), mark=requeue, enqueue=_waker(woken), value="game_id"))


def send_stragglers(at: datetime | None = None) -> int:
    """Wake a sender for each game with rows left pending for over a minute: their task was lost (a worker
    that died, a broker outage). A row left sending longer than a send can take is put back first: its
    worker died with it in the provider's hands, so whether it went out is unknown. It is sent again: a
    turn email twice is a lesser harm than a turn nobody hears of. Returns how many games were woken.

    Run by the sweep, in batches through the unsent index. A row is marked woken at `at` (attempted_at: the
    last time a sender claimed it, or was woken for it), so a later sweep wakes its game again only if the
    row is still pending a minute after that."""
    at = at or now()
    woken: set[int] = set()
    lost = OutboundEmail.objects.filter(status=OutboundEmail.Status.SENDING, attempted_at__lt=at - SENDING_TIMEOUT)
    requeue = {"status": OutboundEmail.Status.PENDING, "attempted_at": at}
    claim(lost.order_by("attempted_at"), mark=requeue, enqueue=_waker(woken), value="game_id")
    stale = at - timedelta(minutes=1)
    left = OutboundEmail.objects.filter(
        Q(attempted_at__isnull=True) | Q(attempted_at__lt=stale),
        status=OutboundEmail.Status.PENDING,
        created_at__lt=stale,  # attempted_at is never earlier: the index's range
    )
    claim(left.order_by("created_at"), mark={"attempted_at": at}, enqueue=_waker(woken), value="game_id")
    return len(woken)


def _waker(woken: set[int]) -> Callable[[list[int]], None]:
    """Wake a sender after commit for each game of a batch not woken yet by this sweep: one task per game, so
    the sweep itself stays short and one slow game does not hold back others."""
    def wake(game_ids: list[int]) -> None:
        for game_id in sorted(set(game_ids) - woken):
            after_commit(SEND_EMAILS, game_id)
        woken.update(game_ids)

    return wake


def send_sign_in_link(player_id: int) -> bool:
    """Email a player the sign-in link /me/ offers (games/sessions.py decided it is due). Sent at once,
    not through the outbox: it is worth something only for its 30 minutes, and nothing retries it."""
    player = unique_row(Player.objects.filter(pk=player_id, sign_in_sent_at__isnull=False))
    if player is None:  # used already (or never asked for): nothing to send
        return False
    context = {"player": addressee(player), "link": sign_in_url(player), "minutes": SIGN_IN_MINUTES}
    subject = " ".join(render_to_string("emails/sign-in-subject.txt", context).split())
    message = EmailMultiAlternatives(
        subject=subject, body=render_to_string("emails/sign-in-body.txt", context), to=[player.email]
    )
    message.attach_alternative(render_to_string("emails/sign-in-body.html", context), "text/html")
    message.tags = ["sign-in"]  # type: ignore[attr-defined]
    try:
        message.send()
    except Exception as error:  # noqa: BLE001  (the player can ask again; the log says why it failed)
        log.warning("sign-in email to player %s failed: %s", player.pk, type(error).__name__)
        return False
    return True
