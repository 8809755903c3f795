"""A game with no open vote costs the votes app no SQL statement in its resolutions: whether the game has an open
vote is read with the phase the resolution locks (games/votes/services.py `open_vote`), and the app's receivers look
no further when it has none. Counted over whole games, the end included, beside the same game resolved by the core
alone (the app's receivers and extension removed); a game whose vote is open still has it voided at its end."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from games import extensions
from games.models import Game, Seat
from games.votes import services
from games.votes.models import Proposal
from tests.support.resolutions import orders_in, resolved, table

pytestmark = pytest.mark.django_db  # one transaction: the wake-up calls after commit never run, only resolutions count

RECEIVERS = (
    (extensions.phase_opened, services.on_phase_opened),
    (extensions.game_finished, services.on_game_finished),
)


@contextmanager
def core_alone(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The core as it runs without the votes app: none of its receivers, no extension of its registered."""
    with monkeypatch.context() as patch:
        patch.delitem(extensions._registered, "votes")
        for signal, receiver in RECEIVERS:
            assert signal.disconnect(receiver, sender=Game)
        try:
            yield
        finally:
            for signal, receiver in RECEIVERS:
                signal.connect(receiver, sender=Game)


def test_a_game_with_no_open_vote_resolves_in_the_statements_of_the_core_alone(
    toy_game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    core, idle, voting = table("core", toy_game), table("idle", toy_game), table("voting", toy_game)
    proposer = Seat.objects.get(game=voting, number=0)
    assert proposer.player_id is not None
    services.propose(proposer.pk, proposer.player_id, "draw")
    rngs = {game.pk: random.Random(1) for game in (core, idle, voting)}
    counts: dict[str, list[int]] = {"core": [], "idle": [], "voting": []}
    while (core_phase := orders_in(core, rngs[core.pk])) is not None:
        with core_alone(monkeypatch):
            counts["core"].append(resolved(core_phase))
        for name, game in (("idle", idle), ("voting", voting)):
            phase = orders_in(game, rngs[game.pk])
            assert phase is not None
            counts[name].append(resolved(phase))
    core.refresh_from_db()
    assert core.status == Game.Status.FINISHED and len(counts["core"]) >= 3, "whole games, to their end"
    assert counts["idle"] == counts["core"]
    assert counts["voting"][-1] > counts["core"][-1], "a game with an open vote is looked at"
    proposal = Proposal.objects.get(game=voting)
    assert (proposal.status, proposal.reason) == (Proposal.Status.VOID, Proposal.Reason.GAME_OVER)
