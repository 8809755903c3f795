"""A seeded random game of any registered engine, stopped where its pages and emails are worth reading.

`points` plays the game through the service layer (random legal orders, as bots play) and stops at the
first two phases (the start, the first resolution), at the first phase of each prompt kind, every
POINT_EVERY phases and at the end. At each stop
`pages` reads the game page as every seat and as a spectator, through the test client, and `emails`
sends the emails due, through the outbox sender: the same paths a player's browser and inbox take.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.core import mail
from django.template import Context, Template
from django.test import Client
from django.urls import reverse
from django.utils.html import escape

from games.engines import board_templates
from games.models import Game, OutboundEmail, Phase, Seat
from games.outgoing import emails
from games.outgoing.links import seat_url
from games.outgoing.messages import spaced
from games.play import orders, turns

POINT_EVERY = 12
PLAYERS = 3  # every registered game (and the toy) seats three


@dataclass(frozen=True)
class Read:
    """One page or email body as its reader got it."""

    what: str  # e.g. "page", "turn-started email (HTML)"
    seat: int | None  # the reader's seat; None for a spectator
    owes: bool  # the reader owes an order now
    content: str


def points(game: Game, seed: str) -> Iterator[Phase | None]:
    """Play `game` to its end, yielding at the phases worth reading (None once the game is over). The
    emails of the phases in between are marked skipped, so each stop sends only its own."""
    engine = turns.engine_of(game)
    rng = random.Random(seed)
    kinds: set[str] = set()
    while True:
        game.refresh_from_db()
        phase = turns.current_phase(game)
        if phase is None:
            yield None
            return
        new_kinds = {prompt["kind"] for prompt in phase.prompts.values()} - kinds
        if phase.number <= 2 or new_kinds or phase.number % POINT_EVERY == 0:
            kinds |= new_kinds
            yield phase
        else:
            OutboundEmail.objects.filter(game=game, status=OutboundEmail.Status.PENDING).update(
                status=OutboundEmail.Status.SKIPPED
            )
        game.refresh_from_db()
        for number in phase.owed_seats:
            seat = Seat.objects.get(game=game, number=number)
            orders.submit_order(seat, phase.number, engine.random_order(game.state, number, rng))
        # The resolution's wake-up call runs after commit, which a test's transaction never does.
        turns.resolve_phase(phase.pk)


def seat_clients(game: Game) -> dict[int | None, Client]:
    """A browser per seat, opened by that seat's link, and one that opened none (a spectator)."""
    phase = turns.current_phase(game)
    assert phase is not None
    clients: dict[int | None, Client] = {None: Client()}
    for seat in game.seats.all():
        clients[seat.number] = Client()
        assert clients[seat.number].get(seat_url(seat, phase)).status_code == 302
    return clients


def pages(game: Game, phase: Phase | None, clients: dict[int | None, Client]) -> list[Read]:
    url = reverse("games-game", args=[game.pk])
    read = []
    for number, client in clients.items():
        response = client.get(url)
        assert response.status_code == 200, (number, response.status_code)
        owes = phase is not None and number is not None and phase.prompt_for(number) is not None
        read.append(Read("page", number, owes, response.content.decode()))
    return read


def history_pages(game: Game, number: int, state_then: dict[str, Any], clients: dict[int | None, Client]) -> list[Read]:
    """The history page of resolved phase `number` as every seat and a spectator read it. `state_then` is the
    game's state while that phase was open: each reader's board must be drawn from exactly their view of it
    (their board then, as the game page showed it), whatever the replay did to rebuild it."""
    engine = turns.engine_of(game)
    url = reverse("games-history", args=[game.pk]) + f"?phase={number}"
    read = []
    for seat, client in clients.items():
        response = client.get(url)
        assert response.status_code == 200, (seat, response.status_code)
        assert response.context["view"] == engine.view(state_then, seat), (number, seat)
        read.append(Read(f"history of phase {number}", seat, False, response.content.decode()))
    return read


