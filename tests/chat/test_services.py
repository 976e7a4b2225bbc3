"""chat.services: what a line may be, who may post it, the rate limit, mutes, hiding."""

from __future__ import annotations

import datetime

import pytest
from django.template.loader import render_to_string
from django.utils import timezone

from chat import services
from chat.models import MAX_LENGTH, ChatMessage
from lobby import services as rooms
from moderation.models import AuditEntry, Mute
from tests.conftest import make_user
from tests.moderation.helpers import make_moderator

pytestmark = pytest.mark.django_db


@pytest.fixture
def room(alice):
    return rooms.create_room(alice, "ligretto", 4)


@pytest.fixture
def moderator(db):
    return make_moderator("mia")


def _mute(user, by, minutes: int = 60) -> Mute:
    return Mute.objects.create(
        user=user, until=timezone.now() + datetime.timedelta(minutes=minutes), reason="rude", by=by
    )


def test_it_keeps_the_line_stripped_with_whitespace_collapsed(room, alice):
    message = services.post(room.pk, alice, "  good \n\t luck\x00 all  ")
    assert message.text == "good luck all"
    assert ChatMessage.objects.get().text == "good luck all"


@pytest.mark.parametrize("text", ["", "   ", "\n\t", None, 42, ["gg"]])
def test_it_refuses_an_empty_or_malformed_line(room, alice, text):
    with pytest.raises(services.ChatRefused, match="Type something"):
        services.post(room.pk, alice, text)
    assert not ChatMessage.objects.exists()


def test_it_takes_max_length_characters_and_refuses_one_more(room, alice):
    assert len(services.post(room.pk, alice, "x" * MAX_LENGTH).text) == MAX_LENGTH
    with pytest.raises(services.ChatRefused, match=f"at most {MAX_LENGTH} characters"):
        services.post(room.pk, alice, "y" * (MAX_LENGTH + 1))
    assert ChatMessage.objects.count() == 1


def test_an_anonymous_spectator_cannot_post(room):
    from django.contrib.auth.models import AnonymousUser

    with pytest.raises(services.ChatRefused, match="Log in to chat") as refused:
        services.post(room.pk, AnonymousUser(), "hello")
    assert refused.value.status == 403
    assert not ChatMessage.objects.exists()


def test_the_rate_limit_refuses_the_line_after_the_last_allowed(settings, room, alice, bob):
    settings.CHAT_LINES_PER_USER = 3
    for n in range(3):
        services.post(room.pk, alice, f"line {n}")
    with pytest.raises(services.ChatRefused, match="Slow down") as refused:
        services.post(room.pk, alice, "one too many")
    assert refused.value.status == 429
    services.post(room.pk, bob, "bob has his own count")
    assert list(ChatMessage.objects.values_list("text", flat=True)) == [
        "line 0",
        "line 1",
        "line 2",
        "bob has his own count",
    ]


def test_a_muted_user_is_refused_with_the_time_the_mute_ends(room, alice, bob, moderator):
    mute = _mute(bob, moderator)
    with pytest.raises(services.ChatRefused) as refused:
        services.post(room.pk, bob, "let me talk")
    until = timezone.localtime(mute.until)
    assert refused.value.message.startswith(f"You are muted until {until:%H:%M}")
    assert refused.value.muted
    assert not ChatMessage.objects.exists()
    assert services.compose_context(bob)["muted"] == refused.value.message
    assert services.compose_context(alice)["muted"] == ""


def test_an_expired_mute_no_longer_stops_the_user(room, bob, moderator):
    Mute.objects.create(
        user=bob, until=timezone.now() - datetime.timedelta(seconds=1), reason="x", by=moderator
    )
    assert services.post(room.pk, bob, "back again").text == "back again"


def test_a_mute_ending_another_day_says_the_date(moderator, bob):
    until = timezone.now() + datetime.timedelta(days=3)
    local = timezone.localtime(until)
    assert services.muted_sentence(until) == (
        f"You are muted until {local:%H:%M} on {local:%Y-%m-%d}."
    )


def test_the_line_is_escaped_where_it_is_drawn(room, alice):
    message = services.post(room.pk, alice, '<script>alert("x")</script> & <b>bold</b>')
    html = render_to_string("chat/panel.html#append", {"m": message})
    assert "<script>" not in html and "<b>bold" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;bold" in html
    evil = make_user('x"><img src=x onerror=alert(1)>')
    line = services.post(room.pk, evil, "hi")
    html = render_to_string("chat/panel.html#append", {"m": line})
    assert "<img" not in html


def test_a_line_in_a_room_that_does_not_exist_is_refused(alice):
    with pytest.raises(services.ChatRefused, match="does not exist"):
        services.post(987654, alice, "hello?")


def test_hiding_marks_the_line_and_writes_the_audit_log(room, alice, moderator):
    message = services.post(room.pk, alice, "something rude")
    services.hide(message.pk, moderator, "  rude \n to bob ")
    message.refresh_from_db()
    assert message.hidden and message.hidden_by == moderator and message.hidden_at is not None
    entry = AuditEntry.objects.get()
    assert entry.moderator == moderator
    assert entry.action == AuditEntry.Action.HIDE_MESSAGE
    assert entry.reason == "rude to bob"
    assert (entry.message, entry.room, entry.user) == (message, room, alice)


def test_hiding_twice_writes_one_audit_entry(room, alice, moderator):
    message = services.post(room.pk, alice, "something rude")
    services.hide(message.pk, moderator, "rude")
    services.hide(message.pk, moderator, "rude again")
    assert AuditEntry.objects.count() == 1


def test_a_hidden_line_is_left_out_of_the_backlog(room, alice, bob, moderator):
    keep = services.post(room.pk, alice, "hello")
    gone = services.post(room.pk, bob, "rude")
    services.hide(gone.pk, moderator, "rude")
    last, html = services.render_backlog(room.pk, alice)
    assert last == keep.pk
    assert f'id="chat-line-{keep.pk}"' in html and "hello" in html
    assert f'id="chat-line-{gone.pk}"' not in html and "rude" not in html


def test_the_backlog_holds_the_last_lines_in_order(settings, room, alice):
    settings.CHAT_LINES_PER_USER = 1000
    for n in range(services.BACKLOG + 5):
        services.post(room.pk, alice, f"line {n}")
    _last, html = services.render_backlog(room.pk, alice)
    assert html.count('class="chat-line"') == services.BACKLOG
    assert "line 4<" not in html and "line 5<" in html
    assert html.index("line 5<") < html.index(f"line {services.BACKLOG + 4}<")


def test_only_moderators_may_hide_and_a_reason_is_required(room, alice, bob, moderator):
    message = services.post(room.pk, alice, "hello")
    staff_only = make_user("hal", is_staff=True)  # staff, but not a moderator
    for who in (bob, staff_only):
        with pytest.raises(services.ChatRefused, match="Only moderators") as refused:
            services.hide(message.pk, who, "I do not like it")
        assert refused.value.status == 403
    with pytest.raises(services.ChatRefused, match="Say why"):
        services.hide(message.pk, moderator, "   ")
    message.refresh_from_db()
    assert not message.hidden
    assert not AuditEntry.objects.exists()
