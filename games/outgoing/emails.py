"""Game emails (turn started, reminder, phase resolved, game over) and the sign-in email, through the mail
pipeline of games/outgoing/ (messages.py, outbox.py).

Rows are written by the service layer in the transaction that makes an email due, which wakes the sender
after commit (`wake_sender`: one call on its way serves every email due meanwhile, games/outgoing/wakes.py). The
sender, `send_due`, claims the oldest pending rows, whatever their games, renders them with the game as it is
now, reading what each game's emails share once, and hands them to the pipeline, which records each one just
after its send. A turn email for a phase that has already resolved is skipped, not sent. The sweep wakes the
sender again for rows whose call was lost and retries failures (games/outgoing/outbox.py, over this outbox and the
apps').
"""

from __future__ import annotations

import logging
import operator
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from functools import reduce
from typing import Any, NamedTuple

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db.models import Max, OuterRef, Q, QuerySet, Subquery
from django.urls import reverse
from django.utils.crypto import salted_hmac

from games import extensions, words
from games.engines import board_templates, get_engine
from games.engines.base import Engine
from games.extensions import EmailSection, Outbox, SectionShown, Told
from games.models import Event, Game, OutboundEmail, Phase, Player, Seat, unique_row
from games.outgoing import mailpolicy, messages, outbox, wakes
from games.outgoing.dispatch import SEND_DUE
from games.outgoing.facts import GameFacts, PhaseFacts, addressee, game_facts, log_lines, phase_facts
from games.outgoing.links import SIGN_IN_MINUTES, seat_url, sign_in_url, sign_up_url
from games.outgoing.order_text import SYNTAX, order_lines, written_prompt

log = logging.getLogger(__name__)
MAX_LOG_LINES = 40


# Every email of a game has this subject, so clients that thread by subject keep a game together; what
# changes (the kind's own subject) is the headline (games/outgoing/messages.py).
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
    """Where a reply to this email goes, if replies are taken (games/incoming/mail/inbound.py)."""
    if not settings.PBEM_REPLY_ADDRESS or not row.asks_for_order:
        return None
    local, _, domain = settings.PBEM_REPLY_ADDRESS.partition("@")
    return f"{local}+{row.pk}-{reply_signature(row)}@{domain}"


class Line(NamedTuple):
    """A log line as an email reads it."""

    seq: int
    seat: int | None  # None: public
    text: str
    message: dict[str, Any] | None  # the engine's message the line is (None: a line stored as English only)


@dataclass
class Batch:
    """What the emails of one game being sent together share, read once: the seats, the current phase, the
    log lines its readers have not been emailed yet, and the public facts every reader's email shows
    (games/outgoing/facts.py). A sender loads the batches of every game it claimed rows of together (`load_batches`),
    in a fixed number of queries, and renders per reader only what differs."""

    game: Game
    engine: Engine
    seats: list[Seat]  # read only when needed: the final standings' names, the names the apps' sections show
    current: Phase
    events: list[Line]
    # Each reader's email is in their language (Player.language): what all readers share is built and rendered once
    # per language, not once per reader. The public facts (games/outgoing/facts.py), by language:
    facts_by_language: dict[str, GameFacts]
    phases: dict[tuple[str, int], PhaseFacts]  # (language, phase id) -> its facts, built once for its readers
    # The board's parts every reader sees alike ({% shared %}, games/templatetags/shared_board.py) are rendered
    # from the spectator's view, once for the batch's readers in one time zone and language.
    public_view: dict[str, Any]
    shared_renders: dict[Any, str]
    roots: dict[str, str]  # address -> Message-ID of the game's first email sent to it
    # What each app's section of the turn emails gathered for this game (games/extensions.py, turn_email).
    sections: tuple[tuple[EmailSection, Any], ...]
    emailed_upto: dict[int, int] = field(default_factory=dict)  # seat id -> events_upto of what this sender sent
    # What every reader's email in one language shows alike, rendered once: the thread's subject (the game's
    # name), the links to My games and to the game's guide.
    shared: dict[tuple[str, str], str] = field(default_factory=dict)

    def once(self, name: str, make: Callable[[], str]) -> str:
        """`make()` for the first reader in the active language; the same for the others in it."""
        key = (words.get_language() or "", name)
        if key not in self.shared:
            self.shared[key] = make()
        return self.shared[key]

    @property
    def facts(self) -> GameFacts:
        """The game's public facts in the active language, built for its first reader in it."""
        language = words.get_language() or ""
        if language not in self.facts_by_language:
            self.facts_by_language[language] = game_facts(self.game, self.engine, self.seats)
        return self.facts_by_language[language]

    def phase(self, phase: Phase) -> PhaseFacts:
        key = (words.get_language() or "", phase.pk)
        if key not in self.phases:
            self.phases[key] = phase_facts(phase)
        return self.phases[key]

    def since(self, row: OutboundEmail) -> int:
        """The log's length at the seat's last email sent before this one: its news are the lines after it."""
        return max(emailed_upto(row), self.emailed_upto.get(row.seat_id, 0))

    def news(self, row: OutboundEmail) -> tuple[list[Line], int]:
        """The log lines this seat has not been emailed yet (public and its own), newest last, capped."""
        since, number = self.since(row), row.seat.number
        lines = [e for e in self.events if since < e.seq <= row.events_upto and e.seat in (None, number)]
        return lines[-MAX_LOG_LINES:], max(0, len(lines) - MAX_LOG_LINES)

    def sent(self, row: OutboundEmail, message_id: str) -> None:
        """`row` went out: the next emails to its reader point at the first one sent, and report what follows."""
        self.roots.setdefault(row.to, message_id)
        self.emailed_upto[row.seat_id] = row.events_upto


