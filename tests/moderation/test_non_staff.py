"""Non-staff users reach no moderation action: every site URL of the moderation, every admin
page of the project's models (and their actions) and every API route, for a signed-in player
and for an anonymous visitor. Each answer is a refusal, and nothing changes."""

from __future__ import annotations

import json
import re

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

import api.urls
import chat.urls
import moderation.urls
from api.models import ApiToken
from chat.models import ChatMessage
from lobby.models import Room
from moderation import services
from moderation.models import AuditEntry, Mute, Report
from tests.conftest import client_for, make_user
from tests.moderation.helpers import make_moderator
from tests.tables.helpers import started_room

pytestmark = pytest.mark.django_db

APPS = {"moderation", "chat", "lobby", "games", "api", "auth"}
# The one moderation URL meant for players: reporting someone (signed in).
PLAYER_URLS = {"report"}


@pytest.fixture
def world(alice, bob, carol):
    """A match in progress with a report, a mute and an audit entry already there."""
    mod = make_moderator("mod")
    room = started_room(carol, [alice, bob], game="ligretto")
    report = services.create_report(alice, bob, room, "rude")
    services.mute(carol, mod, 60, reason="flood")
    message = ChatMessage.objects.create(room=room, user=bob, text="you all stink")
    return {"room": room, "report": report, "target": bob, "mod": mod, "message": message}


def snapshot() -> dict:
    """Everything a moderation action could change."""
    return {
        "active": dict(get_user_model().objects.values_list("username", "is_active")),
        "staff": dict(get_user_model().objects.values_list("username", "is_staff")),
        "audit": list(AuditEntry.objects.values_list("pk", "action", "reason")),
        "mutes": list(Mute.objects.values_list("pk", "user_id", "until")),
        "reports": list(Report.objects.values_list("pk", "status", "resolution")),
        "rooms": list(Room.objects.values_list("pk", "status", "closed_reason", "host_id")),
        "chat": list(ChatMessage.objects.values_list("pk", "hidden", "hidden_by")),
    }


def refused(response) -> bool:
    if response.status_code in (403, 404, 405):
        return True
    if response.status_code == 302:
        return "/login/" in response["Location"]
    return False


def people(alice):
    """A signed-in non-staff player (in the room) and an anonymous visitor."""
    return [("alice", client_for(alice), False), ("anonymous", Client(), True)]


def moderation_site_urls(world, apps=(("moderation", moderation.urls), ("chat", chat.urls))):
    """Every URL of the moderation's views, and the chat's (hiding a line is moderation)."""
    ids = {
        "room_id": world["room"].pk,
        "user_id": world["target"].pk,
        "message_id": world["message"].pk,
    }
    urls = []
    for namespace, module in apps:
        for pattern in module.urlpatterns:
            kwargs = {name: ids[name] for name in pattern.pattern.converters}
            urls.append((pattern.name, reverse(f"{namespace}:{pattern.name}", kwargs=kwargs)))
    return urls


def test_every_moderation_url_refuses_non_staff_and_changes_nothing(world, alice):
    urls = moderation_site_urls(world)
    assert {name for name, _ in urls} >= {"close_room", "ban", "mute", "report", "hide"}
    before = snapshot()
    for who, client, anonymous in people(alice):
        for name, url in urls:
            if name in PLAYER_URLS and not anonymous:
                continue  # a player may report; tested in test_views
            for method in ("get", "post"):
                response = getattr(client, method)(url, {"reason": "because"})
                assert refused(response), (who, method, url, response.status_code)
                if method == "post" and name not in PLAYER_URLS:
                    # Staff-only posts answer 403 to everyone else, signed in or not.
                    assert response.status_code == 403, (who, url)
    assert snapshot() == before


