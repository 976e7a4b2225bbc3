"""What a username may be: letters, digits, `_` and `-`, in one script, nothing invisible.

One function, `validate_username`, for every way in (the signup form today, the API later).
Look-alikes across scripts are caught with confusable_homoglyphs (the library django-registration
uses): a name mixing scripts where one of its characters has a homoglyph elsewhere is refused.
"""

from __future__ import annotations

import unicodedata

from confusable_homoglyphs import confusables
from django.core.exceptions import ValidationError

# Letters of the Hangul block that render as nothing: Unicode lists them as default-ignorable,
# but their category is Lo, so a "letters only" rule alone lets `ㅤ` through as a blank name.
INVISIBLE_LETTERS = frozenset("\u115f\u1160\u3164\uffa0")

# Guests (lobby/guests.py) are named guest-<8 hex digits>; sign-ups may not look like one.
GUEST_PREFIX = "guest-"


def validate_username(name: str) -> None:
    """Raise ValidationError unless `name` (already NFKC-normalised) is a fair username.

    The length (at most 150) is the user model's to check.
    """
    if not name:
        raise ValidationError("Choose a username.", code="invalid_username")
    for char in name:
        if char in INVISIBLE_LETTERS:
            raise ValidationError(
                "A username cannot contain invisible characters.", code="invalid_username"
            )
        if not _allowed(char):
            raise ValidationError(
                "A username may contain only letters, digits, _ and -.",
                code="invalid_username",
            )
    if not any(unicodedata.category(char)[0] in "LN" for char in name):
        raise ValidationError("A username needs a letter or a digit.", code="invalid_username")
    if confusables.is_dangerous(name):
        raise ValidationError(
            "A username cannot mix letters of different alphabets that look alike "
            "(for example a Cyrillic а among Latin letters).",
            code="invalid_username",
        )


def _allowed(char: str) -> bool:
    # Letters of any alphabet (L*) and decimal digits (Nd); marks, spaces, format and
    # control characters are out, which also refuses zero-width joiners and the like.
    category = unicodedata.category(char)
    return category.startswith("L") or category == "Nd" or char in "_-"
