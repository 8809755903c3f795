from django.urls import path

from games.incoming import account, health, order_views, pages, views

urlpatterns = [
    path("", views.home, name="games-home"),
    path("healthz", health.healthz, name="games-healthz"),
    path("favicon.ico", pages.favicon, name="games-favicon"),
    path("l/<str:token>/", views.follow_link, name="games-link"),
    path("games/<int:game_id>/", views.game_page, name="games-game"),
    path("games/<int:game_id>/history/", pages.game_history, name="games-history"),
    path("games/<int:game_id>/order/", order_views.submit_order, name="games-order"),
    path("games/<int:game_id>/order/review/", order_views.review_page, name="games-order-review"),
    path("games/<int:game_id>/order/confirm/", order_views.confirm_order, name="games-order-confirm"),
    path("rules/<slug:slug>/", pages.rules, name="games-rules"),
    path("me/", views.my_games, name="games-mine"),
    path("me/sign-in/<str:token>/", views.sign_in, name="games-sign-in"),
    path("me/sign-up/<str:token>/", views.sign_up, name="games-sign-up"),
    path("me/address/<str:token>/", account.confirm_address, name="games-address"),
    path("unsubscribe/<str:token>/", views.unsubscribe, name="games-unsubscribe"),
    path("sign-out/", views.sign_out, name="games-sign-out"),
    path("sign-out/everywhere/", views.sign_out_everywhere, name="games-sign-out-everywhere"),
]
