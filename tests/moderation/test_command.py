"""`manage.py moderator`: the one way to make someone a moderator, and to undo it."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from moderation.models import can_moderate
from tests.conftest import client_for


def fresh(user):
    return get_user_model().objects.get(pk=user.pk)  # permissions are cached per instance


def test_it_makes_a_moderator_who_may_act_and_read_the_admin_lists(alice):
    assert not can_moderate(alice)
    call_command("moderator", "alice")
    alice = fresh(alice)
    assert alice.is_staff and can_moderate(alice)
    admin = client_for(alice)
    for page in ("auth/user", "moderation/report", "moderation/auditentry", "chat/chatmessage"):
        assert admin.get(f"/admin/{page}/").status_code == 200, page
    assert admin.get("/admin/auth/group/").status_code == 403  # no more than that


def test_it_undoes_it(alice):
    call_command("moderator", "alice")
    call_command("moderator", "alice", "--remove")
    alice = fresh(alice)
    assert not alice.is_staff and not can_moderate(alice)


def test_it_names_an_unknown_user(db):
    with pytest.raises(CommandError, match="no user called 'nobody'"):
        call_command("moderator", "nobody")
