"""An organiser reaches nothing of another organiser's league through any admin form or filter (issue 38): as
the Organiser role (not a superuser), every registered admin's list with each of its filters' choices, its
add form, the change form of its rows, the pickers' autocomplete and the lookup pop-ups are walked, and none
names another league, its players or their addresses. A form posted with another league's row is refused."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib import admin
from django.urls import reverse

from games.leagues import substitutes, vacations
from games.leagues.models import League, Membership
from games.models import Player
from games.play import turns
from tests.support.leagues import first_game, make_league, organiser_of, play_phase, started_round

pytestmark = pytest.mark.django_db(transaction=True)

THEIRS = ("Autumn Cup", "theirs.example", "Stranger ")  # what only the other league's pages may show


def league_with_history(league: League) -> None:
    """A round played a turn, a vacation, and a member dropped whose seat is offered to the standby list."""
    game = first_game(started_round(league))
    play_phase(game)
    members = Membership.objects.filter(league=league, status=Membership.Status.ACTIVE).order_by("pk")
    vacations.declare(members[1], 2)
    substitutes.drop_member(members[3])


@pytest.fixture
def two_organisers() -> tuple[Any, League, League]:
    ours = make_league(players=4, standby=1)
    theirs = League.objects.create(name="Autumn Cup", slug="autumn", engine="piraeus")
    for i in range(4):
        Membership.objects.create(league=theirs, player=turns.player_for(f"t{i}@theirs.example", f"Stranger {i}"))
    Membership.objects.create(
        league=theirs, player=turns.player_for("s@theirs.example", "Stranger S"), status=Membership.Status.STANDBY
    )
    for league in (ours, theirs):
        league_with_history(league)
    organiser_of(theirs, username="other")
    return organiser_of(ours), ours, theirs


def url_of(model: Any, view: str, *args: Any) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}", args=args)


def pages_of(client: Any, model: Any, model_admin: Any) -> list[tuple[str, str]]:
    """(url, page) of the list, each filter choice, the lookup pop-up, the add form and up to 5 rows' forms."""
    listed = client.get(url_of(model, "changelist"))
    if listed.status_code != 200:
        return []
    read = [(url_of(model, "changelist"), listed.content.decode())]
    cl = listed.context["cl"]
    for spec in cl.filter_specs:
        for choice in spec.choices(cl):
            url = url_of(model, "changelist") + choice["query_string"]
            read.append((url, client.get(url).content.decode()))
    popup = url_of(model, "changelist") + "?_popup=1&_to_field=id"
    read.append((popup, client.get(popup).content.decode()))
    added = client.get(url_of(model, "add"))
    if added.status_code == 200:
        read.append((url_of(model, "add"), added.content.decode()))
    for pk in cl.queryset.values_list("pk", flat=True)[:5]:
        read.append((url_of(model, "change", pk), client.get(url_of(model, "change", pk)).content.decode()))
    for name in model_admin.autocomplete_fields:
        query = {"app_label": model._meta.app_label, "model_name": model._meta.model_name, "field_name": name}
        for term in ("", "a", "t", "s"):
            found = client.get(reverse("admin:autocomplete"), {**query, "term": term})
            read.append((f"autocomplete {model.__name__}.{name} {term!r}", found.content.decode()))
    return read


def test_no_admin_form_filter_or_lookup_names_another_league(client, two_organisers):
    user, ours, theirs = two_organisers
    assert not user.is_superuser
    client.force_login(user)
    read: list[str] = []
    leaks: list[str] = []
    for model, model_admin in admin.site._registry.items():
        for url, page in pages_of(client, model, model_admin):
            read.append(url)
            leaks += [f"{url}: {mark!r}" for mark in THEIRS if mark in page]
    print(f"\nadmin pages, filters, forms and lookups read as an organiser: {len(read)}")
    assert len(read) > 60
    assert not leaks, "\n".join(leaks)
    # Our own league's people are there to be picked (the walk is not blind).
    form = client.get(url_of(Membership, "add")).content.decode()
    assert "Spring Cup" in form


def test_a_form_posted_with_another_leagues_player_or_league_is_refused(client, two_organisers):
    user, ours, theirs = two_organisers
    client.force_login(user)
    stranger = Player.objects.get(email="t1@theirs.example")
    mine = Player.objects.get(email="p1@example.com")
    form = {"player": stranger.pk, "league": ours.pk, "status": "active", "notify": "all", "digest": ""}
    refused = client.post(url_of(Membership, "add"), form)
    assert refused.status_code == 200 and "player" in refused.context["adminform"].form.errors
    assert not Membership.objects.filter(player=stranger, league=ours).exists()
    assert client.get(url_of(Player, "change", stranger.pk)).status_code == 302  # still no way to their address
    into_theirs = client.post(url_of(Membership, "add"), {**form, "player": mine.pk, "league": theirs.pk})
    assert into_theirs.status_code == 200 and "league" in into_theirs.context["adminform"].form.errors
    away = Membership.objects.get(league=theirs, player__email="t2@theirs.example")
    vacation = client.post(url_of(Membership, "add").replace("membership", "vacation"), {"membership": away.pk})
    assert vacation.status_code == 200 and not away.vacations.filter(days=3).exists()
