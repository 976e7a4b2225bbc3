"""How a card is drawn, for both games: one HTML shape for a face, a back and an empty place.

Pure (plain strings, no Django): the Ligretto card filter (tables/templatetags/words.py) and
Allegra's layout (which draws its places in Python: up to 90 cards in every render) both call
`draw`, so the two games' cards cannot drift apart. The CSS is static/css/table.css.
"""

from __future__ import annotations

from functools import lru_cache
from html import escape
from typing import Any

SYM = '<span class="sym" aria-hidden="true"></span>'


@lru_cache(maxsize=1024)
def face(classes: str, value: int | None = None, sym: bool = True) -> tuple[str, str]:
    """The opening and the rest of a card's span; `draw` puts the attributes between."""
    if value is None:
        return f'<span class="card {classes}"', "></span>"
    return (
        f'<span class="card {classes}"',
        f'><span class="v">{int(value)}</span>{SYM if sym else ""}</span>',
    )


def draw(classes: str, value: int | None = None, attrs: str = "", sym: bool = True) -> str:
    """A card: a face (`value` big, and the colour's or band's mark with `sym`), or, without a
    value, a back or an empty place; `classes` say which (`c-red`, `b2`, `back`, `gone`,
    `none`, `small`), `attrs` are further attributes, already escaped, with a leading space."""
    head, tail = face(classes, value, sym)
    # A card named for screen readers is an image of it: a name on a plain span is not
    # allowed (ARIA gives a generic element none) and readers may drop it.
    if "aria-label=" in attrs and "role=" not in attrs:
        attrs = ' role="img"' + attrs
    return head + attrs + tail


def colour_card(card: dict[str, Any] | None, small: bool = False) -> str:
    """A card of a colour (Ligretto's: `color`, `value`) face up, or an empty slot; `small`:
    as a seat's strip draws it. Ligretto's layout hands its parts these (`{{ drawn|safe }}`),
    and the `card` filter draws the same for other pages."""
    if not card:
        return colour_face(None, None, small)
    return colour_face(card["color"], card["value"], small)


@lru_cache(maxsize=256)
def colour_face(color: str | None, value: int | None, small: bool = False) -> str:
    """`colour_card` of a card of `color` and `value` (None: an empty slot), kept: a few dozen
    faces are drawn again and again, in every part and language that shows them."""
    size = " small" if small else ""
    if color is None:
        return draw(f"none{size}", None, ' aria-hidden="true"')
    return draw(f"c-{escape(color)}{size}", value)
