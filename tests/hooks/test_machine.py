"""A player's webhooks as a Hypothesis state machine: added through My games (each kind), test notices sent
while the receiver answers or fails, time passing (the sweep retries what is due), hooks turned off by repeated
failures and on again by their owner, deleted. A real HTTPS receiver (tests/support/hooks_receiver.py) answers 200 or
500 as the machine says. After every step:

- every attempt the table counts reached the receiver, and nothing else did;
- a delivery is tried at most MAX_ATTEMPTS times; failed means it used them all; one of a hook that is off is
  never pending;
- a hook is off exactly when it has a reason, and its owner was emailed once each time failures turned it off;
- a pending retry is never overdue after a sweep (the sweep woke its sender: only one due that very instant
  is left to the task published for it);
- My games lists exactly the player's hooks, each on or off as stored, and shows no URL's path nor any secret
  but the new one, once.

Bounded: twice PBEM_MACHINE_EXAMPLES (4 by default) examples of up to 20 steps; the run prints what they reached."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import time_machine
from django.contrib.sessions.backends.signed_cookies import SessionStore
from django.core import mail
from django.template.loader import render_to_string
from django.test import Client, RequestFactory
from django.urls import reverse
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    initialize,
    invariant,
    multiple,
    precondition,
    rule,
    run_state_machine_as_test,
)

from games.hooks import views
from games.hooks.forms import MAX_HOOKS
from games.hooks.models import Delivery, Hook
from games.models import MailStatus, Player
from games.outgoing import outbox
from games.play import sweep, turns
from tests.support import database, hooks_receiver
from tests.support.accounts import sign_in_by_email
from tests.support.hooks_receiver import Receiver

pytestmark = pytest.mark.django_db(transaction=True)
# Fewer steps than the league's machine, more examples: each example is cheap (about 3 s), and the failing
# paths (a hook turned off, then on again) need a run of steps that only some examples take.
EXAMPLES = int(os.environ.get("PBEM_MACHINE_EXAMPLES", "4")) * 2
START = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
PATH_TOKEN = "PATH-TOKEN"
REACHED: set[str] = set()  # what the examples reached, printed: a machine that never fails proves little


class HookMachine(RuleBasedStateMachine):
    receiver: Receiver  # set by the test: one receiver for every example

    hooks = Bundle("hooks")

    def __init__(self) -> None:
        super().__init__()
        self.receiver.received.clear()
        self.receiver.status = 200
        self.clock = time_machine.travel(START, tick=False)
        self.traveller = self.clock.start()
        self.now = START
        self.gone_attempts = 0  # attempts of deliveries deleted with their hook
        self.turned_off = 0  # times failures turned a hook off
        self.added = 0
        self.enabled_again = False
        mail.outbox.clear()

    @initialize(target=hooks, kind=st.sampled_from(list(Hook.Kind)))
    def sign_in_and_add_a_hook(self, kind: Hook.Kind) -> Any:
        """The player signs in by email; every example starts with one hook added through the page."""
        players = [turns.player_for(f"m{n}@example.com", f"M{n}") for n in range(3)]
        turns.create_game("piraeus", players, seed=1)
        self.client = sign_in_by_email(Client(), "m0@example.com")
        self.receiver.status = 500  # down at first: the first hook's deliveries fail until it comes up
        return self.add(kind, turn=True)

    @rule(target=hooks, kind=st.sampled_from(list(Hook.Kind)), turn=st.booleans())
    def add(self, kind: Hook.Kind, turn: bool) -> Any:
        self.added += 1
        name = f"hook{self.added}"
        form: dict[str, Any] = {"name": name, "kind": kind.value, "url": self.receiver.url(f"/{PATH_TOKEN}/{name}")}
        form["notices"] = ["turn", "result"] if turn else ["talk"]
        before = Hook.objects.count()
        self.client.post(reverse("hooks-add"), {f"hook-{k}": v for k, v in form.items()})
        if before >= MAX_HOOKS:
            assert Hook.objects.count() == before  # refused: the most a player can have
            return multiple()
        hook = Hook.objects.get(name=name)
        if hook.signed:  # My games shows its secret, once
            assert hook.secret in self.client.get(reverse("games-mine")).content.decode()
            assert "whsec_" not in self.client.get(reverse("games-mine")).content.decode()
        return hook.pk

    @rule(up=st.booleans())
    def receiver_goes(self, up: bool) -> None:
        self.receiver.status = 200 if up else 500

    @rule(hook=hooks)
    def send_test(self, hook: int) -> None:
        found = Hook.objects.filter(pk=hook).first()
        pending = Delivery.objects.filter(status=MailStatus.PENDING).count()
        self.turned_off -= self.now_off()
        self.client.post(reverse("hooks-test", args=[hook]))
        self.turned_off += self.now_off()
        if found is not None and found.enabled:
            assert Delivery.objects.filter(hook_id=hook).exists()
        else:
            assert Delivery.objects.filter(status=MailStatus.PENDING).count() == pending

    @rule(wait=st.sampled_from(["to the next retry", "a minute", "a day of retries"]))
    def time_passes(self, wait: str) -> None:
        """The clock moves on and the sweep runs: once (to the next retry's time, or a minute on), or at each
        retry's time for a day (a receiver down that long turns its hooks off)."""
        end = self.now + timedelta(days=1)
        while True:
            waiting = Delivery.objects.filter(status=MailStatus.PENDING).order_by("next_try_at").first()
            if wait == "a minute" or waiting is None:
                self.now += timedelta(minutes=1)
            else:
                self.now = max(self.now, waiting.next_try_at) + timedelta(seconds=1)
            self.traveller.move_to(self.now)
            self.turned_off -= self.now_off()
            sweep.run(self.now)
            self.turned_off += self.now_off()
            # A retry due this very instant is its own task's (published for then); the sweep takes any later.
            overdue = Delivery.objects.filter(status=MailStatus.PENDING, next_try_at__lt=self.now)
            assert not overdue.exists(), "the sweep left a retry that was due"
            if wait != "a day of retries" or waiting is None or self.now > end:
                return

    @precondition(lambda self: Hook.objects.filter(enabled=False).exists())
    @rule(hook=hooks)
    def enable(self, hook: int) -> None:
        self.enabled_again |= Hook.objects.filter(pk=hook, enabled=False).exists()
        self.client.post(reverse("hooks-enable", args=[hook]))
        if (found := Hook.objects.filter(pk=hook).first()) is not None:
            assert found.enabled and found.disabled_reason == ""

    @rule(hook=consumes(hooks))
    def delete(self, hook: int) -> None:
        self.gone_attempts += sum(Delivery.objects.filter(hook_id=hook).values_list("attempts", flat=True))
        self.client.post(reverse("hooks-delete", args=[hook]))
        assert not Hook.objects.filter(pk=hook).exists()

    def now_off(self) -> int:
        return Hook.objects.filter(enabled=False).exclude(disabled_reason="").count()

    @invariant()
    def every_attempt_reached_the_receiver(self) -> None:
        counted = sum(Delivery.objects.values_list("attempts", flat=True))
        assert len(self.receiver.received) == counted + self.gone_attempts

    @invariant()
    def deliveries_keep_their_bounds(self) -> None:
        for row in Delivery.objects.select_related("hook"):
            assert 0 <= row.attempts <= outbox.MAX_ATTEMPTS
            assert (row.status == MailStatus.FAILED) == (row.attempts == outbox.MAX_ATTEMPTS and row.status != "sent")
            assert not (row.status == MailStatus.PENDING and not row.hook.enabled)

    @invariant()
    def a_hook_is_off_with_a_reason_and_its_owner_was_told(self) -> None:
        for hook in Hook.objects.all():
            assert hook.enabled == (hook.disabled_reason == "")
        told = [m for m in mail.outbox if "is off" in m.subject]
        assert len(told) >= self.turned_off and all(m.to == ["m0@example.com"] for m in told)

    @invariant()
    def my_games_shows_the_hooks_as_stored(self) -> None:
        """My games' webhooks card, as the page renders it for the player (the whole page, with its time zone
        list, costs ten times as much; the add rule reads the whole page)."""
        if not hasattr(self, "client"):
            return
        request = RequestFactory().get(reverse("games-mine"))
        request.session = SessionStore()  # a fresh one: the card as any later visit shows it
        card = views.section(request, Player.objects.get(email="m0@example.com"))
        page = render_to_string(card.template, {"section": card.context}, request)
        assert PATH_TOKEN not in page and "whsec_" not in page
        for hook in Hook.objects.all():
            assert f"<strong>{hook.name}</strong>" in page
        assert page.count('class="pill wait">off<') == Hook.objects.filter(enabled=False).count()
        assert page.count('class="pill ok">on<') == Hook.objects.filter(enabled=True).count()

    def teardown(self) -> None:
        REACHED.update(row.status for row in Delivery.objects.all())
        REACHED.update(["turned off"] * (self.turned_off > 0) + ["turned on again"] * self.enabled_again)
        self.clock.stop()
        database.empty()  # the next example starts from an empty database


@pytest.fixture
def receiver(settings: Any, tmp_path: Path) -> Iterator[Receiver]:
    for found, ca_file in hooks_receiver.serve(tmp_path):
        hooks_receiver.point_hooks_at(settings, ca_file)
        yield found


def test_a_players_webhooks_keep_their_invariants_whatever_they_and_the_receiver_do(receiver, settings) -> None:
    settings.SESSION_COOKIE_AGE = 10 * 365 * 24 * 3600  # the machine's clock runs for days
    HookMachine.receiver = receiver
    REACHED.clear()
    run_state_machine_as_test(HookMachine, settings=settings_for_ci())
    print(f"\nthe webhook machine reached: {sorted(REACHED)}")


def settings_for_ci() -> settings:
    return settings(
        max_examples=EXAMPLES,
        stateful_step_count=20,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
