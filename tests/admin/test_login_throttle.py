"""The admin's login is throttled (django-axes): after AXES_FAILURE_LIMIT wrong passwords, even the right
one is refused until the cool-off has passed."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

pytestmark = pytest.mark.django_db


@pytest.fixture
def organisers(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # a real hash costs ~0.3 s a try
    users = get_user_model()
    return [users.objects.create_superuser(name, f"{name}@example.com", "right-pw") for name in ("ann", "bob")]


def log_in(client, username: str, password: str, **headers: str):
    return client.post(reverse("admin:login"), {"username": username, "password": password}, **headers)


def signed_in(client) -> bool:
    return client.get(reverse("admin:index")).status_code == 200


def test_the_right_password_signs_an_organiser_in(client, organisers):
    assert log_in(client, "ann", "right-pw").status_code == 302 and signed_in(client)


def test_after_the_failure_limit_the_right_password_is_refused_until_the_cool_off_passes(client, organisers, settings):
    start = timezone.now()
    with time_machine.travel(start, tick=False) as clock:
        for _ in range(settings.AXES_FAILURE_LIMIT):
            log_in(client, "ann", "guess")
        refused = log_in(client, "ann", "right-pw")
        assert refused.status_code == 429 and b"too many login attempts" in refused.content
        assert not signed_in(client)
        clock.move_to(start + settings.AXES_COOLOFF_TIME - timedelta(seconds=5))
        assert log_in(client, "ann", "right-pw").status_code == 429  # a try while locked restarts the cool-off
        clock.move_to(start + 2 * settings.AXES_COOLOFF_TIME)
        assert log_in(client, "ann", "right-pw").status_code == 302 and signed_in(client)


def test_one_wrong_password_less_than_the_limit_still_lets_the_right_one_in(client, organisers, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert log_in(client, "ann", "guess").status_code == 200  # the form again, with its error
    assert log_in(client, "ann", "right-pw").status_code == 302 and signed_in(client)


def test_a_guesser_at_one_address_is_stopped_across_usernames(client, organisers, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        log_in(client, "ann", "guess")
    assert log_in(client, "bob", "right-pw").status_code == 429


def test_behind_a_proxy_the_address_comes_from_the_header_it_is_told_to_read(client, organisers, settings):
    """Every request reaches the server from the proxy's address; the client's is in X-Real-IP."""
    settings.AXES_LOCKOUT_PARAMETERS = ["ip_address"]
    guesser = {"REMOTE_ADDR": "10.0.0.2", "HTTP_X_REAL_IP": "198.51.100.7"}
    colleague = {"REMOTE_ADDR": "10.0.0.2", "HTTP_X_REAL_IP": "203.0.113.9"}

    def guess_then_colleague_logs_in() -> int:
        for _ in range(settings.AXES_FAILURE_LIMIT):
            log_in(client, "ann", "guess", **guesser)
        assert log_in(client, "bob", "right-pw", **guesser).status_code == 429
        client.logout()
        return log_in(client, "bob", "right-pw", **colleague).status_code

    assert guess_then_colleague_logs_in() == 429  # by default the proxy's address stands for every client
    from axes.utils import reset

    reset()
    settings.AXES_IPWARE_META_PRECEDENCE_ORDER = ["HTTP_X_REAL_IP", "REMOTE_ADDR"]
    assert guess_then_colleague_logs_in() == 302
