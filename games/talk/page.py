"""What the game page shows of table talk, as plain frozen values (templates get facts, games/outgoing/facts.py): the
reader's conversations, one of them a page at a time (newest last), the form, and who they may share a
private conversation with. A fixed number of queries whatever the number of messages: the conversations in
one grouped query (which counts them), the page shown in one slice. Page 1 is the newest messages, shown
oldest first, newest last; page 2 the ones before them, and so on."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Count, Max
from django.http import HttpRequest
from django.utils.translation import gettext, pgettext

from games import words
from games.engines import get_engine
from games.engines.base import Engine
from games.extensions import Panel
from games.models import Game, Seat
from games.talk import services
from games.talk.forms import MessageForm
from games.talk.models import TABLE, Message, thread_seats
from games.talk.options import NONE, press_of

PAGE_SIZE = 30


@dataclass(frozen=True)
class MessageLine:
    id: int
    author: str  # the writer as the table named them (their name, or their seat)
    author_title: str  # the seat in the rules' words
    text: str
    sent_at: datetime
    mine: bool
    reportable: bool  # written to the reader by someone else


@dataclass(frozen=True)
class ThreadLine:
    key: str
    name: str
    count: int
    selected: bool


@dataclass(frozen=True)
class Newcomer:
    number: int
    label: str


@dataclass(frozen=True)
class TalkFacts:
    thread: ThreadLine
    threads: tuple[ThreadLine, ...]
    messages: tuple[MessageLine, ...]
    page: int
    pages: int
    can_write: bool
    newcomers: tuple[Newcomer, ...]  # seats of this private conversation the reader may share it with


def thread_name(key: str, labels: dict[int, str], reader: int | None) -> str:
    if key == TABLE:
        return gettext("The whole table")
    you = pgettext("among the people a private message is between", "you")
    seats = thread_seats(key)
    names = [you if n == reader else labels.get(n, gettext("Seat %(number)s") % {"number": n + 1}) for n in seats]
    names.sort(key=lambda name: name != you)
    listed = (
        gettext("%(names)s and %(last)s") % {"names": ", ".join(names[:-1]), "last": names[-1]}
        if len(names) > 1
        else names[0]
    )
    return gettext("Private: %(names)s") % {"names": listed[0].upper() + listed[1:]}


def recipients(seats: Sequence[Seat], reader: Seat | None) -> list[tuple[int, str]]:
    return [
        (s.number, s.label)
        for s in seats
        if reader is not None and s.number != reader.number and s.player_id is not None and not s.is_bot
    ]


def message_form(
    game: Game, seats: Sequence[Seat], reader: Seat | None, data: Any = None, thread: str = TABLE
) -> MessageForm:
    """The form, its seats ticked for a reply in `thread`."""
    private = press_of(game.options).private_allowed
    to = recipients(seats, reader) if private else []
    initial = {"to": [n for n in thread_seats(thread) if reader is None or n != reader.number]}
    return MessageForm(data, recipients=to, initial=initial)


def _line(message: Message, engine: Engine, state: dict[str, Any], reader: Seat | None) -> MessageLine:
    mine = reader is not None and message.sender_seat == reader.number and message.sender_id == reader.player_id
    return MessageLine(
        id=message.pk,
        author=message.sender.name or gettext("Seat %(number)s") % {"number": message.sender_seat + 1},
        author_title=words.render(engine.seat_name(state, message.sender_seat)),
        text=message.text,
        sent_at=message.sent_at,
        mine=mine,
        reportable=reader is not None and reader.player_id is not None and not mine,
    )


def talk_context(
    request: HttpRequest, game: Game, engine: Engine, seats: Sequence[Seat], reader: Seat | None, form: Any = None
) -> dict[str, Any]:
    """`talk` (TalkFacts, or None in a game without table talk) and `talk_form` for the page; `form` is a
    posted form shown again with its errors."""
    press = press_of(game.options)
    visible = services.visible(game, reader)
    counts = {row["thread"]: row for row in visible.values("thread").annotate(n=Count("pk"), last=Max("pk"))}
    if press.mode == NONE and not counts:
        return {"talk": None, "talk_form": None}
    labels = {s.number: s.label for s in seats}
    number = reader.number if reader is not None else None
    asked = request.GET.get("talk", TABLE)
    key = asked if asked in counts else TABLE
    ordered = sorted(counts.values(), key=lambda row: (row["thread"] != TABLE, -row["last"]))
    if TABLE not in counts:
        ordered.insert(0, {"thread": TABLE, "n": 0, "last": 0})
    threads = tuple(
        ThreadLine(row["thread"], thread_name(row["thread"], labels, number), row["n"], row["thread"] == key)
        for row in ordered
    )
    pages = max(1, -(-counts.get(key, {"n": 0})["n"] // PAGE_SIZE))
    asked_page = request.GET.get("page", "")
    page = min(max(int(asked_page), 1), pages) if asked_page.isdigit() else 1
    newest_first = visible.filter(thread=key).select_related("sender").order_by("-pk")
    rows = reversed(newest_first[(page - 1) * PAGE_SIZE : page * PAGE_SIZE])
    shown = [_line(message, engine, game.state, reader) for message in rows]
    can_write = reader is not None and press.mode != NONE and game.status != Game.Status.FINISHED
    newcomers: tuple[Newcomer, ...] = ()
    if reader is not None:
        services.mark_seen(reader, [line.id for line in shown if not line.mine])
        if key != TABLE and can_write:
            newcomers = tuple(Newcomer(s.number, s.label) for s in services.newcomers(reader, key))
    talk = TalkFacts(
        thread=next(t for t in threads if t.selected),
        threads=threads,
        messages=tuple(shown),
        page=page,
        pages=pages,
        can_write=can_write,
        newcomers=newcomers,
    )
    if can_write and form is None:
        form = message_form(game, seats, reader, thread=key)
    return {"talk": talk, "talk_form": form if can_write else None}


PANEL = "games/_talk.html"


def game_panel(request: HttpRequest, game: Game, reader: Seat | None, form: Any = None) -> Panel | None:
    """The game page's table talk (registered with games/extensions.py, `game_panel`): `talk` and `talk_form`
    for its template; none in a game played without it that has no messages. `form`: a posted message shown
    again with its errors."""
    seats = list(Seat.objects.filter(game=game).select_related("player").order_by("number"))
    context = talk_context(request, game, get_engine(game.engine), seats, reader, form)
    return Panel(PANEL, context) if context["talk"] is not None else None
