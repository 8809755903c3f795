"""The organisers' admin: games.py registers the core's rows (games, seats, phases, orders, the log, the
outbox, players), newgame.py is its Add game form, scope.py says who sees what (the plug-ins' admins build
on its classes). Django's admin autodiscovery imports this package, which registers games.py's pages and has
the admin's yes/no icons say yes and no in the reader's language (yes_no.py)."""

from games.admin import games, yes_no  # noqa: F401  (registers the core's admin pages)

yes_no.install()
