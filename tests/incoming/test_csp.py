"""Content-Security-Policy: every response carries the header, and no page holds what the policy would
block (an inline script, an event handler, a <style> without the response's nonce, a foreign resource).

The browser walk behind this (headless Chromium over every page kind, the admin's widgets included) is a
manual check for now; these tests read the HTML the browser would get."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.contrib import admin
from django.urls import reverse

from games.engines import all_engines
from games.leagues import emails as league_emails
from games.leagues.models import Membership
from games.outgoing.links import make_token
from games.play import orders, organise, turns
from tests.support.leagues import first_game, make_league, started_round
from tests.support.phases import open_phase

pytestmark = pytest.mark.django_db(transaction=True)

JAVASCRIPT_TYPES = {"", "text/javascript", "application/javascript", "module"}


def policy_of(response) -> dict[str, list[str]]:
    header = response.headers.get("Content-Security-Policy")
    assert header, f"{response.request['PATH_INFO']} has no Content-Security-Policy header"
    directives = {}
    for part in header.split(";"):
        name, *sources = part.split()
        directives[name] = sources
    return directives


def sources_for(policy: dict[str, list[str]], directive: str) -> list[str]:
    """What the browser applies for `directive`, with CSP's fallbacks (style-src-elem -> style-src -> default)."""
    fallbacks = {
        "script-src-elem": ["script-src-elem", "script-src", "default-src"],
        "script-src-attr": ["script-src-attr", "script-src", "default-src"],
        "style-src-elem": ["style-src-elem", "style-src", "default-src"],
        "style-src-attr": ["style-src-attr", "style-src", "default-src"],
    }
    for name in fallbacks.get(directive, [directive, "default-src"]):
        if name in policy:
            return policy[name]
    return ["*"]


def same_origin(url: str) -> bool:
    return url.startswith("/") and not url.startswith("//") or url.startswith(("#", "?", "https://testserver/"))


class Blocked(HTMLParser):
    """Collects each element of a page that the policy would block."""

    def __init__(self, policy: dict[str, list[str]]) -> None:
        super().__init__()
        self.policy = policy
        self.blocked: list[str] = []

    def allows_inline(self, directive: str, nonce: str | None) -> bool:
        allowed = sources_for(self.policy, directive)
        has_nonce = any(s.startswith("'nonce-") for s in allowed)
        if nonce is not None and f"'nonce-{nonce}'" in allowed:
            return True
        # A nonce in the list makes browsers ignore 'unsafe-inline'.
        return "'unsafe-inline'" in allowed and not has_nonce

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        where = f"<{tag} {' '.join(f'{k}={v!r}' for k, v in attrs)[:120]}>"
        for name, value in attrs:
            if name.startswith("on"):
                self.blocked.append(f"event handler {where}")
            url = (value or "").strip().lower() if name in {"href", "src", "action", "formaction"} else ""
            if url.startswith("javascript:"):
                self.blocked.append(f"javascript: URL {where}")
        if "style" in found and not self.allows_inline("style-src-attr", None):
            self.blocked.append(f"style attribute {where}")
        if tag == "script":
            if found.get("src"):
                if not same_origin(found["src"] or ""):
                    self.blocked.append(f"foreign script {where}")
            elif (found.get("type") or "").lower() in JAVASCRIPT_TYPES and not self.allows_inline(
                "script-src-elem", found.get("nonce")
            ):
                self.blocked.append(f"inline script {where}")
        if tag == "style" and not self.allows_inline("style-src-elem", found.get("nonce")):
            self.blocked.append(f"<style> without the nonce {where}")
        if tag == "link" and "stylesheet" in (found.get("rel") or "") and not same_origin(found.get("href") or ""):
            self.blocked.append(f"foreign style sheet {where}")
        if tag == "img" and not (same_origin(found.get("src") or "") or (found.get("src") or "").startswith("data:")):
            self.blocked.append(f"foreign image {where}")
        if tag == "form" and found.get("action") and not same_origin(found["action"] or ""):
            self.blocked.append(f"form to another site {where}")
        if tag == "iframe" and found.get("src") and not same_origin(found["src"] or ""):
            self.blocked.append(f"foreign frame {where}")


def assert_nothing_blocked(response, status: int = 200) -> None:
    assert response.status_code == status, (response.request["PATH_INFO"], response.status_code)
    parser = Blocked(policy_of(response))
    parser.feed(response.content.decode())
    assert not parser.blocked, f"{response.request['PATH_INFO']}: {parser.blocked}"


