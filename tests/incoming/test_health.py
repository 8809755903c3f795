"""/healthz for load balancers and monitors, and the same figures on the admin's index for superusers."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.models import OutboundEmail, Phase
from games.play import organise
from tests.support.faults import complete_but_unresolved

pytestmark = pytest.mark.django_db(transaction=True)


def healthz(client):
    response = client.get("/healthz")
    return response, response.json()


def test_healthz_answers_200_with_its_figures_and_no_session(client, broker_url, make_game):
    make_game(humans=3)
    with CaptureQueriesContext(connection) as queries:
        response, body = healthz(client)
    assert response.status_code == 200
    assert body == {
        "ok": True,
        "database": "ok",
        "broker": "ok",
        "oldest_complete_phase_seconds": None,
        "oldest_unsent_email_seconds": None,
        "limits": {"complete_phase_seconds": 120, "unsent_email_seconds": 600},
        "problems": [],
    }
    assert len(queries) == 2  # one indexed read per figure
    assert not response.cookies  # no session, no CSRF cookie
    assert client.head("/healthz").status_code == 200


def test_healthz_is_not_redirected_to_https(client, settings, db):
    settings.SECURE_SSL_REDIRECT = True
    assert client.get("/healthz").status_code == 200
    assert client.get("/").status_code == 301  # other pages are


def test_healthz_is_503_when_the_broker_cannot_be_reached(client, broker_at):  # noqa: F811
    broker_at("redis://127.0.0.1:1/0")  # nothing listens there
    response, body = healthz(client)
    assert response.status_code == 503
    assert body["broker"] == "unreachable" and body["problems"] == ["the broker cannot be reached"]


def test_without_a_broker_healthz_says_tasks_run_inline(client, settings, db):
    settings.CELERY_BROKER_URL = ""
    response, body = healthz(client)
    assert response.status_code == 200 and body["broker"] == "inline"


def test_healthz_is_503_once_a_phase_with_every_order_in_has_waited_past_the_limit(
    client,
    make_game,
    lost,
    settings,  # noqa: F811
):
    settings.PBEM_HEALTH_COMPLETE_PHASE_SECONDS = 120
    game = make_game(humans=3)
    phase = complete_but_unresolved(game, lost)
    waiting = Phase.objects.filter(pk=phase.pk)
    waiting.update(complete_at=timezone.now() - timedelta(seconds=30))
    response, body = healthz(client)
    assert response.status_code == 200 and 30 <= body["oldest_complete_phase_seconds"] < 120
    waiting.update(complete_at=timezone.now() - timedelta(seconds=200))
    response, body = healthz(client)
    assert response.status_code == 503 and body["oldest_complete_phase_seconds"] >= 200
    assert body["problems"] == ["a phase with every order in has waited too long for its resolution"]
    organise.pause_game(game)  # the organiser's choice, not a stuck table
    response, body = healthz(client)
    assert response.status_code == 200 and body["oldest_complete_phase_seconds"] is None


def test_healthz_is_503_once_an_email_has_waited_past_the_limit(client, make_game, settings):
    settings.PBEM_HEALTH_UNSENT_EMAIL_SECONDS = 600
    game = make_game(humans=3)
    rows = OutboundEmail.objects.filter(game=game)
    rows.update(status="pending", created_at=timezone.now() - timedelta(minutes=20))
    response, body = healthz(client)
    assert response.status_code == 503 and body["oldest_unsent_email_seconds"] >= 1200
    assert body["problems"] == ["an email has waited too long to be sent"]
    rows.update(status="failed", attempts=5)  # out of attempts: shown in the admin, no longer owed
    response, body = healthz(client)
    assert response.status_code == 200 and body["oldest_unsent_email_seconds"] is None


def test_the_admin_index_shows_the_figures_to_superusers_only(client, admin_client, django_user_model, db):
    assert b'id="pbem-health"' in admin_client.get("/admin/").content
    organiser = django_user_model.objects.create_user("organiser", password="x", is_staff=True)
    client.force_login(organiser)
    page = client.get("/admin/")
    assert page.status_code == 200 and b'id="pbem-health"' not in page.content
