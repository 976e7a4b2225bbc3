"""The live table's running-totals chart, drawn from the view alone (no query in a push)."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString, mark_safe

from tables.history import sheet_for_view

register = template.Library()


@register.simple_tag
def totals_chart(view: dict[str, Any]) -> SafeString:
    # tables.charts escapes every name and label it writes.
    return mark_safe(sheet_for_view(view))  # noqa: S308
