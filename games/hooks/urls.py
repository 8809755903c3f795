from django.urls import path

from games.hooks import views

urlpatterns = [
    path("add/", views.add, name="hooks-add"),
    path("<int:hook_id>/enable/", views.enable, name="hooks-enable"),
    path("<int:hook_id>/test/", views.test, name="hooks-test"),
    path("<int:hook_id>/delete/", views.delete, name="hooks-delete"),
]
