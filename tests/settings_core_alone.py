"""The project's settings without the plug-in apps (the leagues, the lobby, which uses the leagues' deadline
arithmetic, the API, webhooks and votes): the core on its own (tests/test_core_alone.py)."""

from pbem.settings import *  # noqa: F403
from pbem.settings import DATABASES, INSTALLED_APPS

# The API, webhooks, lobby and votes apps go too: plug-ins that register their own extensions (the API's bots
# are players of their owner; a league's hooks name its league; the lobby uses the leagues' deadline arithmetic).
PLUGIN_APPS = {"games.leagues", "games.api", "ninja", "games.hooks", "games.lobby", "games.votes"}
INSTALLED_APPS = [app for app in INSTALLED_APPS if app not in PLUGIN_APPS]
if DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3":  # SQLite tests use a database in memory
    # A test database of its own, so these tests may run beside the whole suite's run.
    DATABASES["default"]["TEST"] = {"NAME": f"test_{DATABASES['default']['NAME']}_core"}
