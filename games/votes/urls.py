from django.urls import path

from games.votes import views

urlpatterns = [
    path("games/<int:game_id>/votes/propose/", views.propose, name="votes-propose"),
    path("games/<int:game_id>/votes/vote/", views.vote, name="votes-vote"),
    path("games/<int:game_id>/votes/concede/", views.concede, name="votes-concede"),
]
