"""Table talk's pages, beside the core's (pbem/urls.py includes them while the app is installed): the game
page's posts (write, report, share) and the player's email choice. Their names keep the core's prefix, as
the pages they belong to."""

from django.urls import path

from games.talk import views

urlpatterns = [
    path("games/<int:game_id>/talk/", views.write, name="games-talk"),
    path("games/<int:game_id>/talk/report/", views.report, name="games-talk-report"),
    path("games/<int:game_id>/talk/share/", views.share, name="games-talk-share"),
    path("me/talk/", views.delivery, name="games-talk-delivery"),
]
