"""Nothing the admin hides can be read through a list's query string. Django's admin filters a changelist by
any lookup on the model's own fields (`?data__icontains=...`, `?seed__gt=...`): trying values one by one, that
reads a sealed order, a hand, the seed or a link key. These tests walk every registered admin of the project
(so a new admin is covered without touching them): each lookup on a hidden field of its model, or of a model
its relations reach, must be refused with a 400, for an organiser who is not a superuser and for a superuser;
the admins' own filters, search, sorting and row ids keep working (the membership's player picker, which
searches the player admin, is tested in test_league_admin)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.admin.utils import get_fields_from_path
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.db import models
from django.urls import reverse

from games.leagues import substitutes, vacations
from games.leagues.models import League, Membership
from games.models import Game, OutboundEmail, Seat
from games.play import turns
from games.talk import services as talk
from games.talk.models import Message
from tests.support.leagues import first_game, make_league, open_phase_of, play_phase, started_round, submit_for

pytestmark = pytest.mark.django_db(transaction=True)

PROJECT_APPS = {"games", "leagues", "talk"}
USERS = ["organiser", "superuser"]


def project_admins() -> list[tuple[type[models.Model], admin.ModelAdmin]]:
    registered = admin.site._registry.items()
    return sorted(((m, a) for m, a in registered if m._meta.app_label in PROJECT_APPS), key=lambda r: r[0]._meta.label)


def is_hidden(field: Any) -> bool:
    """What the rules or the links keep secret: JSON (engine state, prompts, orders, results), text (log lines,
    email bodies, send errors), the seeds, every secret key (`*_key`, `*token`) and password hashes."""
    return (
        isinstance(field, models.JSONField | models.TextField)
        or field.name in {"seed", "password"}
        or field.name.endswith(("_key", "token"))
    )


def hidden_paths(model: Any, hops: int = 2, came_by: Any = None, prefix: str = "") -> Iterator[Any]:
    """(lookup path, field) for each hidden field of `model` and of the models its relations, forward and
    reverse, reach in up to `hops` steps: `seed`, `game__state`, `phase__game__seed`, `seat__link_key`..."""
    for field in model._meta.get_fields():
        if field.is_relation:
            if hops and field.related_model is not None and field.remote_field is not came_by:
                yield from hidden_paths(field.related_model, hops - 1, field, f"{prefix}{field.name}__")
        elif is_hidden(field):
            yield prefix + field.name, field


def sample(model: type[models.Model], path: str) -> Any:
    """A value the lookup would really find, so that a lookup let through lists a row."""
    return model._default_manager.exclude(**{f"{path}__isnull": True}).values_list(path, flat=True).first()


def probes(path: str, field: Any, value: Any) -> list[tuple[str, str]]:
    """Several kinds of lookup on one hidden field: equality, containment, bisection, presence, keys."""
    if isinstance(field, models.JSONField):
        text = json.dumps(value)
        key = next(iter(value), "0") if isinstance(value, dict) and value else "0"
        item = value[key] if isinstance(value, dict) and value else 0
        return [
            (path, text),
            (f"{path}__{key}", item if isinstance(item, str) else json.dumps(item)),
            (f"{path}__icontains", text[1:8]),
            (f"{path}__has_key", str(key)),
            (f"{path}__{key}__isnull", "False"),
            (f"{path}__isnull", "False"),
        ]
    if isinstance(field, models.IntegerField):
        number = value if isinstance(value, int) else 0
        return [(path, str(number)), (f"{path}__gt", str(number - 1)), (f"{path}__lt", "0"), (f"{path}__isnull", "0")]
    text = value if isinstance(value, str) else ""
    return [
        (path, text),
        (f"{path}__icontains", text[1:6]),
        (f"{path}__startswith", text[:3]),
        (f"{path}__gt", ""),
        (f"{path}__regex", "."),
        (f"{path}__isnull", "False"),
    ]


def changelist(model: type[models.Model]) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")


@pytest.fixture
def organiser_user() -> Any:
    user = get_user_model().objects.create_user("org", "org@example.com", "pw", is_staff=True)
    user.user_permissions.set(
        Permission.objects.filter(content_type__app_label__in=PROJECT_APPS, codename__startswith="view_")
    )
    return user


@pytest.fixture
def rows(organiser_user: Any) -> Any:
    """Rows of every admin inside the organiser's scope, with something hidden in each: two leagues (so every
    filter offers a choice) with a game each, a resolved phase, a sealed order, private log lines, table talk
    (a private message reported, one not), a vacation, a dropped seat offered to a standby, league emails, a
    failed send, and a one-off game they started."""
    spring = make_league(players=4, standby=1)
    autumn = League.objects.create(name="Autumn Cup", slug="autumn", engine="piraeus", phase_length=timedelta(hours=48))
    for i in range(4):
        Membership.objects.create(league=autumn, player=turns.player_for(f"a{i + 1}@example.com", f"A{i + 1}"))
    for league in (spring, autumn):
        league.organisers.add(organiser_user)
        game = first_game(started_round(league))
        play_phase(game)
        phase = open_phase_of(game)
        submit_for(game, phase, phase.owed_seats[:1])  # a sealed order
        vacations.declare(Membership.objects.get(league=league, player=game.seats.get(number=1).player), 2)
        first, second = Seat.objects.select_related("game", "player").filter(game=game).order_by("number")[:2]
        talk.post(first, first.player, f"table talk in {league.slug}")
        talk.post(first, first.player, f"UNREPORTED-PRIVATE in {league.slug}", to=[1])
        talk.report(second, talk.post(first, first.player, f"reported private in {league.slug}", to=[1]).pk, "rude")
    substitutes.drop_member(Membership.objects.get(league=spring, player__email="p4@example.com"))
    one_off = turns.create_game("piraeus", [turns.player_for(f"o{i}@example.com") for i in range(3)], seed=4321)
    Game.objects.filter(pk=one_off.pk).update(started_by=organiser_user)
    OutboundEmail.objects.filter(pk__in=OutboundEmail.objects.order_by("pk").values("pk")[:1]).update(
        status=OutboundEmail.Status.FAILED, error="550 mailbox unavailable"
    )


@pytest.fixture
def as_user(request: Any, client: Any, organiser_user: Any, rows: Any) -> Any:
    if request.param == "superuser":
        client.force_login(get_user_model().objects.create_superuser("root", "root@example.com", "pw"))
    else:
        client.force_login(organiser_user)
    return client


@pytest.mark.parametrize("as_user", USERS, indirect=True)
def test_no_lookup_on_hidden_content_gets_through_any_admin(as_user, request, caplog):
    caplog.set_level(logging.CRITICAL, logger="django.security")  # Django logs each refusal: 2,000 tracebacks
    tried: list[str] = []
    through: list[str] = []
    for model, _ in project_admins():
        url = changelist(model)
        listed = as_user.get(url)
        assert listed.status_code == 200 and listed.context["cl"].result_count > 0, f"no rows to find in {url}"
        for path, field in hidden_paths(model):
            for lookup, value in probes(path, field, sample(model, path)):
                tried.append(f"{url}?{lookup}")
                response = as_user.get(url, {lookup: value})
                body = response.content.decode()
                if response.status_code != 400 or 'id="result_list"' in body or (len(value) > 3 and value in body):
                    matched = response.context["cl"].result_count if response.context else "?"
                    through.append(f"{url}?{lookup}={value[:20]} -> {response.status_code}, {matched} row(s)")
        for name in (f.name for f in model._meta.get_fields() if not f.is_relation and is_hidden(f)):
            tried.append(f"{url}?_to_field={name}")
            if as_user.get(url, {"_to_field": name, "_popup": "1"}).status_code != 400:
                through.append(f"{url}?_to_field={name}")
    user = request.node.callspec.params["as_user"]
    print(f"\nadmin lookups as {user}: {len(tried)} tried, {len(tried) - len(through)} refused")
    assert not through, f"{len(through)} of {len(tried)} lookups got through as {user}:\n" + "\n".join(through)


@pytest.mark.parametrize("as_user", USERS, indirect=True)
def test_every_admins_own_filters_search_sorting_and_ids_still_work(as_user):
    for model, model_admin in project_admins():
        url = changelist(model)
        listed = as_user.get(url)
        cl = listed.context["cl"]
        assert listed.status_code == 200 and cl.result_count > 0, url
        assert len(cl.filter_specs) == len(cl.list_filter), f"{url}: a filter offers no choice, so it goes untested"
        for spec in cl.filter_specs:
            for choice in spec.choices(cl):
                assert as_user.get(url + choice["query_string"]).status_code == 200, (url, choice["query_string"])
        first = cl.queryset.order_by("pk").first()
        for lookup in ("id", "id__exact", "pk"):
            found = as_user.get(url, {lookup: first.pk})
            assert found.status_code == 200 and found.context["cl"].result_count == 1, (url, lookup)
        for search_field in model_admin.search_fields:
            path = search_field.lstrip("^=@")
            assert not is_hidden(get_fields_from_path(model, path)[-1]), f"{url} searches hidden {path}"
            term = str(cl.queryset.exclude(**{path: ""}).values_list(path, flat=True).first())
            searched = as_user.get(url, {"q": term})
            assert searched.status_code == 200 and searched.context["cl"].result_count > 0, (url, term)
        assert not model_admin.date_hierarchy or not is_hidden(model._meta.get_field(model_admin.date_hierarchy))
        # Sorting: the columns Django sorts by, then the default ordering; none by a hidden field.
        columns = {i: cl.get_ordering_field(name) for i, name in enumerate(cl.list_display)}
        sortable = {i: name for i, name in columns.items() if name is not None}
        sorted_ = as_user.get(url, {"o": ".".join(map(str, sortable))})
        assert sorted_.status_code == 200, url
        for name in [*sortable.values(), *sorted_.context["cl"].queryset.query.order_by]:
            assert isinstance(name, str), f"{url}: sorted by an expression, {name!r}: check it by hand"
            if name.lstrip("-") != "pk":
                assert not is_hidden(get_fields_from_path(model, name.lstrip("-"))[-1]), f"{url} sorts by {name}"


@pytest.mark.parametrize("as_user", USERS, indirect=True)
def test_no_admin_page_shows_an_unreported_private_message(as_user, request):
    """Every admin's list, its search for the message's words, and the change page of each of its rows: a
    private message nobody reported shows nowhere; a reported one shows in the reported messages' admin."""
    read: list[str] = []
    for model, model_admin in project_admins():
        url = changelist(model)
        if model_admin.search_fields:  # the search box shows the words searched for: no row may match them
            searched = as_user.get(url, {"q": "UNREPORTED-PRIVATE"})
            assert searched.status_code == 200 and searched.context["cl"].result_count == 0, url
            read.append(f"{url}?q=")
        pages = [url]
        for pk in model._default_manager.values_list("pk", flat=True)[:20]:
            pages.append(reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_change", args=[pk]))
        for page in pages:
            response = as_user.get(page)
            body = response.content.decode()
            assert response.status_code in (200, 302), page  # 302: a row outside the organiser's scope
            assert "UNREPORTED-PRIVATE" not in body, page
            read.append(page)
    reported = as_user.get(changelist(Message))
    assert reported.context["cl"].result_count == 2 and "UNREPORTED" not in reported.content.decode()
    assert (
        "reported private in spring"
        in as_user.get(
            reverse("admin:talk_message_change", args=[Message.objects.get(text="reported private in spring").pk])
        ).content.decode()
    )
    user = request.node.callspec.params["as_user"]
    print(f"\nadmin views read as {user} with private messages present: {len(read)}")
