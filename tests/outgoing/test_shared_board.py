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


# `{% once %}`: a part rendered once per batch for each set of its values, seeing only them.
ONCE = Template("{% load shared_board %}<{{ player }}>{% once due=due %}[{{ player }}|{{ due }}]{% endonce %}")


def read_once(player: str, due: str, renders: dict | None) -> str:
    context: dict[str, object] = {"player": player, "due": due}
    if renders is not None:
        context["shared_renders"] = renders
    return ONCE.render(Context(context))


def test_a_once_part_sees_only_its_values_and_is_rendered_once_for_each_set_of_them():
    renders: dict = {}
    assert read_once("Ann", "Monday", renders) == "<Ann>[|Monday]"  # the reader's name does not reach the part
    renders[next(iter(renders))] = "(kept)"
    assert read_once("Bob", "Monday", renders) == "<Bob>(kept)"
    assert read_once("Cy", "Tuesday", renders) == "<Cy>[|Tuesday]"  # another value: rendered again
    assert len(renders) == 2


def test_a_once_part_outside_a_batch_or_with_a_value_that_is_no_key_is_rendered_for_its_reader():
    assert read_once("Ann", "Monday", None) == "<Ann>[|Monday]"
    unhashable = Template("{% load shared_board %}{% once days=days %}{{ days|length }}{% endonce %}")
    renders: dict = {}
    assert unhashable.render(Context({"days": [1, 2], "shared_renders": renders})) == "2"
    assert renders == {}
