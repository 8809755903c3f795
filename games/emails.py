"""Game emails (turn started, reminder, phase resolved, game over) and the sign-in email, through the mail
pipeline of games/mail.py.

Rows are written by the service layer in the transaction that makes an email due; `send_pending`, run
after commit, renders them with the game as it is now and hands them to the pipeline, which claims each one
just before sending it and records the result just after. A turn email for a phase that has already resolved
is skipped, not sent. The sweep wakes a sender again for rows whose task was lost and retries failures
(games/mail.py, over this outbox and the apps').
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db.models import Max, OuterRef, QuerySet, Subquery
from django.urls import reverse
from django.utils.crypto import salted_hmac

from games import mail, mailpolicy
from games.dispatch import SEND_EMAILS, after_commit
from games.engines import board_templates, get_engine
from games.engines.base import Engine
from games.extensions import Outbox
from games.facts import GameFacts, PhaseFacts, addressee, game_facts, log_lines, phase_facts
from games.links import SIGN_IN_MINUTES, seat_url, sign_in_url
from games.models import Event, Game, OutboundEmail, Phase, Player, Seat, unique_row
from games.replies import order_lines
from games.talk.letters import Unseen, mark_emailed, unseen_in, unseen_threads

log = logging.getLogger(__name__)
MAX_LOG_LINES = 40


# Every email of a game has this subject, so clients that thread by subject keep a game together; what
# changes (the kind's own subject) is the headline (games/mail.py).
GAME_SUBJECT = "emails/game-subject.txt"


def first_sent(game_id: int, addresses: Collection[str]) -> dict[str, str]:
    """The Message-ID of the game's first email actually sent to each address: every later email to that
    reader points at it (References, In-Reply-To), so clients that thread by References keep the game
    together, for that reader. One query."""
    firsts = (
        OutboundEmail.objects.filter(game_id=game_id, to=OuterRef("to"), status=OutboundEmail.Status.SENT)
        .exclude(message_id="")
        .order_by("id")
        .values("id")[:1]
    )
    rows = OutboundEmail.objects.filter(game_id=game_id, to__in=set(addresses), id=Subquery(firsts))
    return dict(rows.values_list("to", "message_id"))


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
    # The board's parts every reader sees alike ({% shared %}, games/templatetags/shared_board.py) are rendered
    # from the spectator's view, once for the batch's readers in one time zone.
    public_view: dict[str, Any]
    shared_renders: dict[Any, str]
    roots: dict[str, str]  # address -> Message-ID of the game's first email sent to it
    talk: Unseen  # table talk each reader has not seen (games/talk/letters.py)

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
            public_view=engine.view(game.state, None),
            shared_renders={},
            roots=first_sent(game.pk, {r.to for r in rows}),
            talk=unseen_in(game),
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
    # A turn email or reminder lists the table talk its reader has not seen (games/talk/letters.py).
    labels = {s.number: s.label for s in batch.seats}
    talk, talk_rows = unseen_threads(batch.talk, seat, batch.game, labels) if row.asks_for_order else ([], [])
    return {
        "game": batch.facts,
        "phase": phase,
        "deadline": phase.deadline,
        "board_html": board.email_html,
        "board_txt": board.email_text,
        "public_view": batch.public_view,
        "shared_renders": batch.shared_renders,
        "my_games_url": settings.SITE_URL + reverse("games-mine"),
        # The reader's own:
        "player": addressee(seat.player),
        "seat_title": engine.seat_name(state, seat.number),
        "view": engine.view(state, seat.number),
        "prompt": row.phase.prompt_for(seat.number),
        "time_zone": seat.player.time_zone if seat.player else "UTC",
        "link": seat_url(seat, batch.current),
        "can_reply": reply_address(row) is not None,
        # The lines a reply would hold, filled with an order the engine says is legal now (games/replies.py).
        "reply_example": reply_example(row, batch) if reply_address(row) is not None else [],
        "news": log_lines(news),
        "older_news": older,
        "talk": talk,
        "talk_rows": talk_rows,
    }


def reply_example(row: OutboundEmail, batch: Batch) -> list[str]:
    prompt = row.phase.prompt_for(row.seat.number)
    if prompt is None or row.phase.status != Phase.Status.OPEN:  # the game's state is this open phase's
        return []
    return order_lines(prompt, batch.engine.example_order(batch.game.state, row.seat.number))


def build(row: OutboundEmail, batch: Batch | None = None) -> EmailMultiAlternatives:
    """The message for one outbox row, from templates/emails/<kind>-subject.txt (its headline), -body.txt,
    -body.html, with datetimes in the player's own time zone, in the reader's thread of the game."""
    return build_with_talk(row, batch or Batch.load(row.game, [row]))[0]


def build_with_talk(row: OutboundEmail, batch: Batch) -> tuple[EmailMultiAlternatives, list[int]]:
    """The message, and the inbox rows of the table talk it lists (games/talk/letters.py)."""
    context = _context(row, batch)
    zone = mail.zone_of(row.seat.player.time_zone if row.seat.player else None)
    rendered = mail.render(f"emails/{row.kind}", context, zone, thread_subject=GAME_SUBJECT)
    message = mail.compose(
        rendered,
        row.to,
        kind=row.kind,
        thread=mail.Thread(mail.message_id(f"pbem.{row.game_id}.{row.pk}"), root=batch.roots.get(row.to)),
        reply_to=reply_address(row),
        metadata={"game": str(row.game_id), "outbox": str(row.pk)},
        # News a player may decline carries the one-click unsubscribe; an owed-order email never does.
        declinable_by=row.seat.player if mailpolicy.declinable(row.kind) else None,
    )
    return message, context["talk_rows"]


def is_obsolete(row: OutboundEmail) -> bool:
    """A turn email or reminder for a phase that has resolved asks for something no longer wanted; and an email
    its player would no longer be written (the address bounced, or they declined it, since the row was)."""
    if row.asks_for_order and row.phase.status != Phase.Status.OPEN:
        return True
    return not mailpolicy.emails_seat(row.seat, row.kind)


def send_pending(game_id: int) -> int:
    """Send every pending email of a game (games/mail.py's deliver: each row rendered, then claimed just
    before its send and recorded just after). Returns how many went out."""
    rows = list(
        OutboundEmail.objects.filter(game_id=game_id, status=OutboundEmail.Status.PENDING)
        .select_related("game", "phase", "seat__player")
        .order_by("id")
    )
    if not rows:
        return 0
    batch = Batch.load(rows[0].game, rows)

    def outgoing() -> Iterator[mail.Outgoing]:
        for row in rows:
            if is_obsolete(row):
                yield mail.Outgoing([row.pk], None)
                continue
            message, talk_rows = build_with_talk(row, batch)
            item = mail.Outgoing([row.pk], message, record={"subject": message.subject[:250]})
            yield item
            if item.sent:  # the first email this reader got roots their thread
                batch.roots.setdefault(row.to, message.extra_headers["Message-ID"])
                mark_emailed(talk_rows)  # the table talk it listed is seen: no later email lists it again

    return mail.deliver(OutboundEmail, outgoing())


def unsent() -> QuerySet[OutboundEmail]:
    """Game emails owed and not yet sent (games/mail.py), for the health check."""
    return mail.unsent(OutboundEmail)


def wake_senders(game_ids: list[int]) -> None:
    for game_id in game_ids:
        after_commit(SEND_EMAILS, game_id)


mail.core_outboxes.append(Outbox(model=OutboundEmail, wake=wake_senders, value="game_id"))


def send_sign_in_link(player_id: int) -> bool:
    """Email a player the sign-in link /me/ offers (games/sessions.py decided it is due). Sent at once,
    not through the outbox: it is worth something only for its 30 minutes, and nothing retries it."""
    player = unique_row(Player.objects.filter(pk=player_id, sign_in_sent_at__isnull=False))
    if player is None:  # used already (or never asked for): nothing to send
        return False
    context = {"player": addressee(player), "link": sign_in_url(player), "minutes": SIGN_IN_MINUTES}
    rendered = mail.render("emails/sign-in", context, mail.zone_of(player.time_zone))
    message = mail.compose(rendered, player.email, kind="sign-in", thread=mail.Thread(mail.message_id()))
    try:
        message.send()
    except Exception as error:  # noqa: BLE001  (the player can ask again; the log says why it failed)
        log.warning("sign-in email to player %s failed: %s", player.pk, type(error).__name__)
        return False
    return True
