from django.apps import apps
from django.conf import settings
from django.contrib import admin
from django.urls import include, path

from games.incoming.mail.webhooks import inbound_urlpatterns

admin.site.site_header = "pbem organisers"
admin.site.site_title = "pbem"

urlpatterns = [
    path("admin/", admin.site.urls),
    # Django's set_language (POST): the language switcher of base.html, for anyone not signed in.
    path("i18n/", include("django.conf.urls.i18n")),
    # Provider webhooks: inbound replies through games/incoming/mail/webhooks.py's wrappers, first; tracking as anymail
    # routes it.
    path("anymail/", include(inbound_urlpatterns())),
    path("anymail/", include("anymail.urls")),
    path("", include("games.urls")),
]

if apps.is_installed("games.talk"):
    # Table talk's posts and settings, beside the game page's URLs (the core runs without it too).
    urlpatterns.insert(-1, path("", include("games.talk.urls")))

if apps.is_installed("games.leagues"):
    # The core runs without the leagues app (tests/test_core_alone.py); with it, its pages come first.
    urlpatterns.insert(-1, path("leagues/", include("games.leagues.urls")))
if apps.is_installed("games.lobby"):
    urlpatterns.insert(-1, path("lobby/", include("games.lobby.urls")))
if apps.is_installed("games.votes"):
    # A game's ending votes (games/votes): POSTs from the game page, under /games/<id>/votes/.
    urlpatterns.insert(-1, path("", include("games.votes.urls")))

if apps.is_installed("games.api"):
    # The JSON API (games/api/) and its tokens' forms on My games; before the core's pages, as the leagues'.
    from games.api.urls import api_urlpatterns, token_urlpatterns  # noqa: E402

    urlpatterns.insert(-1, path("api/v1/", include(api_urlpatterns)))
    urlpatterns.insert(-1, path("me/tokens/", include(token_urlpatterns)))

if apps.is_installed("games.hooks"):
    urlpatterns.insert(-1, path("me/hooks/", include("games.hooks.urls")))

if settings.DEBUG:
    # The development outbox shows the file email backend's messages, turn links included: it exists only
    # in development, so a production server answers /outbox/ with the resolver's plain 404.
    urlpatterns.append(path("outbox/", include("games.incoming.debug_mail_viewer")))