def admin_pages(world) -> list[tuple[str, str, str, dict]]:
    """(model, method, url, data) for every admin page and action of the project's models."""
    pages = [("site", "get", reverse("admin:index"), {})]
    for model, model_admin in admin.site._registry.items():
        meta = model._meta
        if meta.app_label not in APPS:
            continue
        name = f"admin:{meta.app_label}_{meta.model_name}"
        obj = model.objects.order_by("pk").first()
        pk = obj.pk if obj is not None else 1
        pages += [
            (meta.label, "get", reverse(f"{name}_changelist"), {}),
            (meta.label, "get", reverse(f"{name}_add"), {}),
            (meta.label, "post", reverse(f"{name}_add"), {}),
            (meta.label, "get", reverse(f"{name}_change", args=[pk]), {}),
            (meta.label, "post", reverse(f"{name}_change", args=[pk]), {"reason": "x"}),
            (meta.label, "get", reverse(f"{name}_delete", args=[pk]), {}),
            (meta.label, "post", reverse(f"{name}_delete", args=[pk]), {"post": "yes"}),
            (meta.label, "get", reverse(f"{name}_history", args=[pk]), {}),
        ]
        for action in model_admin.actions or ():
            action_name = action if isinstance(action, str) else action.__name__
            data = {
                "action": action_name,
                "_selected_action": [str(pk)],
                "apply": "1",
                "reason": "x",
            }
            pages.append((meta.label, "post", reverse(f"{name}_changelist"), data))
    return pages


def test_every_admin_page_and_action_refuses_non_staff_and_changes_nothing(world, alice):
    pages = admin_pages(world)
    labels = {label for label, *_ in pages}
    assert {"auth.User", "moderation.Report", "moderation.AuditEntry", "lobby.Room"} <= labels
    assert any(data.get("action") == "ban_users" for *_, data in pages)
    before = snapshot()
    for who, client, _anonymous in people(alice):
        for label, method, url, data in pages:
            response = getattr(client, method)(url, data)
            # The admin sends everyone who is not active staff to its login page.
            assert response.status_code == 302, (who, label, method, url)
            assert response["Location"].startswith("/admin/login/"), (who, url)
    assert snapshot() == before


def call(client, method: str, url: str, body: str, headers: dict):
    if method == "get":
        return client.get(url, headers=headers)
    return getattr(client, method)(url, body, content_type="application/json", headers=headers)


def test_no_api_route_exposes_moderation(world, alice):
    words = re.compile(r"ban|mute|report|moderat|audit|hide|admin", re.IGNORECASE)
    routes = [str(p.pattern) for p in api.urls.urlpatterns]
    assert routes and not [r for r in routes if words.search(r)]
    # The API's close is the host's (lobby.services.close_room without moderator=True).
    assert "rooms/<int:room_id>/close" in routes

    _, token = ApiToken.objects.issue(alice, "tests")
    room, target = world["room"].pk, world["target"]
    guesses = [
        f"users/{target.pk}/ban",
        f"users/{target.username}/mute",
        f"rooms/{room}/report",
        "moderation/reports",
        "reports",
        "audit",
    ]
    concrete = []
    for pattern in api.urls.urlpatterns:
        path = str(pattern.pattern).replace("<int:room_id>", str(room))
        if not path.startswith("^"):
            concrete.append(path)
    before = snapshot()
    body = json.dumps({"reason": "x", "user": target.username, "action": "ban"})
    alice_headers = {"Authorization": f"Bearer {token}"}
    for who, headers in (("alice", alice_headers), ("anonymous", {})):
        client = Client()
        for path in guesses:
            for method in ("get", "post"):
                response = call(client, method, f"/api/v1/{path}", body, headers)
                assert response.status_code in (404, 405), (who, path, response.status_code)
        for path in concrete:
            response = client.get(f"/api/v1/{path}", headers=headers)
            assert response.status_code < 500, (who, path)
            for method in ("post", "put", "delete"):
                # What an API route does is its own (tests/api); a moderation field is none of
                # its fields.
                assert call(client, method, f"/api/v1/{path}", body, headers).status_code < 500
    host_only = json.dumps({"reason": "x"})
    for who, headers, sent, status in (
        ("alice", alice_headers, body, 400),  # "user", "action": not fields of the call
        ("alice", alice_headers, host_only, 403),
        ("anonymous", {}, body, 401),
    ):
        response = Client().post(
            f"/api/v1/rooms/{room}/close",
            sent,
            content_type="application/json",
            headers=headers,
        )
        assert response.status_code == status, (who, response.content[:200])
    # alice is a player, not the host: the host's routes (close, remove) refused her too.
    assert snapshot() == before


def test_staff_without_the_moderate_permission_reach_no_site_action(world):
    staffer = make_user("staffer", is_staff=True)
    client = client_for(staffer)
    before = snapshot()
    # (chat.services.hide asks for staff only, not for this permission: the chat's to decide.)
    for name, url in moderation_site_urls(world, [("moderation", moderation.urls)]):
        if name in PLAYER_URLS:
            continue
        assert client.post(url, {"reason": "because"}).status_code == 403, url
    assert snapshot() == before
