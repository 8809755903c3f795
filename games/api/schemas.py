"""The shapes of the API's requests and answers (pydantic models through django-ninja): what the OpenAPI
schema at /api/v1/openapi.json documents and what schemathesis checks every answer against."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ninja import Field, Schema


class PlayerOut(Schema):
    id: int | None = Field(description="The caller's player id; null for a browser holding only seat links.")
    name: str
    bot: bool
    scope: str = Field(description="'play' or 'read': what this caller may do.")


class PhaseOut(Schema):
    number: int
    name: str = Field(
        description="The turn's name in your language (the request's Accept-Language, else your player's: docs/api.md)."
    )
    message: dict[str, Any] | None = Field(
        description="The engine's message the name is, as a log line's `message`; null for a turn opened before "
        "the names were messages (its `name` is its English)."
    )
    deadline: datetime


class FinalRowOut(Schema):
    rank: int
    label: str
    title: str
    score: int
    detail: str


class GameSummaryOut(Schema):
    id: int
    title: str = Field(description="The game's name in the caller's language: the organiser's title, or the game's.")
    given_title: str = Field(description="The organiser's title as typed; empty when they gave none.")
    engine: str
    engine_title: str
    status: str = Field(description="active, paused or finished")


class GameOut(GameSummaryOut):
    result: list[FinalRowOut] = Field(description="The final standings, once the game is over.")


class SeatOut(Schema):
    number: int = Field(description="Seats are numbered from 0.")
    label: str = Field(description="Its player as the table sees them, or 'Bot n'.")
    title: str = Field(description="The seat in the rules' words (a colour, a country).")
    owes: bool = Field(description="Asked for an order in the current turn.")
    submitted: bool = Field(description="Has sent it (never what it says).")


class MyGameOut(Schema):
    game: GameSummaryOut
    seat: SeatOut
    phase: PhaseOut | None
    owes: bool


class LogLineOut(Schema):
    phase: int
    text: str = Field(
        description="The line in your language (the request's Accept-Language, else your player's: docs/api.md)."
    )
    message: dict[str, Any] | None = Field(
        description="The engine's message the line is, for a client that renders it itself: `id` (the English "
        "template, a gettext msgid with {name} placeholders), `params` (numbers, ids, or nested messages such as "
        "a good's name) and, where it has them, `context` (gettext's msgctxt) and `plural` with `count`. "
        "Null for a line logged before the engines spoke in messages: its `text` is its English."
    )
    private: bool = Field(description="Only your seat reads this line.")


class ReadBackOut(Schema):
    lines: list[str]
    warnings: list[str]


class OwnOrderOut(Schema):
    phase: int
    revision: int
    order: dict[str, Any]
    read_back: ReadBackOut


class GameViewOut(Schema):
    game: GameOut
    seat: SeatOut | None = Field(description="Your seat; null when you watch.")
    phase: PhaseOut | None
    table: list[SeatOut]
    view: dict[str, Any] = Field(description="The engine's view of the game for your seat: what you may see.")
    log: list[LogLineOut] = Field(description="The latest 200 log lines you may read, oldest first.")
    own_order: OwnOrderOut | None


class PromptOut(Schema):
    phase: PhaseOut
    kind: str
    text: str
    fields: list[dict[str, Any]] = Field(description="The prompt's fields as the order form builds them.")
    order_schema: dict[str, Any] = Field(description="A JSON Schema (2020-12) of the order asked for.")
    example: dict[str, Any] | None = Field(description="A legal order, as the turn email's example.")
    needs_confirmation: bool = Field(description="Only you are asked: check, then confirm, your order.")


class StepOut(Schema):
    value: str = Field(description="The step as typed; '{n}' stands for a number within `amount`.")
    label: str
    amount: list[int] | None = None
    unit: str = ""


class NextStepsOut(Schema):
    steps: list[str]
    choices: list[StepOut]
    complete: bool = Field(description="The steps so far are a legal order as they stand.")
    problem: str


class OrderIn(Schema):
    phase: int = Field(description="The turn's number (from the prompt): an order for a turn that moved on is refused.")
    order: dict[str, Any] = Field(description="One value per prompt field, shaped as `order_schema` says.")


class CheckedOut(Schema):
    read_back: ReadBackOut
    needs_confirmation: bool
    confirmation: str | None = Field(description="For a one-seat turn: send it to .../order/confirm to store it.")


class ConfirmIn(Schema):
    confirmation: str


class StoredOut(Schema):
    phase: int
    revised: bool
    complete: bool = Field(description="Every owed order of the turn is now in.")
    message: str = Field(description="What the page says after the same order.")
    read_back: ReadBackOut


class PastTurnOut(Schema):
    number: int
    name: str = Field(description="The turn's name in your language.")


class TurnOut(Schema):
    number: int
    name: str
    view: dict[str, Any] | None = Field(description="Your seat's view as the turn was decided; null if lost.")
    read_back: ReadBackOut | None = Field(description="Your own order of that turn, in words.")
    log: list[LogLineOut]


class ThreadOut(Schema):
    key: str
    name: str
    count: int
    selected: bool


class MessageOut(Schema):
    id: int
    author: str
    author_title: str
    text: str
    sent_at: datetime
    mine: bool
    reportable: bool


class TalkOut(Schema):
    thread: str
    threads: list[ThreadOut]
    messages: list[MessageOut]
    page: int
    pages: int
    can_write: bool
    private_allowed: bool


class MessageIn(Schema):
    text: str
    to: list[int] = Field(default=[], description="Seat numbers for a private message; empty: the whole table.")


class SentOut(Schema):
    id: int
    thread: str


class ReportIn(Schema):
    reason: str = ""


class StandingOut(Schema):
    rank: int
    player: str
    points: float
    games: int
    wins: float
    average_place: float
    reliability: float
    rating: float


class StandingsOut(Schema):
    league: str
    name: str
    season: int | None
    rows: list[StandingOut]
