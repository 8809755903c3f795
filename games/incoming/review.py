"""Looking at an order before it counts. In a phase that asks one seat, submitting resolves the turn, so the
page first shows the order read back by the engine and asks for a confirmation; what is confirmed travels
signed in the page (salted per use, bound to the seat and turn), so it is exactly what was reviewed, and
nothing is stored before it comes back through games.play.orders like any order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core import signing
from django.utils.translation import gettext

from games import words
from games.engines import get_engine
from games.engines.base import ReadBack
from games.incoming.forms import StepsSource
from games.models import Game, Phase, Seat
from games.play import orders

SALT = "pbem.order-review"
MAX_AGE = 24 * 3600  # a review left open longer than a day is looked at again


class ReviewExpired(Exception):
    """The confirmation cannot be read, is for another seat, or is too old."""


@dataclass(frozen=True)
class Reviewed:
    phase_number: int
    order: dict[str, Any]
    typed: bool  # how the player wrote it, so "Change" reopens the same form


def outcome_words(result: orders.Stored, game_id: int, phase_number: int) -> str:
    """What became of a stored order, truly: when it was the last one owed, whether the turn is being
    resolved or, with tasks run at once, already has been."""
    if result.complete:
        resolved = not Phase.objects.filter(game_id=game_id, number=phase_number, status=Phase.Status.OPEN).exists()
        if resolved:
            return gettext("Order stored. Every order is in: the turn has been resolved.")
        return gettext("Order stored. Every order is in: the turn is being resolved.")
    if result.revised:
        return gettext("Order changed. You can change it again until the turn resolves.")
    return gettext("Order stored and sealed. You can change it until the turn resolves.")


def needs_review(phase: Phase) -> bool:
    """One seat is asked, so its order resolves the turn as it is stored."""
    return len(phase.prompts) == 1


def steps_source(game: Game, seat_number: int) -> StepsSource:
    """The engine's builder for this seat in the game's current state."""
    engine = get_engine(game.engine)
    return StepsSource(
        lambda field, steps: words.next_steps(engine.next_steps(game.state, seat_number, field, steps)),
        lambda field, text: engine.builder_steps(game.state, seat_number, field, text),
    )


def read_back(game: Game, seat_number: int, order: dict[str, Any]) -> ReadBack:
    """A stored order in the engine's words, as the game page shows it."""
    return words.read_back(get_engine(game.engine).read_back(game.state, seat_number, order))


def sign(seat: Seat, reviewed: Reviewed) -> str:
    payload = {
        "s": seat.pk,
        "v": seat.player_id,  # the seat's player then: a seat given to someone else cannot confirm it
        "p": reviewed.phase_number,
        "o": reviewed.order,
        "t": reviewed.typed,
    }
    return signing.dumps(payload, salt=SALT, compress=True)


def unsign(seat: Seat, token: str) -> Reviewed:
    try:
        payload = signing.loads(token, salt=SALT, max_age=MAX_AGE)
    except signing.BadSignature as error:  # SignatureExpired is one
        raise ReviewExpired from error
    if not isinstance(payload, dict) or payload.get("s") != seat.pk or payload.get("v") != seat.player_id:
        raise ReviewExpired
    return Reviewed(int(payload["p"]), dict(payload["o"]), bool(payload.get("t")))
