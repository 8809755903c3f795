"""My games, a game as my seat sees it, the prompt of the current turn and my order in it."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from ninja import Query, Router, Schema

from games import words
from games.api import calls, orders, prompts
from games.api.models import Bot
from games.api.problems import ERRORS, TURN_ERRORS, Problem
from games.api.schemas import (
    CheckedOut,
    ConfirmIn,
    GameViewOut,
    MyGameOut,
    NextStepsOut,
    OrderIn,
    OwnOrderOut,
    PlayerOut,
    PromptOut,
    StoredOut,
)
from games.api.views_common import caller, game_json, game_or_404, log_json, my_seat, phase_json, read_back_json
from games.engines import OrderError, get_engine
from games.models import Game, Order, Phase, Seat, unique_row
from games.outgoing import facts

router = Router(tags=["games"])
CLOSED = gettext_lazy(
    "That turn is no longer open, so nothing was stored."
)  # the page's words (games/incoming/order_views.py)


@router.get("/me", response={200: PlayerOut, **ERRORS}, summary="Who the caller is")
def me(request: HttpRequest) -> dict[str, Any]:
    who = caller(request)
    player = who.player
    return {
        "id": player.pk if player else None,
        "name": player.display_name if player else "",
        "bot": player is not None and Bot.objects.filter(player=player).exists(),
        "scope": "play" if who.can_play else "read",
    }


@router.get("/games", response={200: list[MyGameOut], **ERRORS}, summary="My games and seats")
def my_games(request: HttpRequest) -> list[dict[str, Any]]:
    """Every seat the caller holds, the games where an order is owed first, then games in play, newest first."""
    seats = caller(request).seats()
    phases = {
        phase.game_id: phase
        for phase in Phase.objects.filter(game__in=[s.game_id for s in seats], status=Phase.Status.OPEN)
    }
    sent = set(Order.objects.filter(phase__in=list(phases.values()), seat__in=seats).values_list("seat_id", flat=True))
    rows: list[dict[str, Any]] = []
    for seat in seats:
        game = seat.game
        phase = phases.get(game.pk)
        engine = get_engine(game.engine)
        owes = phase is not None and phase.owes(seat.number)
        rows.append(
            {
                "game": {
                    "id": game.pk,
                    "title": game.name,
                    "given_title": game.title,
                    "engine": game.engine,
                    "engine_title": words.game_title(engine.title),
                    "status": game.status,
                },
                "seat": {
                    "number": seat.number,
                    "label": seat.label,
                    "title": words.render(engine.seat_name(game.state, seat.number)),
                    "owes": owes,
                    "submitted": seat.pk in sent,
                },
                "phase": phase_json(phase),
                "owes": owes and seat.pk not in sent,
            }
        )
    rows.sort(key=lambda r: (not r["owes"], r["game"]["status"] == Game.Status.FINISHED, -r["game"]["id"]))
    return rows


@router.get("/games/{game_id}", response={200: GameViewOut, **ERRORS}, summary="A game as my seat sees it")
def game_view(request: HttpRequest, game_id: int) -> dict[str, Any]:
    """What the game page shows this caller: the public facts, the engine's view for their seat (a spectator's
    where they hold none), the log lines they may read and their own order of the turn, read back."""
    seat = caller(request).seat(game_id)
    game = seat.game if seat is not None else game_or_404(game_id)
    engine = get_engine(game.engine)
    number = seat.number if seat is not None else None
    phase = calls.open_phase(seat) if seat is not None else calls.current_phase(game)
    seats = list(game.seats.select_related("player"))
    table = facts.seat_facts(game, engine, seats, phase, calls.submitted_seats(phase) if phase else set())
    own = None
    if phase is not None and seat is not None and phase.owes(seat.number):
        stored = unique_row(Order.objects.filter(phase=phase, seat=seat))
        if stored is not None:
            own = _own(game, seat, phase, stored)
    events = list(calls.visible_events(game, number).order_by("-seq")[:200])[::-1]
    return {
        "game": game_json(facts.game_facts(game, engine, seats), game.engine),
        "seat": next((row.__dict__ for row in table if row.number == number), None),
        "phase": phase_json(phase),
        "table": [row.__dict__ for row in table],
        "view": engine.view(game.state, number),
        "log": [log_json(e) for e in events],
        "own_order": own,
    }


def _own(game: Game, seat: Seat, phase: Phase, stored: Order) -> dict[str, Any]:
    read = calls.read_back(game, seat.number, stored.data)
    return {"phase": phase.number, "revision": stored.revision, "order": stored.data, "read_back": read_back_json(read)}


def _asked(request: HttpRequest, game_id: int, phase_number: int | None = None) -> tuple[Seat, Phase, dict[str, Any]]:
    """The caller's seat, the open turn and what it asks them; 409 if the turn is not open to them (or is not
    turn `phase_number`)."""
    seat = my_seat(request, game_id)
    phase = calls.open_phase(seat)
    if phase is None or (phase_number is not None and phase.number != phase_number):
        raise Problem(
            409, "turn-closed", str(CLOSED) if phase_number is not None else _("No turn is open in this game.")
        )
    prompt = phase.prompt_for(seat.number)
    if prompt is None:
        raise Problem(409, "not-asked", _("You owe no order in this turn."))
    return seat, phase, prompt


@router.get("/games/{game_id}/prompt", response={200: PromptOut, **TURN_ERRORS}, summary="What I am asked")
def prompt(request: HttpRequest, game_id: int) -> dict[str, Any]:
    """The current turn's prompt for the caller's seat: its text, its fields, a JSON Schema of the order it asks
    for and an example of a legal order (the turn email's)."""
    seat, phase, asked = _asked(request, game_id)
    engine = get_engine(seat.game.engine)
    try:
        shown = engine.example_order(seat.game.state, seat.number)
    except OrderError:
        shown = None
    # As the turn email shows it: a line per field of the prompt (an engine's order may hold more keys).
    example = {spec["name"]: shown.get(spec["name"]) for spec in asked["fields"]} if shown is not None else None
    return {
        "phase": phase_json(phase),
        **asked,
        "order_schema": prompts.order_schema(asked),
        "example": example,
        "needs_confirmation": calls.needs_confirmation(phase),
    }


class StepsQuery(Schema):
    field: str
    steps: str = ""


@router.get(
    "/games/{game_id}/prompt/steps",
    response={200: NextStepsOut, **TURN_ERRORS},
    summary="The steps that may come next",
)
def next_steps(request: HttpRequest, game_id: int, query: Query[StepsQuery]) -> dict[str, Any]:
    """For a "steps" field (x-steps in the order schema): the steps that may follow `steps` (those chosen so
    far, joined by ";"), as the page's order builder offers them."""
    seat, _phase, asked = _asked(request, game_id)
    spec = next((f for f in asked["fields"] if f["name"] == query.field), None)
    if spec is None or spec["kind"] != "steps":
        raise Problem(
            422,
            "not-steps",
            _("%(field)s is not a field built step by step in this prompt.") % {"field": repr(query.field)},
        )
    chosen = [step.strip() for step in query.steps.split(";") if step.strip()]
    try:
        found = calls.next_steps(seat.game, seat.number, query.field, chosen)
    except OrderError as error:
        raise Problem(422, "order-refused", words.refusal(error)) from None
    found = words.next_steps(found)
    return {
        "steps": chosen,
        "choices": [
            {"value": c.value, "label": c.label, "amount": list(c.amount) if c.amount else None, "unit": c.unit}
            for c in found.choices
        ],
        "complete": found.complete,
        "problem": found.problem,
    }


def _checked(seat: Seat, phase: Phase, asked: dict[str, Any], body: OrderIn) -> calls.Checked:
    """The order as the engine reads it (Problem 422 with the page's message if it refuses), stored nowhere."""
    order = orders.read(asked, phase.number, body.order)
    try:
        return calls.check(seat, phase.number, order)
    except calls.TurnClosed as closed:
        raise Problem(409, "turn-closed", str(closed)) from None
    except calls.IllegalOrder as error:
        raise Problem(422, "order-refused", str(error)) from None


@router.post("/games/{game_id}/order/check", response={200: CheckedOut, **TURN_ERRORS}, summary="Check an order")
def check_order(request: HttpRequest, game_id: int, body: OrderIn) -> dict[str, Any]:
    """The order read back in words, with warnings, stored nowhere. In a turn that asks only the caller (it
    resolves as the order is stored), the answer carries the confirmation to store it with."""
    caller(request).must_play()
    seat, phase, asked = _asked(request, game_id, body.phase)
    checked = _checked(seat, phase, asked, body)
    needs = calls.needs_confirmation(phase)
    return {
        "read_back": read_back_json(checked.read_back),
        "needs_confirmation": needs,
        "confirmation": calls.confirmation(seat, phase.number, checked.order) if needs else None,
    }


@router.put("/games/{game_id}/order", response={200: StoredOut, **TURN_ERRORS}, summary="Submit or revise my order")
def put_order(request: HttpRequest, game_id: int, body: OrderIn) -> dict[str, Any]:
    """Store the caller's sealed order for the turn, or revise it: it can change until the turn resolves. A turn
    that asks only the caller is refused here (409): check the order, then confirm it."""
    caller(request).must_play()
    seat, phase, asked = _asked(request, game_id, body.phase)
    if calls.needs_confirmation(phase):
        _checked(seat, phase, asked, body)  # an illegal order is refused as such, before the read-back is asked for
        raise Problem(
            409,
            "confirmation-needed",
            _(
                "Only you are asked in this turn, so your order resolves it as it is stored: read it back first "
                "(POST …/order/check) and send its confirmation to …/order/confirm."
            ),
        )
    # The store validates under the phase's lock and refuses with the engine's words, as a check would: checking
    # first too would read the phase and run the engine's validation twice.
    return _store(seat, phase.number, orders.read(asked, phase.number, body.order))


@router.post("/games/{game_id}/order/confirm", response={200: StoredOut, **TURN_ERRORS}, summary="Confirm my order")
def confirm_order(request: HttpRequest, game_id: int, body: ConfirmIn) -> dict[str, Any]:
    """Store the order a check read back, exactly as it was read back (the page's Confirm)."""
    caller(request).must_play()
    seat = my_seat(request, game_id)
    try:
        phase_number, order = calls.confirmed(seat, body.confirmation)
    except calls.ReviewExpired:
        raise Problem(
            409,
            "confirmation-expired",
            _("That confirmation is too old or not yours, so nothing was stored. Submit again."),
        ) from None
    return _store(seat, phase_number, order)


def _store(seat: Seat, phase_number: int, order: dict[str, Any]) -> dict[str, Any]:
    try:
        result = calls.submit(seat, phase_number, order)
    except calls.TurnClosed as closed:
        raise Problem(409, "turn-closed", str(closed)) from None
    except calls.OrderRejected as error:
        raise Problem(422, "order-refused", str(error)) from None
    read = result.read_back
    assert read is not None  # asked for (calls.submit)
    return {
        "phase": phase_number,
        "revised": result.revised,
        "complete": result.complete,
        "message": calls.outcome_words(result, seat.game_id, phase_number),
        "read_back": read_back_json(read),
    }


@router.get("/games/{game_id}/order", response={200: OwnOrderOut, **ERRORS}, summary="My order in this turn")
def own_order(request: HttpRequest, game_id: int) -> dict[str, Any]:
    """The caller's stored order of the open turn (their own, sealed from everyone else), read back."""
    seat = my_seat(request, game_id)
    phase = calls.open_phase(seat)
    stored = unique_row(Order.objects.filter(phase=phase, seat=seat)) if phase is not None else None
    if phase is None or stored is None:
        raise Problem(404, "no-order", _("You have no order stored in this turn."))
    return _own(seat.game, seat, phase, stored)
