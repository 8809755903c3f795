"""Small builders for the ending votes' tests: a browser-less player at a seat (a Django test client that
opened the seat's link, as from a turn email), and what each player was emailed."""

from __future__ import annotations

from typing import Any

from django.core import mail
from django.test import Client
from django.urls import reverse

from games.models import Game, Seat
from games.outgoing.links import seat_url
from games.play import turns


def seat_of(game: Game, number: int) -> Seat:
    return Seat.objects.select_related("player", "game").get(game=game, number=number)


def player_at(game: Game, number: int) -> Client:
    """A browser that opened seat `number`'s link from its latest email."""
    client = Client()
    game.refresh_from_db()
    phase = turns.current_phase(game)
    assert phase is not None
    link = seat_url(seat_of(game, number), phase).removeprefix("https://pbem.example")
    assert client.get(link).status_code == 302
    return client


def page(client: Client, game: Game) -> str:
    response = client.get(reverse("games-game", args=[game.pk]))
    assert response.status_code == 200
    return response.content.decode()


def post(client: Client, game: Game, action: str, **data: str) -> Any:
    """A POST of the votes panel's form `action` ("propose", "vote", "concede"), followed to the game page."""
    return client.post(reverse(f"votes-{action}", args=[game.pk]), data, follow=True)


def said(response: Any) -> list[str]:
    """The messages the page shows after a POST."""
    return [str(message) for message in response.context["messages"]] if response.context else []


def emails_to(address: str) -> list[Any]:
    return [message for message in mail.outbox if message.to == [address]]


def text_of(message: Any) -> str:
    html = "".join(content for content, kind in getattr(message, "alternatives", []) if kind == "text/html")
    return f"{message.subject}\n{message.body}\n{html}"
