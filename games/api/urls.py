"""The API's routes, /api/v1/ (the API object's own), and the tokens' POSTs of My games, /me/tokens/."""

from django.urls import path

from games.api import pages
from games.api.api import api

api_urlpatterns = [path("", api.urls)]

token_urlpatterns = [
    path("", pages.create, name="api-token-create"),
    path("<int:token_id>/revoke/", pages.revoke, name="api-token-revoke"),
]
