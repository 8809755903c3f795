"""The project's settings without its plug-in apps (every app under games/ but the core's own: the leagues,
table talk, the API, the webhooks, the lobby, the votes, ...): the core on its own (tests/test_core_alone.py)."""

from pathlib import Path

from pbem.settings import *  # noqa: F403
from pbem.settings import DATABASES, INSTALLED_APPS

GAMES = Path(__file__).resolve().parents[2] / "games"
# Each plug-in is a package of games/ with an apps.py of its own; ninja is the API's library.
PLUG_INS = {f"games.{apps.parent.name}" for apps in GAMES.glob("*/apps.py")} | {"ninja"}
INSTALLED_APPS = [app for app in INSTALLED_APPS if app not in PLUG_INS]
if DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3":  # SQLite tests use a database in memory
    # A test database of its own, so these tests may run beside the whole suite's run.
    DATABASES["default"]["TEST"] = {"NAME": f"test_{DATABASES['default']['NAME']}_core"}
