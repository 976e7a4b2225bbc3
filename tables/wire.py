"""The one strict JSON decoder for everything that comes in (sockets, API stream, API bodies).

Python's `json` accepts what a careful server must not: `NaN` and `Infinity` (which then fail
the database's JSON check), nesting deep enough to raise RecursionError, and NUL characters
(which PostgreSQL refuses in text). `loads` refuses all of these, and anything larger than
`max_bytes`, with one `WireError(code, message)` that a transport turns into its usual refusal.
The checks are linear in the input, which is bounded before any of them runs.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from typing import Any

from games.engine import CLIENT_SEED

MAX_DEPTH = 8
# The largest frame or body a client of ours sends is a chat line or a room form: far below this.
MAX_BYTES = 16 * 1024


class WireError(ValueError):
    """Input that is not the strict JSON we accept: a code and a sentence for the client."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _no_constant(name: str) -> Any:
    raise WireError("bad_json", f"{name} is not a number this server accepts.")


_DECODER = json.JSONDecoder(parse_constant=_no_constant)


def loads(data: str | bytes | None, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH) -> Any:
    """Decode `data` strictly, or raise WireError: too large, not JSON, too deep, or with a NUL."""
    if data is None:
        raise WireError("bad_json", "The message was empty.")
    if len(data) > max_bytes:  # bytes or characters: a character is at least one byte
        raise WireError("too_large", f"The message is larger than {max_bytes} bytes.")
    if isinstance(data, bytes | bytearray):
        try:
            data = bytes(data).decode("utf-8")
        except UnicodeDecodeError:
            raise WireError("bad_json", "The message is not UTF-8 text.") from None
    elif len(data.encode("utf-8", "surrogatepass")) > max_bytes:
        raise WireError("too_large", f"The message is larger than {max_bytes} bytes.")
    _check_depth(data, max_depth)  # before decoding: deep input would recurse in the decoder
    try:
        value = _DECODER.decode(data)
    except WireError:
        raise
    except (ValueError, RecursionError):
        raise WireError("bad_json", "The message is not valid JSON.") from None
    _check_text(value)
    return value


def _check_depth(text: str, max_depth: int) -> None:
    depth, in_string, escaped = 0, False, False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > max_depth:
                raise WireError("bad_json", f"The message nests deeper than {max_depth} levels.")
        elif ch in "]}":
            depth -= 1


def _check_text(value: Any) -> None:
    # Depth is bounded, so this recursion is too.
    if isinstance(value, str):
        if "\x00" in value:
            raise WireError("bad_json", "The message contains a NUL character.")
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_text(key)
            _check_text(item)
    elif isinstance(value, list):
        for item in value:
            _check_text(item)


def ascii_int(value: Any, lo: int, hi: int) -> int | None:
    """Return `value` as an int in [lo, hi] if it is one or ASCII digits (an optional minus)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if lo <= value <= hi else None
    if isinstance(value, str) and 0 < len(value) <= 7:
        digits = value.removeprefix("-")
        if digits and digits.isascii() and digits.isdigit():
            number = int(value)
            return number if lo <= number <= hi else None
    return None


# --------------------------------------------------------------------------- schemas
#
# A schema is a dict of field name -> check. A check takes the decoded value and returns the
# clean one, or raises `Bad` with a sentence about that field. `record` applies a schema to a
# decoded object: fields it does not name are dropped (the rules and the log never see them),
# so a transport hands on only values whose types and ranges were checked here.

Check = Callable[[Any], Any]


class Bad(ValueError):
    """A field's value is not what its check accepts; the sentence says what is."""


def integer(lo: int, hi: int) -> Check:
    """An int in [lo, hi]; ASCII digits too, since form fields arrive as strings."""

    def check(value: Any) -> int:
        number = ascii_int(value, lo, hi)
        if number is None:
            raise Bad(f"must be a whole number from {lo} to {hi}")
        return number

    return check


