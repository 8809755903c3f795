from django.urls import path

from games.lobby import views

urlpatterns = [
    path("", views.open_tables, name="lobby-open"),
    path("new/", views.new_table, name="lobby-new"),
    path("t/<str:key>/", views.table_page, name="lobby-table"),
    path("t/<str:key>/join/", views.join, name="lobby-join"),
    path("t/<str:key>/leave/", views.leave, name="lobby-leave"),
    path("t/<str:key>/cancel/", views.cancel, name="lobby-cancel"),
    path("t/<str:key>/invite/", views.invite, name="lobby-invite"),
    path("t/<str:key>/accept/", views.accept, name="lobby-accept"),
    path("t/<str:key>/decline/", views.decline_here, name="lobby-decline-here"),
    path("i/<str:token>/", views.join_link, name="lobby-join-link"),
    path("decline/<str:token>/", views.decline, name="lobby-decline"),
    path("rematch/<int:game_id>/", views.rematch, name="lobby-rematch"),
]