def with_history(rows: QuerySet[OutboundEmail]) -> QuerySet[OutboundEmail]:
    """Outbox rows with what an email needs of those sent before it, read in the same statement: the log's
    length at the seat's last email sent before this row (`emailed_upto`), and the Message-ID of the game's
    first email sent to the row's address (`thread_root`: later emails of the game point at it, so clients
    that thread by References keep the game together, for that reader)."""
    sent = OutboundEmail.objects.filter(status=OutboundEmail.Status.SENT)
    last_sent = (
        sent.filter(seat_id=OuterRef("seat_id"), id__lt=OuterRef("id"))
        .order_by()
        .values("seat_id")
        .annotate(upto=Max("events_upto"))
        .values("upto")
    )
    first_sent_to_reader = (
        sent.filter(game_id=OuterRef("game_id"), to=OuterRef("to")).exclude(message_id="").order_by("id")
    ).values("message_id")[:1]
    return rows.select_related("game", "phase", "seat__player").annotate(
        emailed_upto=Subquery(last_sent), thread_root=Subquery(first_sent_to_reader)
    )


def emailed_upto(row: OutboundEmail) -> int:
    """The `with_history` annotation: the log's length at the seat's last email sent before `row` (0: none)."""
    return getattr(row, "emailed_upto", None) or 0


def thread_root(row: OutboundEmail) -> str | None:
    """The `with_history` annotation: the Message-ID of the game's first email sent to the row's address."""
    return getattr(row, "thread_root", None)


def load_batches(rows: Sequence[OutboundEmail]) -> dict[int, Batch]:
    """The batch of each game among `rows` (read `with_history`), by game id. The log, the current phases, the
    apps' sections (table talk) and the seats they need are read for all the games together: a query each,
    whatever the number of games."""
    by_game: dict[int, list[OutboundEmail]] = {}
    for row in rows:
        by_game.setdefault(row.game_id, []).append(row)
    games = {game_id: game_rows[0].game for game_id, game_rows in by_game.items()}
    # The lines after the earliest of each game's readers' last emails, up to its newest row's.
    spans = [
        Q(
            game_id=game_id,
            seq__gt=min(emailed_upto(row) for row in game_rows),
            seq__lte=max(r.events_upto for r in game_rows),
        )
        for game_id, game_rows in by_game.items()
    ]
    events: dict[int, list[Line]] = {}
    lines = Event.objects.filter(reduce(operator.or_, spans)).order_by("game_id", "seq")
    for game_id, seq, seat_number, text, message in lines.values_list("game_id", "seq", "seat", "text", "message"):
        events.setdefault(game_id, []).append(Line(seq, seat_number, text, message))
    # The current phase is a turn email's own; a game whose rows are all news of an earlier phase reads it.
    current = {row.game_id: row.phase for row in rows if row.phase.number == games[row.game_id].phase_number}
    missing = [
        Q(game_id=game_id, number=game.phase_number) for game_id, game in games.items() if game_id not in current
    ]
    if missing:
        current |= {phase.game_id: phase for phase in Phase.objects.filter(reduce(operator.or_, missing))}
    # The apps' sections (table talk not read yet) are in the emails that ask for an order.
    asking = [game_id for game_id, game_rows in by_game.items() if any(r.asks_for_order for r in game_rows)]
    gathered = [(section, section.gather(asking) if asking else {}) for section in extensions.turn_email_sections()]
    # The seats' names: for the final standings of a game that is over, and the names its sections show.
    seats: dict[int, list[Seat]] = {}
    named = [game_id for game_id, game in games.items() if game.result or any(d.get(game_id) for _, d in gathered)]
    if named:
        for seat in Seat.objects.filter(game_id__in=named).select_related("player").order_by("game_id", "number"):
            seats.setdefault(seat.game_id, []).append(seat)
    batches = {}
    for game_id, game in games.items():
        engine = get_engine(game.engine)
        batches[game_id] = Batch(
            game=game,
            engine=engine,
            seats=seats.get(game_id, []),
            current=current[game_id],
            events=events.get(game_id, []),
            facts_by_language={},
            phases={},
            public_view=engine.view(game.state, None),
            shared_renders={},
            roots={row.to: root for row in by_game[game_id] if (root := thread_root(row))},
            sections=tuple((section, found[game_id]) for section, found in gathered if found.get(game_id)),
        )
    return batches


