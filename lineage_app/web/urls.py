"""UI routes: login / logout, and the single-page app for every other path under `/`."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import path, re_path

from lineage_app.web.views import LOGIN_TEMPLATE, app_shell

urlpatterns = [
    path("login/", auth_views.LoginView.as_view(template_name=LOGIN_TEMPLATE), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    re_path(r"^(?P<path>(?!api/|admin/|static/|healthz).*)$", app_shell, name="app"),
]
