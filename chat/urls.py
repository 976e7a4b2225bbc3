from django.urls import path

from chat import views

app_name = "chat"

urlpatterns = [
    path("chat/messages/<int:message_id>/hide/", views.hide_message, name="hide"),
]
