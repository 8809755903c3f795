from django.urls import path

from games.leagues import views

urlpatterns = [
    path("confirm/<str:token>/", views.confirm, name="leagues-confirm"),
    path("claim/<str:token>/", views.claim, name="leagues-claim"),
    path("calendar/<str:key>.ics", views.calendar, name="leagues-calendar"),
    path("<slug:slug>/", views.league_page, name="leagues-league"),
    path("<slug:slug>/standings.csv", views.standings_csv, name="leagues-standings-csv"),
    path("<slug:slug>/results.csv", views.results_csv, name="leagues-results-csv"),
    path("<slug:slug>/season/<int:number>/", views.league_page, name="leagues-season"),
    path("<slug:slug>/season/<int:number>/standings.csv", views.standings_csv, name="leagues-season-standings-csv"),
    path("<slug:slug>/season/<int:number>/results.csv", views.results_csv, name="leagues-season-results-csv"),
    path("<slug:slug>/join/<str:key>/", views.join, name="leagues-join"),
    path("<slug:slug>/me/", views.member, name="leagues-member"),
]