def sections_of(row: OutboundEmail, batch: Batch) -> list[tuple[SectionShown, Told]]:
    """A turn email or reminder shows the apps' sections: the table talk its reader has not seen."""
    if not (row.asks_for_order and batch.sections):
        return []
    labels = {s.number: s.label for s in batch.seats}
    found = [(section, section.content(gathered, row.seat, batch.game, labels)) for section, gathered in batch.sections]
    return [(SectionShown(s.html, s.text, content), (s, tokens)) for s, (content, tokens) in found]


def _context(row: OutboundEmail, batch: Batch, sections: list[SectionShown]) -> dict[str, Any]:
    """Only what this email's reader may see (games/outgoing/facts.py): the batch's public facts, then their seat's
    view, prompt, news and links."""
    seat, engine, state = row.seat, batch.engine, batch.game.state
    news, older = batch.news(row)
    board = board_templates(batch.game.engine)
    phase = batch.phase(row.phase)
    prompt = row.phase.prompt_for(seat.number)
    can_reply = reply_address(row) is not None
    return {
        "game": batch.facts,
        "phase": phase,
        "deadline": phase.deadline,
        "board_html": board.email_html,
        "board_txt": board.email_text,
        "public_view": batch.public_view,
        "shared_renders": batch.shared_renders,
        "my_games_url": batch.once("my games", lambda: settings.SITE_URL + reverse("games-mine")),
        "guide_url": batch.once("guide", lambda: settings.SITE_URL + reverse("games-rules", args=[batch.game.engine])),
        # The reader's own:
        "player": addressee(seat.player),
        "seat_title": words.render(engine.seat_name(state, seat.number)),
        "view": engine.view(state, seat.number),
        "prompt": written_prompt(prompt),  # with the words the help and the example write (order_text)
        "time_zone": seat.player.time_zone if seat.player else "UTC",
        "link": seat_url(seat, batch.current),
        "can_reply": can_reply,
        # The lines a reply would hold, filled with an order the engine says is legal now
        # (games/incoming/mail/replies.py).
        "reply_example": reply_example(row, batch, prompt) if can_reply else [],
        "reply_syntax": SYNTAX,  # its separators, and (reply_steps) whether a value here may span lines
        "reply_steps": any(SYNTAX.spans_lines(spec) for spec in (prompt or {}).get("fields", [])),
        "news": log_lines(news),
        "older_news": older,
        "sections": sections,
    }


def reply_example(row: OutboundEmail, batch: Batch, prompt: dict[str, Any] | None) -> list[str]:
    """`prompt`: the row's phase's prompt for its seat, rendered (`_context` has it)."""
    if prompt is None or row.phase.status != Phase.Status.OPEN:  # the game's state is this open phase's
        return []
    return order_lines(prompt, batch.engine.example_order(batch.game.state, row.seat.number))


def build(row: OutboundEmail) -> EmailMultiAlternatives:
    """The message for one outbox row, from templates/emails/<kind>-subject.txt (its headline), -body.txt,
    -body.html, with datetimes in the player's own time zone, in the reader's thread of the game."""
    read = with_history(OutboundEmail.objects.filter(pk=row.pk)).get()
    return build_with_sections(read, load_batches([read])[read.game_id])[0]