def test_the_policy_allows_no_inline_script_and_no_framing(client):
    policy = policy_of(client.get(reverse("games-home")))
    assert policy["script-src"] == ["'self'"]
    assert "'unsafe-inline'" not in sources_for(policy, "style-src-elem")
    assert policy["object-src"] == ["'none'"] and policy["frame-ancestors"] == ["'none'"]
    assert policy["base-uri"] == ["'none'"] and policy["form-action"] == ["'self'"]


def test_every_kind_of_response_carries_the_header(client, make_game):
    game = make_game(humans=3)
    league = make_league(players=4)
    started_round(league)
    for url in [
        reverse("games-home"),
        reverse("games-game", args=[game.pk]),
        "/no/such/page/",
        reverse("leagues-standings-csv", args=[league.slug]),
        reverse("leagues-results-csv", args=[league.slug]),
        reverse("admin:login"),
    ]:
        policy_of(client.get(url))
    policy_of(client.post(reverse("games-order", args=[game.pk]), {}))  # a refusal (403) too


def test_each_game_page_holds_nothing_the_policy_blocks(client):
    for engine in all_engines():
        players = [turns.player_for(f"{engine.slug}{i}@example.com", f"P{i}") for i in range(engine.min_players)]
        game = turns.create_game(engine.slug, players, seed=7)
        page = reverse("games-game", args=[game.pk])
        assert_nothing_blocked(client.get(page))  # anyone
        seat = game.seats.get(number=0)
        assert client.get(reverse("games-link", args=[make_token(seat, open_phase(game))])).status_code == 302
        assert_nothing_blocked(client.get(page))  # the seat's player, with the order form
        refused = client.post(reverse("games-order", args=[game.pk]), {"phase": str(open_phase(game).number)})
        if refused.status_code == 400:  # the form again, with its errors (some prompts take an empty order)
            assert_nothing_blocked(refused, status=400)
        assert_nothing_blocked(client.get(reverse("games-rules", args=[engine.slug])))
        organise.resolve_now(game)
        assert_nothing_blocked(client.get(reverse("games-history", args=[game.pk])))  # the first turn, looked back at


def test_my_games_and_the_league_pages_hold_nothing_the_policy_blocks(client):
    league = make_league(players=4)
    round_ = started_round(league)
    game = first_game(round_)
    seat = game.seats.get(number=0)
    assert_nothing_blocked(client.get(reverse("games-home")))
    assert_nothing_blocked(client.get(reverse("games-mine")))
    client.get(reverse("games-link", args=[make_token(seat, open_phase(game))]))
    assert_nothing_blocked(client.get(reverse("games-mine")))
    assert_nothing_blocked(client.get(reverse("leagues-league", args=[league.slug])))
    assert_nothing_blocked(client.get(reverse("leagues-join", args=[league.slug, league.invite_key])))
    membership = Membership.objects.get(league=league, player=seat.player)
    settings_link = league_emails.settings_url(membership).removeprefix("https://pbem.example")
    assert client.get(settings_link).status_code == 302
    assert_nothing_blocked(client.get(reverse("leagues-member", args=[league.slug])))


def test_the_development_outbox_holds_nothing_the_policy_blocks(client, make_game, file_outbox, urls_loaded_with):
    urls_loaded_with(debug=True)
    make_game(humans=3)
    listing = client.get(reverse("games-outbox"))
    assert_nothing_blocked(listing)
    first = listing.context["mails"][0]
    assert_nothing_blocked(client.get(reverse("games-outbox-message", args=[first["file"], first["index"]])))


def test_every_admin_page_holds_nothing_the_policy_blocks(admin_client, client, make_game):
    assert_nothing_blocked(client.get(reverse("admin:login")))
    game = make_game(humans=3)
    orders.submit_order(game.seats.get(number=0), open_phase(game).number, {"role": "seller"})
    started_round(make_league(players=4))
    assert_nothing_blocked(admin_client.get(reverse("admin:index")))
    assert_nothing_blocked(admin_client.get(reverse("admin:games_game_add")))
    opened = 0
    for model in admin.site._registry:
        prefix = f"admin:{model._meta.app_label}_{model._meta.model_name}"
        assert_nothing_blocked(admin_client.get(reverse(f"{prefix}_changelist")))
        add = admin_client.get(reverse(f"{prefix}_add"))
        if add.status_code != 403:  # read-only models refuse it
            assert_nothing_blocked(add)
        row = model._default_manager.order_by("pk").first()
        if row is not None:
            assert_nothing_blocked(admin_client.get(reverse(f"{prefix}_change", args=[row.pk])))
            opened += 1
    assert opened >= 10
