"""The Organiser role (issue 28): a group with exactly the permissions a league organiser's routine jobs need,
so a staff user in it can draw rounds, extend, pause, resume and resolve games, replace seats, drop members,
record vacations and read standings, and nothing more (no deleting, no changing players, no starting one-off
games). What they reach is scoped to their own leagues and those leagues' games by the admin itself
(games/admin.py StaffScoped, games/leagues/admin.py OrganisersOwn): the group says only which kinds of rows.

`manage.py migrate` makes the group and sets its permissions (a post_migrate receiver, after Django has made
the permissions themselves), so it is there on a fresh database and keeps this set after an upgrade.
"""

from __future__ import annotations

from typing import Any

GROUP = "Organiser"
PERMISSIONS = {
    "leagues": [
        "view_league",
        "add_league",  # a league they add is theirs (its organisers get them added)
        "change_league",  # its settings, sign-ups, drawing rounds, new seasons
        "view_season",
        "view_round",
        "change_round",  # extend, pause, resume, start, close; its start time
        "view_table",  # a round's tables, on its page
        "view_membership",
        "add_membership",
        "change_membership",  # drop, standby, active
        "view_vacation",
        "add_vacation",  # a vacation recorded for a member
        "view_substitution",
        "view_leagueemail",
    ],
    "games": [
        "view_game",
        "change_game",  # extend, pause, resume, resolve now; its title and timings
        "view_seat",
        "change_seat",  # give the seat to someone else
        "view_phase",
        "view_order",  # sealed until resolved: the admin shows who ordered, not what
        "view_event",  # private lines hidden until the game ends
        "view_outboundemail",
        "view_player",  # read-only: only a superuser changes a player (their address, their sessions)
    ],
    "talk": ["view_message"],  # reported messages only
    # Bots for the API (games/api/, when installed): an organiser makes one, and a new token for it.
    "api": ["view_bot", "add_bot", "change_bot"],
    # A game's or league's webhooks for its public news, on their own games and leagues only (games/hooks/admin.py).
    # (Turned off rather than deleted, like everything an organiser stops: its deliveries stay to read.)
    "hooks": ["view_hook", "add_hook", "change_hook", "view_delivery"],
    "votes": ["view_proposal"],  # a table's votes: what and when, never who (games/votes/admin.py)
}


def ensure_organiser_group(using: str = "default", **kwargs: Any) -> None:
    """The Organiser group with exactly PERMISSIONS (post_migrate of the leagues app; the permissions of the
    apps named are made first, whichever order the apps' own post_migrate runs in)."""
    from django.apps import apps  # noqa: PLC0415  (ready by now)
    from django.contrib.auth.management import create_permissions  # noqa: PLC0415
    from django.contrib.auth.models import Group, Permission  # noqa: PLC0415

    for label in PERMISSIONS:
        if apps.is_installed(f"games.{label}") or label == "games":
            create_permissions(apps.get_app_config(label), verbosity=0, using=using)
    group, _ = Group.objects.using(using).get_or_create(name=GROUP)
    wanted = (
        Permission.objects.using(using)
        .select_related("content_type")
        .filter(
            content_type__app_label__in=list(PERMISSIONS),
            codename__in=[codename for codenames in PERMISSIONS.values() for codename in codenames],
        )
    )
    group.permissions.set([p for p in wanted if p.codename in PERMISSIONS[p.content_type.app_label]])
