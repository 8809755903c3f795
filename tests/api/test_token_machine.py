"""A player's API tokens as a Hypothesis state machine: tokens made (read only or play, up to the limit),
used to read and to send orders, revoked, while the player's seat is given to someone else and back. After every
step:

- a call answers as the token's state says: revoked 401, read-only 403 on an order, a seat not held 403, else 200;
- the seat's stored order has exactly one revision per order a live play token sent while the player held it;
- the table holds each token's digest only, never a token, and as many live tokens as were made and not revoked;
- My games' card lists exactly the live tokens, and never a token itself.

Every example starts with a play and a read-only token. Bounded: twice PBEM_MACHINE_EXAMPLES (4 by default)
examples of up to 15 steps."""

from __future__ import annotations

import os
import unicodedata
from typing import Any

import pytest
from django.contrib.sessions.backends.signed_cookies import SessionStore
from django.template.loader import render_to_string
from django.test import RequestFactory
from django.urls import reverse
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    initialize,
    invariant,
    multiple,
    rule,
    run_state_machine_as_test,
)

from games.api import pages, tokens
from games.api.models import Token
from games.models import Order, Player, Seat
from games.play import organise, turns
from tests.support import database
from tests.support.api import Api

pytestmark = pytest.mark.django_db(transaction=True)
EXAMPLES = int(os.environ.get("PBEM_MACHINE_EXAMPLES", "4")) * 2


class TokenMachine(RuleBasedStateMachine):
    tokens = Bundle("tokens")

    @initialize(target=tokens)
    def a_game_and_two_tokens(self) -> Any:
        players = [turns.player_for(f"t{n}@example.com", f"T{n}") for n in range(3)]
        self.game = turns.create_game("piraeus", players, seed=2)  # seats 1 and 2 never order: the turn stays open
        self.player = players[0]
        self.held = True
        self.live: dict[str, str] = {}  # secret -> scope, for the tokens not revoked
        self.ids: dict[str, int] = {}
        self.revisions = 0
        made = [tokens.make(self.player, "first", scope) for scope in ("play", "read")]
        for one in made:
            self.live[one.secret], self.ids[one.secret] = one.token.scope, one.token.pk
        return multiple(*(one.secret for one in made))

    @rule(target=tokens, scope=st.sampled_from(["read", "play"]), name=st.text(min_size=1, max_size=8))
    def make(self, scope: str, name: str) -> Any:
        written = " ".join(name.split())
        unreadable = any(unicodedata.category(character) == "Cc" for character in written)  # NUL among them
        if not written or unreadable or len(self.live) >= tokens.MAX_TOKENS:
            with pytest.raises(tokens.TokenRefused):
                tokens.make(self.player, name, scope)
            return multiple()
        made = tokens.make(self.player, name, scope)
        self.live[made.secret], self.ids[made.secret] = scope, made.token.pk
        return made.secret

    @rule(secret=tokens)
    def revoke(self, secret: str) -> None:
        assert tokens.revoke(self.player, self.ids[secret]) == (secret in self.live)
        self.live.pop(secret, None)

    @rule()
    def every_token_reads(self) -> None:
        for secret in self.ids:
            answer = Api(secret).get("/games")
            if secret not in self.live:
                assert answer.status_code == 401
                continue
            assert answer.status_code == 200
            assert [row["game"]["id"] for row in answer.json()] == ([self.game.pk] if self.held else [])

    @rule(role=st.sampled_from(["buyer", "seller"]))
    def every_token_orders(self, role: str) -> None:
        """Each token made so far sends an order: what it may do depends on all of the state at once."""
        for secret in self.ids:
            answer = Api(secret).put(f"/games/{self.game.pk}/order", {"phase": 1, "order": {"role": role}})
            if secret not in self.live:
                assert answer.status_code == 401
            elif self.live[secret] == "read" or not self.held:
                assert answer.status_code == 403
            else:
                assert answer.status_code == 200, answer.content
                self.revisions += 1

    @rule()
    def seat_changes_hands(self) -> None:
        """An organiser gives the seat to someone else, or back to the player."""
        seat = Seat.objects.get(game=self.game, number=0)
        organise.replace_player(seat, "stand-in@example.com" if self.held else self.player.email)
        self.held = not self.held

    @invariant()
    def orders_follow_the_play_tokens(self) -> None:
        if not hasattr(self, "game"):
            return
        stored = Order.objects.filter(phase__game=self.game, seat__number=0).values_list("revision", flat=True)
        assert list(stored) == ([self.revisions] if self.revisions else [])

    @invariant()
    def only_digests_are_stored(self) -> None:
        if not hasattr(self, "game"):
            return
        rows = list(Token.objects.values_list("digest", "hint", "revoked_at"))
        assert sum(revoked is None for _, _, revoked in rows) == len(self.live)
        stored = {digest for digest, _, _ in rows}
        assert not stored & set(self.ids) and {tokens.digest(secret) for secret in self.ids} == stored

    @invariant()
    def my_games_lists_the_live_tokens(self) -> None:
        if not hasattr(self, "game"):
            return
        request = RequestFactory().get(reverse("games-mine"))
        request.session = SessionStore()
        card = pages.tokens_section(request, Player.objects.get(pk=self.player.pk))
        page = render_to_string(card.template, {"section": card.context}, request)
        assert page.count("Revoke</button>") == len(self.live)
        assert not any(secret in page for secret in self.ids)

    def teardown(self) -> None:
        database.empty()  # the next example starts from an empty database


def test_tokens_keep_their_invariants_whatever_their_player_does(settings: Any) -> None:
    settings.PBEM_API_RATE = settings.PBEM_API_BURST = 100_000  # the rate limit has its own test
    run_state_machine_as_test(
        TokenMachine,
        settings=hypothesis_settings(
            max_examples=EXAMPLES,
            stateful_step_count=15,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
        ),
    )


@pytest.mark.parametrize("name", ["\x00", "phone\x00", "bot\x07"])
def test_a_name_with_a_control_character_is_refused_and_nothing_is_stored(name: str) -> None:
    """Hypothesis found it: a NUL in the name reached PostgreSQL, which refuses it (a 500 on the way)."""
    player = turns.player_for("nul@example.com", "Nul")
    with pytest.raises(tokens.TokenRefused, match="control characters"):
        tokens.make(player, name, "play")
    assert tokens.live(player) == []
