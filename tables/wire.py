"""The one strict JSON decoder for everything that comes in (sockets, API stream, API bodies).

Python's `json` accepts what a careful server must not: `NaN` and `Infinity` (which then fail
the database's JSON check), nesting deep enough to raise RecursionError, and NUL characters
(which PostgreSQL refuses in text). `loads` refuses all of these, and anything larger than
`max_bytes`, with one `WireError(code, message)` that a transport turns into its usual refusal.
The checks are linear in the input, which is bounded before any of them runs.
"""

from __future__ import annotations

import json
from typing import Any

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