def order_pages(game: Game, phase: Phase | None, clients: dict[int | None, Client]) -> list[Read]:
    """What each seat owing an order sees without storing one: its form shown again by "Add a step" (for a
    prompt with steps to build) and, in a one-seat turn, the review of its default order."""
    if phase is None:
        return []
    engine = turns.engine_of(game)
    url = reverse("games-order", args=[game.pk])
    read = []
    for number in phase.owed_seats:
        prompt = phase.prompt_for(number)
        assert prompt is not None
        steps = [spec["name"] for spec in prompt["fields"] if spec["kind"] == "steps"]
        if steps:
            add = {"phase": phase.number, "how": "builder", "add": steps[0]}
            response = clients[number].post(url, add, follow=True)
            assert response.status_code == 200 and response.redirect_chain, response.status_code  # Post/Redirect/Get
            read.append(Read("page after 'Add a step'", number, True, response.content.decode()))
        if len(phase.prompts) == 1:
            data = form_data(prompt, engine.default_order(game.state, number))
            response = clients[number].post(url, {"phase": phase.number, "how": "typed", **data}, follow=True)
            assert response.status_code == 200 and b"Check your order" in response.content
            read.append(Read("review page", number, True, response.content.decode()))
    return read


def form_data(prompt: dict[str, Any], order: dict[str, Any]) -> dict[str, Any]:
    """An order as its form posts it (a repeatable pick is one drop-down per pick)."""
    data: dict[str, Any] = {}
    for spec in prompt["fields"]:
        value = order.get(spec["name"])
        if value is None:
            continue
        if spec["kind"] == "multichoice" and spec.get("repeat"):
            data.update({f"{spec['name']}__{i}": pick for i, pick in enumerate(value)})
        else:
            data[spec["name"]] = value
    return data


def emails_due(game: Game, phase: Phase | None, remind: bool = False) -> list[Read]:
    """Send the emails due now (with `remind`, a reminder to the first seat owing one too, and a moved
    deadline's email to the last)."""
    if remind and phase is not None and phase.owed_seats:
        for number, kind in ((phase.owed_seats[0], "reminder"), (phase.owed_seats[-1], "deadline-moved")):
            seat = Seat.objects.select_related("player").get(game=game, number=number)
            assert seat.player is not None
            OutboundEmail.objects.create(
                game=game, phase=phase, seat=seat, kind=kind, to=seat.player.email, events_upto=game.event_count
            )
    mail.outbox.clear()
    emails.send_pending(game.pk)
    seats = {seat.player.email: seat.number for seat in game.seats.select_related("player") if seat.player}
    read = []
    message: Any  # anymail's test backend adds its parameters to Django's message
    for message in mail.outbox:
        (kind,) = message.anymail_test_params["tags"]
        number = seats[message.to[0]]
        owes = phase is not None and phase.prompt_for(number) is not None
        html = message.alternatives[0][0]
        read += [
            Read(f"{kind} email (subject)", number, owes, message.subject),
            Read(f"{kind} email (text)", number, owes, message.body),
            Read(f"{kind} email (HTML)", number, owes, html),
        ]
    return read


def board(game: Game, seat: int | None, where: str) -> str:
    """The game's board template `where` ("page", "email_html", "email_text") rendered alone for `seat`'s
    view of the game now, wrapped as the pages and emails include it: a board sees only its view."""
    name = getattr(board_templates(game.engine), where)
    wrapped = "{% load l10n %}{% localize off %}{% include name %}{% endlocalize %}"
    if where == "email_text":
        wrapped = "{% autoescape off %}" + wrapped + "{% endautoescape %}"
    view = turns.engine_of(game).view(game.state, seat)
    shown: str = Template(wrapped).render(Context({"name": name, "view": view}))
    if where == "email_html":
        shown = spaced(shown)  # as the mail pipeline renders every HTML body (games/outgoing/messages.py)
    # Every board names the phase it shows: a board that renders nothing fails here, not silently.
    assert (view["phase"] if where == "email_text" else escape(view["phase"])) in shown, (name, shown[:200])
    return shown
