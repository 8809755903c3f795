"""NUL bytes and bytes that are not UTF-8 are refused in one place (games/incoming/refuse.py), whatever the URL:
every URL pattern the server has (the pages, the admin, the API, the apps') is called with them in each of its
parameters, in the query, and in a form's, a multipart form's and a JSON body, and answers 400 having done
nothing; every form a player's pages show is posted with each field in turn holding a NUL (400) or a digit
that is not a decimal ('²', which isdigit() takes and int() refuses), and nothing answers a 5xx."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.urls.converters import IntConverter
from django.urls.resolvers import RegexPattern, RoutePattern
from django.utils.regex_helper import normalize
from hypothesis import given, settings
from hypothesis import strategies as st

from games.models import Game, Order, Phase, Seat
from games.talk.models import Message
from games.votes import services as votes
from tests.support.accounts import signed_in
from tests.support.lobby import creator, propose

pytestmark = pytest.mark.django_db(transaction=True)
EVIL = ("%00", "%FF", "a%C0%AFb", "%1B")  # NUL, a lone byte, an overlong '/', an escape


def routes() -> Iterator[list[Any]]:
    """Every URL pattern, as the list of its resolvers' patterns down to it."""

    def walk(resolver: URLResolver, above: list[Any]) -> Iterator[list[Any]]:
        for entry in resolver.url_patterns:
            if isinstance(entry, URLResolver):
                yield from walk(entry, [*above, entry.pattern])
            elif isinstance(entry, URLPattern):
                yield [*above, entry.pattern]

    yield from walk(get_resolver(), [])


def template(patterns: list[Any]) -> tuple[str, dict[str, bool]]:
    """A %-format of the URL and its parameters (True: an integer's)."""
    text, params = "", {}
    for pattern in patterns:
        if isinstance(pattern, RoutePattern):
            route = str(pattern)
            for name, converter in pattern.converters.items():
                params[name] = isinstance(converter, IntConverter)
            text += re.sub(r"<(?:\w+:)?(\w+)>", r"%(\1)s", route)
        elif isinstance(pattern, RegexPattern):
            found, names = normalize(pattern.regex.pattern)[0]
            text += found
            params.update({name: name in ("object_id", "pk", "id") for name in names})
    return "/" + text, params


def urls(game_id: int) -> Iterator[tuple[str, str]]:
    """(a URL with one parameter made evil, or none, what) for every pattern and parameter."""
    for patterns in routes():
        text, params = template(patterns)
        good = {name: str(game_id) if is_int else "games" for name, is_int in params.items()}
        yield text % good, "fine"
        for name, is_int in params.items():
            if not is_int:
                for evil in EVIL:
                    yield text % {**good, name: evil}, name


@pytest.fixture
def world(make_game: Any) -> tuple[Game, Client]:
    game = make_game(humans=3, options={"press": "full"})
    other = Seat.objects.get(game=game, number=1)
    votes.propose(other.pk, other.player_id or 0, "draw")  # the votes panel's ballot form
    propose(creator(), [], size=3)
    return game, signed_in(Client(), game, 0)


def counts() -> tuple[int, ...]:
    return (Order.objects.count(), Message.objects.count(), Phase.objects.count(), Game.objects.count())