def build_with_sections(row: OutboundEmail, batch: Batch) -> tuple[EmailMultiAlternatives, list[Told]]:
    """The message, and the apps' sections it shows (each told once the message went out), in its reader's
    language (Content-Language says which)."""
    language = messages.language_of(row.seat.player)
    with words.speaking(language):
        sections = sections_of(row, batch)
        context = _context(row, batch, [section for section, _ in sections])
        zone = messages.zone_of(row.seat.player.time_zone if row.seat.player else None)
        # The thread's subject names the game alone: the same for every reader in a language, whatever their zone.
        subject = batch.once("subject", lambda: messages.render_line(GAME_SUBJECT, {"game": batch.facts}, zone))
        rendered = messages.render(f"emails/{row.kind}", context, zone, language=language)
    rendered = messages.headlined(rendered, subject)
    message = messages.compose(
        rendered,
        row.to,
        kind=row.kind,
        thread=messages.Thread(messages.message_id(f"pbem.{row.game_id}.{row.pk}"), root=batch.roots.get(row.to)),
        reply_to=reply_address(row),
        metadata={"game": str(row.game_id), "outbox": str(row.pk)},
        # News a player may decline carries the one-click unsubscribe; an owed-order email never does.
        declinable_by=row.seat.player if mailpolicy.declinable(row.kind) else None,
    )
    return message, [shown for _, shown in sections]


def for_holder(row: OutboundEmail) -> bool:
    """The row is addressed to whoever holds its seat now, at their address now. An email is rendered when it is
    sent, with the seat's hand and live links: one written for an earlier holder (the seat was replaced since),
    or for an address its player has left, would give them to someone who no longer holds the seat."""
    return row.seat.player is not None and row.to == row.seat.player.email


def is_obsolete(row: OutboundEmail) -> bool:
    """A turn email or reminder for a phase that has resolved asks for something no longer wanted; an email
    its player would no longer be written (the address bounced, or they declined it, since the row was); and
    one to somebody who no longer holds the seat."""
    if row.asks_for_order and row.phase.status != Phase.Status.OPEN:
        return True
    return not for_holder(row) or not mailpolicy.emails_seat(row.seat, row.kind)


# Rows a sender claims at a time: a burst (a league's deadline) goes out in tasks of this many emails, each
# reading what its games share in a handful of queries.
SEND_BATCH = 100
# Batches a sender takes before it leaves the rest to the next sender (`send_due`): 1,000 emails, about 5 minutes at
# a provider's 0.3 s a call, well inside the broker's visibility timeout (settings.PBEM_BROKER_VISIBILITY_TIMEOUT).
SEND_ROUNDS = 10


def send_due() -> int:
    """The game emails' sender, woken by `wake_sender` (games/outgoing/wakes.py: one call on its way wakes it for all
    the emails due meanwhile): takes the oldest pending rows, SEND_BATCH at most, and sends them, then what fell due
    while it sent, until none is left (SEND_ROUNDS batches at most; then another sender is woken for the rest). A
    full batch wakes another sender first, so a burst spreads over the email workers. Returns how many went out.

    While it sends, the transactions that make emails due find its call on its way and publish none: it takes their
    rows in its next round, without a gathering pause between batches (the last email of a burst of 200 resolutions
    went out a median 150 ms after the last resolution instead of 290), and without a second sender beside it that
    would leave the worker no process free for a resolution (bench/README.md, issue 43)."""
    sent = 0
    with outbox.unflushed_commits():
        pending = with_history(OutboundEmail.objects.filter(status=OutboundEmail.Status.PENDING))
        for _ in range(SEND_ROUNDS):
            rows = _claim(pending)
            if not rows:
                # From here on newly due emails need a call of their own; one more look takes those of the
                # transactions that committed while this sender still stood for their call, and no more: what
                # falls due after it goes to the call it publishes, not to a second sender running beside this one.
                wakes.drained(SEND_DUE)
                return sent + send_claimed(_claim(pending))
            sent += send_claimed(rows)
        wakes.drained(SEND_DUE)
    wake_sender()  # a long burst: the rest goes to a sender of its own, so other email work has its turn
    return sent


def _claim(pending: QuerySet[OutboundEmail]) -> list[OutboundEmail]:
    """Up to SEND_BATCH pending emails for this sender. A full batch first wakes another sender, so a backlog spreads
    over the email workers."""
    rows = outbox.claim_pending(pending, SEND_BATCH)
    if len(rows) == SEND_BATCH:
        wakes.wake_another(SEND_DUE, EMAIL_GATHER)
    return rows


