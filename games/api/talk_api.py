"""Table talk: read a conversation, write to the table or privately, report a message; within the game's
press options, through games.talk's services (the page's refusals, the page's rate limit)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja import Router, Status

from games.api.problems import ERRORS, Problem
from games.api.schemas import MessageIn, ReportIn, SentOut, TalkOut
from games.api.views_common import caller, game_or_404, my_seat
from games.engines import get_engine
from games.talk import services
from games.talk.models import TABLE
from games.talk.options import press_of
from games.talk.page import talk_context

router = Router(tags=["table talk"])


@router.get("/games/{game_id}/talk", response={200: TalkOut, **ERRORS}, summary="Read table talk")
def read(request: HttpRequest, game_id: int, talk: str = TABLE, page: int = 1) -> dict[str, Any]:
    """A conversation the caller may read (`talk`: "table", or a private conversation's key from `threads`),
    thirty messages a page, page 1 the newest; the messages shown are no longer news in the caller's emails,
    as on the page. A game without table talk answers 404."""
    seat = caller(request).seat(game_id)
    game = seat.game if seat is not None else game_or_404(game_id)
    seats = list(game.seats.select_related("player"))
    query = request.GET.copy()  # the page's own reader takes its `talk` and `page` from the query
    query["talk"], query["page"] = talk, str(max(page, 1))
    request.GET = query  # type: ignore[assignment]
    found = talk_context(request, game, get_engine(game.engine), seats, seat)["talk"]
    if found is None:
        raise Problem(404, "no-talk", _("This game is played without table talk."))
    return {
        "thread": found.thread.key,
        "threads": [t.__dict__ for t in found.threads],
        "messages": [m.__dict__ for m in found.messages],
        "page": found.page,
        "pages": found.pages,
        "can_write": found.can_write,
        "private_allowed": press_of(game.options).private_allowed,
    }


@router.post("/games/{game_id}/talk", response={200: SentOut, **ERRORS}, summary="Write a message")
def write(request: HttpRequest, game_id: int, body: MessageIn) -> dict[str, Any]:
    """To the whole table, or privately to the seats numbered in `to` where the game allows it."""
    caller(request).must_play()
    seat = my_seat(request, game_id)
    try:
        message = services.post(seat, seat.player, body.text, body.to)
    except services.Refused as refusal:
        raise Problem(422, "talk-refused", str(refusal), errors=[{"field": refusal.field}]) from None
    return {"id": message.pk, "thread": message.thread}


@router.post(
    "/games/{game_id}/talk/{message_id}/report",
    response={204: None, **ERRORS},
    summary="Report a message to the organisers",
)
def report(request: HttpRequest, game_id: int, message_id: int, body: ReportIn) -> Status[None]:
    caller(request).must_play()
    seat = my_seat(request, game_id)
    try:
        services.report(seat, message_id, body.reason)
    except services.Refused as refusal:
        raise Problem(422, "talk-refused", str(refusal)) from None
    return Status(204, None)