def text(max_len: int, ascii_word: bool = False) -> Check:
    """A string of at most `max_len` characters (no NUL: `loads` refused those already)."""

    def check(value: Any) -> str:
        if not isinstance(value, str) or len(value) > max_len:
            raise Bad(f"must be text of at most {max_len} characters")
        if ascii_word and not _is_word(value):
            raise Bad("must be a word of lower-case ASCII letters")
        return value

    return check


def client_seed(value: Any) -> str:
    """A client seed (docs/fairness.md): 1 to 64 ASCII letters, digits, "-" or "_"."""
    # Empty: the browser's field left blank (no seed; the rules take none).
    if not isinstance(value, str) or not (value == "" or CLIENT_SEED.fullmatch(value)):
        raise Bad("must be 1 to 64 letters, digits, - or _")
    return value


def _is_word(value: str) -> bool:
    return value.isascii() and value.replace("_", "a").isalpha() and value.islower()


def record_of(fields: dict[str, Check], required: tuple[str, ...] = ()) -> Check:
    """An object checked field by field (a JSON string of one too: a radio button's value)."""

    def check(value: Any) -> dict[str, Any]:
        if isinstance(value, str) and value.startswith("{"):
            try:
                value = loads(value, max_bytes=200, max_depth=2)
            except WireError:
                raise Bad("must be an object") from None
        if not isinstance(value, dict):
            raise Bad("must be an object")
        missing = [name for name in required if name not in value]
        if missing:
            raise Bad(f'needs "{missing[0]}"')
        clean = {}
        for name, item in value.items():
            if name in fields:
                try:
                    clean[name] = fields[name](item)
                except Bad as bad:
                    raise Bad(f'"{name}" {bad}') from None
        return clean

    return check


def either(*checks: Check, sentence: str) -> Check:
    """The first of `checks` that accepts the value."""

    def check(value: Any) -> Any:
        for one in checks:
            try:
                return one(value)
            except Bad:
                continue
        raise Bad(sentence)

    return check


def record(value: Any, fields: dict[str, Check], code: str = "bad_frame") -> dict[str, Any]:
    """Return the fields of object `value` that `fields` names, checked; or raise WireError."""
    if not isinstance(value, dict):
        raise WireError(code, "The message must be a JSON object.")
    clean = {}
    for name, item in value.items():
        check = fields.get(name)
        if check is None:
            continue
        try:
            clean[name] = check(item)
        except Bad as bad:
            raise WireError(code, f'"{_shown(name)}" {bad}.') from None
    return clean


def _shown(name: str) -> str:
    # A field name is the client's text: echo only a short, printable one.
    return name if name.isascii() and name.isprintable() and len(name) <= 20 else "field"


def same_secret(given: Any, secret: str) -> bool:
    """Compare a client's `given` text with `secret` in constant time; False if not text.

    `secrets.compare_digest` raises TypeError on non-ASCII str, so compare UTF-8 bytes.
    """
    if not isinstance(given, str) or len(given) > 200:
        return False
    return secrets.compare_digest(given.encode("utf-8", "surrogatepass"), secret.encode("utf-8"))


# What a move may carry (both games; api.md), checked before any rule sees it.
PLACE = record_of(
    {"seat": integer(0, 99), "row": integer(0, 99), "col": integer(0, 99)},
    required=("seat", "row", "col"),
)
ACTION: dict[str, Check] = {
    "type": text(20, ascii_word=True),
    "from": either(PLACE, text(20, ascii_word=True), sentence="must be a pile's name or a place"),
    "to": either(
        integer(0, 99),
        PLACE,
        text(20, ascii_word=True),
        sentence="must be a seat, a place or a pile's name",
    ),
    "index": integer(0, 9999),
    "pile": integer(0, 9999),
    "source": text(20, ascii_word=True),
    "place": PLACE,
    # A client seed (docs/fairness.md), with "ready": letters, digits, - and _.
    "seed": client_seed,
}


def action(value: Any, code: str = "bad_frame") -> dict[str, Any]:
    """Return the checked move in `value` (its known fields only); it must name a `type`."""
    clean = record(value, ACTION, code)
    if "type" not in clean:
        raise WireError(code, 'An action is an object with a "type".')
    return clean