def send_pending(game_id: int) -> int:
    """Send every pending email of one game now (the admin's "send again", tests). Returns how many went out."""
    pending = OutboundEmail.objects.filter(game_id=game_id, status=OutboundEmail.Status.PENDING)
    with outbox.unflushed_commits():
        return send_claimed(outbox.claim_pending(with_history(pending)))


def send_claimed(rows: list[OutboundEmail]) -> int:
    """Render, send and record each claimed row (games/outgoing/outbox.py's send_claimed), its game's shared parts read
    once (`load_batches`). A turn email for a phase that has resolved, or one its reader would no longer be
    written, is skipped."""
    if not rows:
        return 0
    batches = load_batches(rows)

    def outgoing() -> Iterator[outbox.Outgoing]:
        for row in rows:
            if is_obsolete(row):
                yield outbox.Outgoing([row.pk], None)
                continue
            batch = batches[row.game_id]
            try:
                message, sections = build_with_sections(row, batch)
            except Exception as error:  # noqa: BLE001  (one email that cannot be built must not stop the rest)
                # It fails like a provider's refusal, so the sweep retries it (MAX_ATTEMPTS). Only the exception's
                # name is kept and logged: its words could quote the game's state.
                log.error("game email %s could not be built: %s", row.pk, type(error).__name__)
                yield outbox.Outgoing([row.pk], None, failed=f"could not be built: {type(error).__name__}")
                continue
            item = outbox.Outgoing([row.pk], message, record={"subject": message.subject[:250]})
            yield item
            if item.sent:
                batch.sent(row, message.extra_headers["Message-ID"])
                for section, tokens in sections:  # what it showed is seen: no later email shows it again
                    section.sent(tokens)

    return outbox.send_claimed(OutboundEmail, outgoing())


def unsent() -> QuerySet[OutboundEmail]:
    """Game emails owed and not yet sent (games/outgoing/outbox.py), for the health check."""
    return outbox.unsent(OutboundEmail)


# The sender starts this long after its call, so the emails of the games resolving meanwhile (a league's
# deadline resolves hundreds at once) go out with them, in one task. Nobody notices a fifth of a second on an
# email.
EMAIL_GATHER = timedelta(milliseconds=200)


def wake_sender(*_: object) -> None:
    """After commit, wake the sender of game emails, unless a call is on its way (games/outgoing/wakes.py): how a
    game email is sent, whoever made it due (a resolution, a reminder); the sweep's own calls are below."""
    wakes.wake_once(SEND_DUE, EMAIL_GATHER)


def wake_sender_for_stragglers(*_: object) -> None:
    """The sweep's call for the emails it puts back or finds left over (games/outgoing/outbox.py: failures retried,
    rows pending over a minute): made even if a call seems on its way, since that call may be lost, or its sender
    dead while it stood for the call."""
    wakes.wake_another(SEND_DUE, EMAIL_GATHER)


# The core's outbox, registered with the apps' (GamesConfig.ready()): the sweep retries and wakes them alike.
OUTBOX = Outbox(model=OutboundEmail, wake=wake_sender_for_stragglers, value="game_id")


def send_sign_in_link(player_id: int) -> bool:
    """Email a player the sign-in link /me/ offers (games/incoming/sessions.py decided it is due). Sent at once,
    not through the outbox: it is worth something only for its 30 minutes, and nothing retries it."""
    player = unique_row(Player.objects.filter(pk=player_id, sign_in_sent_at__isnull=False))
    if player is None:  # used already (or never asked for): nothing to send
        return False
    context = {"player": addressee(player), "link": sign_in_url(player), "minutes": SIGN_IN_MINUTES}
    zone, language = messages.zone_of(player.time_zone), messages.language_of(player)
    rendered = messages.render("emails/sign-in", context, zone, language=language)
    return messages.send_at_once(rendered, player.email, kind="sign-in", player_id=player.pk)


def send_sign_up_link(address: str, language: str = "") -> bool:
    """Email an address that is nobody's the link that makes its account (games/incoming/signup.py decided it is
    due), in the language of the page that asked for it. Sent at once, like a sign-in link: there is no player,
    and so no row, until the link is used."""
    context = {"link": sign_up_url(address), "minutes": SIGN_IN_MINUTES}
    language = messages.language_of(Player(language=language))
    rendered = messages.render("emails/sign-up", context, messages.zone_of(None), language=language)
    return messages.send_at_once(rendered, address, kind="sign-up", player_id=0)
