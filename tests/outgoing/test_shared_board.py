"""`{% shared %}` (games/templatetags/shared_board.py): a part of an email board rendered once for every reader
of a batch, from the spectator's view only. (tests/outgoing/test_boards.py checks every game's emails, rendered so,
against the board rendered for each reader alone.)"""

from __future__ import annotations

from zoneinfo import ZoneInfo

from django.template import Context, Template
from django.utils import timezone

PART = Template(
    "{% load shared_board %}<{{ player }}>{% shared %}[{{ player }}|{{ view.hand }}|{{ view.map }}]{% endshared %}"
)


def read(player: str, hand: str, renders: dict | None) -> str:
    context = {"player": player, "view": {"hand": hand, "map": "sea"}}
    if renders is not None:
        context |= {"public_view": {"hand": "", "map": "sea"}, "shared_renders": renders}
    return PART.render(Context(context))


def test_a_shared_part_sees_only_the_spectators_view_and_is_rendered_once_for_every_reader():
    renders: dict = {}
    assert read("Ann", "ann-cards", renders) == "<Ann>[||sea]"  # nothing of Ann's reaches the part
    assert len(renders) == 1
    renders[next(iter(renders))] = "(kept)"
    assert read("Bob", "bob-cards", renders) == "<Bob>(kept)"  # Bob's email reuses it


def test_a_reader_in_another_time_zone_gets_the_part_rendered_again():
    renders: dict = {}
    with timezone.override(ZoneInfo("Europe/Paris")):
        read("Ann", "", renders)
    with timezone.override(ZoneInfo("America/Chicago")):
        read("Bob", "", renders)
    assert len(renders) == 2


def test_outside_a_batch_the_part_is_rendered_for_its_reader():
    assert read("Ann", "ann-cards", None) == "<Ann>[Ann|ann-cards|sea]"
