from typing import Any

from django.apps import AppConfig
from django.db.models import Q
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy

from games.extensions import Extension, register


def organised_games(user: Any) -> Q:
    """The games of the leagues a staff user organises are theirs in the admin."""
    return Q(league_table__round__season__league__organisers=user)


def organised_members(user: Any) -> Q:
    """So are the members of those leagues, whether or not they sit at a table yet."""
    return Q(memberships__league__organisers=user)


class LeaguesConfig(AppConfig):
    name = "games.leagues"
    label = "leagues"
    verbose_name = gettext_lazy("Leagues")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The policy's receivers and extension points, the league outbox, its tasks' names.
        from games.leagues import admin_filters, console, early, emails, policy, roles, tasks  # noqa: F401, PLC0415

        post_migrate.connect(roles.ensure_organiser_group, sender=self, dispatch_uid="pbem-organiser-group")

        register(
            self.label,
            Extension(
                # A resolution reads the game's league table with the phase it locks, so the policy's
                # phase_opened receiver needs no query of its own (games outside leagues find None).
                phase_related=("game__league_table__round__season__league",),
                games_of=organised_games,
                players_of=organised_members,
                phase_deadline=policy.phase_deadline,
                declines=policy.declines,
                excused=policy.excused,
                outbox=emails.OUTBOX,
                game_filters=(admin_filters.LeagueFilter, admin_filters.RoundFilter),
                ending_refused=early.ending_refused,
                seat_left=early.seat_left,
                staff_time_zone=console.staff_time_zone,
                game_time_zones=console.game_time_zones,
                admin_home=console.home_card,
            ),
        )
