"""What Schemathesis is told beside the document (tests/api/test_schemathesis.py loads this).

A sign-up's password must not be like its username: the site's similarity check of the two
fields (Django's UserAttributeSimilarityValidator), the one rule of the sign-up that no JSON
Schema can state (the schema says it in words). Generated sign-ups that break it are not sent
as valid ones; every other rule is the document's own, so ST202 stays on for sign-up.
"""

from __future__ import annotations

from typing import Any

import django
import schemathesis
from django.conf import settings

if not settings.configured:
    settings.configure(
        INSTALLED_APPS=["django.contrib.auth", "django.contrib.contenttypes"], USE_I18N=False
    )
    django.setup()

from django.contrib.auth.models import User  # noqa: E402 - Django is set up just above
from django.contrib.auth.password_validation import (  # noqa: E402
    UserAttributeSimilarityValidator,
)
from django.core.exceptions import ValidationError  # noqa: E402

SIGNUP = "/api/v1/signup"


def like_the_name(username: str, password: str) -> bool:
    """Whether the site's sign-up refuses `password` as too like `username`."""
    try:
        UserAttributeSimilarityValidator().validate(password, User(username=username))
    except ValidationError:
        return True
    return False


@schemathesis.hook
def filter_body(context: Any, body: Any) -> bool:
    operation = context.operation
    if operation is None or operation.path != SIGNUP or not isinstance(body, dict):
        return True
    username, password = body.get("username"), body.get("password")
    if not isinstance(username, str) or not isinstance(password, str):
        return True  # not a well-formed sign-up: nothing to say
    return not like_the_name(username, password)
