"""What a page or email template may know of a game, as plain frozen values.

A template gets these public facts, the engine's view for its reader's seat and the reader's own prompt,
and nothing else: no model instance (a Game holds the state and the seed, a Phase every seat's prompt, and
a Seat, Player, Order or Event leads back to its game), no engine. So what a template can show is decided
here and by the engine's view, not by each template's care (tests/outgoing/test_template_secrecy.py walks every
context). The facts shared by every reader of a game are built once (`GameFacts`, `PhaseFacts`); what
differs per reader is a few values beside them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence, Set
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from games import words
from games.engines import get_engine
from games.engines.base import Engine
from games.models import Game, Order, Phase, Player, Seat


@dataclass(frozen=True)
class FinalRow:
    """One line of the final standings."""

    rank: int
    label: str  # the seat's player, as the table sees them (Seat.label)
    title: str  # the seat in the rules' words (a country, a colour)
    score: int
    detail: str


@dataclass(frozen=True)
class GameFacts:
    id: int
    title: str  # the game's name as read: the organiser's title, or the game's name rendered when read
    given_title: str  # the organiser's title as typed, blank when they gave none
    engine_title: str
    status: str
    result: tuple[FinalRow, ...]  # empty until the game is over


@dataclass(frozen=True)
class PhaseFacts:
    number: int
    name: str
    deadline: datetime


@dataclass(frozen=True)
class SeatFacts:
    number: int
    label: str
    title: str
    owes: bool = False  # asked for an order in the current phase
    submitted: bool = False  # has sent it (never what it says)


@dataclass(frozen=True)
class LogLine:
    text: str
    private: bool  # a line only the reader's seat sees


@dataclass(frozen=True)
class Addressee:
    """The player an email is written to: how it greets them, the zone its times are shown in."""

    name: str
    display_name: str
    time_zone: str


@dataclass(frozen=True)
class OwnOrder:
    """The reader's stored order, as the page mentions it (the form holds its content)."""

    revision: int


def game_facts(game: Game, engine: Engine | None = None, seats: Sequence[Seat] | None = None) -> GameFacts:
    """`seats` are the game's seats with their players, for the final standings' names (read here if they
    are needed and not given)."""
    engine = engine or get_engine(game.engine)
    if seats is None:
        seats = list(game.seats.select_related("player")) if game.result else []
    by_number = {seat.number: seat for seat in seats}
    result = tuple(
        FinalRow(
            rank=row["rank"],
            label=by_number[row["seat"]].label,
            title=words.later(engine.seat_name(game.state, row["seat"])),
            score=row["score"],
            detail=words.later(row.get("detail_message") or row["detail"]),
        )
        for row in game.result
    )
    return GameFacts(
        id=game.pk,
        title=game.name_later,
        given_title=game.title,
        engine_title=words.game_title_later(engine.title),
        status=game.status,
        result=result,
    )


def phase_facts(phase: Phase) -> PhaseFacts:
    return PhaseFacts(number=phase.number, name=words.later(phase.message or phase.name), deadline=phase.deadline)


def seat_facts(
    game: Game, engine: Engine, seats: Iterable[Seat], phase: Phase | None = None, submitted: Set[int] = frozenset()
) -> tuple[SeatFacts, ...]:
    """The table: each seat's names and, in `phase`, whether it owes an order and has sent it."""
    owed = set(phase.owed_seats) if phase is not None else set()
    return tuple(
        SeatFacts(
            number=seat.number,
            label=seat.label,
            title=words.render(engine.seat_name(game.state, seat.number)),
            owes=seat.number in owed,
            submitted=seat.number in submitted,
        )
        for seat in seats
    )


def log_lines(events: Iterable[Any]) -> list[LogLine]:
    """Log lines already filtered for their reader (public lines and the reader's own): Events, or the emails'
    lighter rows with the same `seat`, `text` and `message`, in the active language (each email's own is built
    with its reader's)."""
    return [LogLine(text=words.render(event.message or event.text), private=event.seat is not None) for event in events]


def addressee(player: Player | None) -> Addressee:
    if player is None:
        return Addressee(name="", display_name="", time_zone="UTC")
    return Addressee(name=player.name, display_name=player.display_name, time_zone=player.time_zone)


def own_order(order: Order | None) -> OwnOrder | None:
    return OwnOrder(revision=order.revision) if order is not None else None


@dataclass(frozen=True)
class MailProblem:
    """What the mail provider told us of the reader's own address, for the banner asking them to fix it."""

    bounced: bool  # False: a complaint (marked as spam)
    since: datetime
    address: str


def mail_problem(player: Player | None) -> MailProblem | None:
    if player is None or not player.mail_problem or player.mail_problem_at is None:
        return None
    bounced = player.mail_problem == Player.MailProblem.BOUNCED
    return MailProblem(bounced=bounced, since=player.mail_problem_at, address=player.email)