def test_every_url_refuses_nul_and_bytes_that_are_not_utf8_before_anything_reads_them(world):
    game, client = world
    before = counts()
    seen = 0
    for url, what in urls(game.pk):
        calls = (
            [("GET", url, None, None), ("POST", url, "x=1", "application/x-www-form-urlencoded")]
            if what != "fine"
            else [
                ("GET", url + "?q=%00", None, None),
                ("GET", url + "?%FF=1", None, None),
                ("POST", url, "x=a%00b&y=2", "application/x-www-form-urlencoded"),
                ("POST", url, "name=%E9t%E9", "application/x-www-form-urlencoded"),  # latin-1, not UTF-8
                ("POST", url, '{"reason": "a\\u0000b"}', "application/json"),
                ("POST", url, b'{"reason": "\xff"}', "application/json"),
                ("PUT", url, '{"order": {"x": "\\u0000"}}', "application/json"),
                ("POST", url, {"text": "a\x00b"}, None),  # multipart, as a browser posts a file form
            ]
        )
        if url.startswith("/anymail/"):  # a provider's inbound email is read in its own charset by its view
            calls = [call for call in calls if call[0] == "GET" or what != "fine"]
        for method, path, body, kind in calls:
            send = getattr(client, method.lower())
            response = send(path) if body is None else send(path, body, **({"content_type": kind} if kind else {}))
            assert response.status_code == 400, (method, path, body, response.status_code)
            seen += 1
    assert seen > 1000  # every pattern: the admin's, the API's, the apps'
    assert counts() == before


def test_the_api_answers_it_as_problem_details():
    body = '{"phase": 1, "order": "\\u0000"}'
    response = Client().put("/api/v1/games/1/order", body, content_type="application/json")
    assert response.status_code == 400 and response["Content-Type"] == "application/problem+json"
    assert response.json()["type"] == "urn:pbem:problem:unreadable" and response["Cache-Control"] == "no-store"


class Forms(HTMLParser):
    """Each POST form of a page: its action and its fields' names and first values."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "form" and (found.get("method") or "").lower() == "post":
            self.forms.append((found.get("action") or "", {}))
        elif tag in ("input", "select", "textarea", "button") and self.forms and found.get("name"):
            self.forms[-1][1].setdefault(found["name"] or "", found.get("value") or "")


def forms_of(client: Client, page: str) -> list[tuple[str, dict[str, str]]]:
    response = client.get(page, follow=True)
    assert response.status_code == 200, page
    parser = Forms()
    parser.feed(response.content.decode())
    return [(action or response.request["PATH_INFO"], fields) for action, fields in parser.forms]


def test_every_form_a_player_sees_refuses_a_nul_and_never_fails_on_an_odd_value(world):
    game, client = world
    table = propose(creator("second@example.com", "Second"), [], size=3)
    pages = ["/", "/me/", f"/games/{game.pk}/", f"/games/{game.pk}/history/", "/lobby/", f"/lobby/t/{table.key}/"]
    forms = [form for page in pages for form in forms_of(client, page)]
    assert len(forms) >= 10 and any("proposal" in fields for _, fields in forms)
    for action, fields in forms:
        for name in fields:
            refused = client.post(action, {**fields, name: "a\x00b"})
            assert refused.status_code == 400, (action, name)
            odd = client.post(action, {**fields, name: "\u00b2"})
            assert odd.status_code < 500, (action, name, odd.status_code)


@settings(max_examples=60, deadline=None)
@given(
    text=st.text(min_size=1, max_size=12),
    at=st.integers(min_value=0, max_value=12),
    bad=st.sampled_from(["\x00", "\x01", "\x7f", "\udcff"]),
)
def test_a_bad_character_anywhere_in_a_field_is_refused_and_text_is_not(text, at, bad):
    client = Client()
    spiked = text[:at] + bad + text[at:]
    body = spiked.encode("utf-8", "surrogateescape").replace(b"%", b"%25").replace(b"&", b"%26")
    refused = client.post("/lobby/", b"name=" + body, content_type="application/x-www-form-urlencoded")
    assert refused.status_code == 400
    clean = "".join(c for c in text if c.isprintable() and not 0xD800 <= ord(c) <= 0xDFFF) or "x"
    encoded = clean.encode().replace(b"%", b"%25").replace(b"&", b"%26").replace(b"+", b"%2B")
    kept = client.post("/lobby/", b"name=" + encoded, content_type="application/x-www-form-urlencoded")
    assert kept.status_code != 400 or b"NUL byte" not in kept.content
