"""The settings as an operator meets them: production is real, development needs nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_production_settings_pass_the_deploy_check():
    result = run_manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DEBUG="False",
        SECRET_KEY="k" * 20 + "a-long-random-production-secret-0123456789",
        ALLOWED_HOSTS="cards.example.org",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_refuses_to_start_without_a_secret_key():
    result = run_manage("check", DEBUG="False", ALLOWED_HOSTS="cards.example.org")
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_passwords_are_hashed_with_pbkdf2_unless_the_environment_names_a_hasher():
    code = "from django.contrib.auth.hashers import get_hasher; print(get_hasher().algorithm)"
    default = run_manage("shell", "--no-imports", "-c", code, PASSWORD_HASHERS="")
    assert default.stdout.split() == ["pbkdf2_sha256"], default.stderr
    # What the tests' own sites name (tests/devserver.py, TEST_SITE).
    named = run_manage(
        "shell",
        "--no-imports",
        "-c",
        code,
        PASSWORD_HASHERS="django.contrib.auth.hashers.MD5PasswordHasher",
    )
    assert named.stdout.split() == ["md5"], named.stderr


def test_the_deploy_check_warns_of_a_fast_password_hasher():
    production = {
        "DEBUG": "False",
        "SECRET_KEY": "k" * 20 + "a-long-random-production-secret-0123456789",
        "ALLOWED_HOSTS": "cards.example.org",
        "PASSWORD_HASHERS": "django.contrib.auth.hashers.MD5PasswordHasher",
    }
    result = run_manage("check", "--deploy", "--fail-level", "WARNING", **production)
    assert result.returncode != 0
    assert "lobby.W001" in result.stderr + result.stdout
    assert "MD5PasswordHasher" in result.stderr + result.stdout


def test_the_environment_switches_database_and_channel_layer():
    code = (
        "from django.conf import settings as s;"
        "print(s.DATABASES['default']['ENGINE']);"
        "print(s.CHANNEL_LAYERS['default']['BACKEND'])"
    )
    default = run_manage("shell", "--no-imports", "-c", code)
    assert default.stdout.split() == [
        "django.db.backends.sqlite3",
        "channels.layers.InMemoryChannelLayer",
    ]
    scaled = run_manage(
        "shell",
        "--no-imports",
        "-c",
        code,
        DATABASE_URL="postgres://postgres@127.0.0.1:5432/test",
        REDIS_URL="redis://127.0.0.1:6379/0",
    )
    assert scaled.stdout.split() == [
        "django.db.backends.postgresql",
        "channels_redis.pubsub.RedisPubSubChannelLayer",
    ]


def test_mails_go_to_the_smtp_server_named_or_to_the_console():
    code = (
        "from django.core import mail; m = mail.mailers.default;"
        "print(type(m).__module__, getattr(m, 'host', '-'), getattr(m, 'port', '-'),"
        " getattr(m, 'use_tls', '-'))"
    )
    production = {"DEBUG": "False", "SECRET_KEY": "k" * 50, "ALLOWED_HOSTS": "cards.example.org"}

    def mailer(**env: str) -> list[str]:
        done = run_manage("shell", "--no-imports", "-c", code, **env)
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    assert mailer(EMAIL_HOST="") == ["django.core.mail.backends.console", "-", "-", "-"]
    local = ["django.core.mail.backends.smtp", "localhost", "25", "False"]
    assert mailer(EMAIL_HOST="", **production) == local
    named = ["django.core.mail.backends.smtp", "smtp.example.org", "587", "True"]
    assert mailer(EMAIL_HOST="smtp.example.org") == named
    plain = ["django.core.mail.backends.smtp", "mx.example.org", "25", "False"]
    assert mailer(EMAIL_HOST="mx.example.org", EMAIL_USE_TLS="false", **production) == plain
