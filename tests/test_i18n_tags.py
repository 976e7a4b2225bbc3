"""`{% load i18n_kept %}` is cardgames.i18n_tags: Django's tags, with what they render kept.

Each snippet is rendered by Django's own library and by ours, in every language, again and
again (the second time from what was kept), with the values changing between renders; the
outputs must be the same text and the same kind (safe or not).
"""

from __future__ import annotations

import datetime
import re
from decimal import Decimal
from pathlib import Path

import pytest
from django.template import Context, Engine, TemplateSyntaxError
from django.template.loader import get_template
from django.utils import formats, translation
from django.utils.safestring import SafeString, mark_safe
from hypothesis import given, settings
from hypothesis import strategies as st

from cardgames import i18n_tags

L10N = "django.templatetags.l10n"
OURS = Engine(libraries={"i18n": "cardgames.i18n_tags", "l10n": L10N})
DJANGOS = Engine(libraries={"i18n": "django.templatetags.i18n", "l10n": L10N})
LANGUAGES = ("en", "de", "ru", "ko", None)  # None: translation deactivated

SNIPPETS = [
    '{% translate "space" %}',
    '{% translate "wins." context "one winner" %}',
    '{% translate "space" noop %}',
    '{% translate "space" as word %}[{{ word }}]',
    "{% translate label %}",  # a variable: rendered every time
    '{% translate "space"|upper %}',  # a filter: rendered every time
    "{% blocktranslate %}Waste: {{ colour }} {{ value }}, key W{% endblocktranslate %}",
    "{% blocktranslate with colour=name value=n %}Waste: {{ colour }} {{ value }}, key W"
    "{% endblocktranslate %}",
    "{% blocktranslate count cards=n %}{{ cards }} in hand{% plural %}{{ cards }} in hand"
    "{% endblocktranslate %}",
    "{% blocktranslate count cards=n asvar said %}{{ cards }} in hand{% plural %}{{ cards }} in"
    " hand{% endblocktranslate %}<{{ said }}>",
    "{% blocktranslate trimmed with round=n %}\n  Round {{ round }}\n  is over.\n"
    "{% endblocktranslate %}",
    "{% blocktrans %}Hello {{ missing }}{% endblocktrans %}",  # a name the context lacks
    "{% localize off %}{% blocktranslate with round=n %}Round {{ round }}: play!"
    "{% endblocktranslate %}{% endlocalize %}",
    "{% autoescape off %}{% blocktranslate with colour=name value=n %}Waste: {{ colour }}"
    " {{ value }}, key W{% endblocktranslate %}{% endautoescape %}",
]

VALUES = [
    {"name": "red", "n": 7, "colour": "red", "value": 7, "label": "space"},
    {"name": "<b>x</b>", "n": 1, "colour": mark_safe("<i>y</i>"), "value": "8", "label": "Hand"},
    {"name": mark_safe("<b>x</b>"), "n": 2, "colour": None, "value": True, "label": "Waste"},
    {"name": "Grün & Co", "n": 1234567, "colour": "x", "value": 1, "label": "space"},
    {"name": Decimal("1.50"), "n": 5, "colour": 1.0, "value": [1, 2], "label": "space"},
    {"name": Decimal("1.5"), "n": 21, "colour": 1.00, "value": (1,), "label": "space"},
]


LOAD = "{% load i18n l10n %}"
# Compiled once: what a node keeps carries over from one example to the next.
COMPILED = {s: (OURS.from_string(LOAD + s), DJANGOS.from_string(LOAD + s)) for s in SNIPPETS}


def _both(snippet: str, values: dict, language: str | None) -> tuple[str, str]:
    ours, djangos = COMPILED[snippet]
    with translation.override(language):
        return ours.render(Context(values)), djangos.render(Context(values))


@pytest.mark.parametrize("snippet", SNIPPETS)
def test_every_snippet_renders_as_djangos_in_every_language_every_time(snippet):
    ours, djangos = COMPILED[snippet]
    for _ in range(2):  # the second round from what the first one kept
        for language in LANGUAGES:
            for values in VALUES:
                with translation.override(language):
                    mine, theirs = ours.render(Context(values)), djangos.render(Context(values))
                assert mine == theirs, (language, values)
                assert isinstance(mine, SafeString) == isinstance(theirs, SafeString)


def test_a_kept_sentence_is_worded_in_the_language_active_at_each_render():
    template = OURS.from_string(LOAD + SNIPPETS[8])
    with translation.override("de"):
        german = template.render(Context({"n": 3}))
    with translation.override("en"):
        english = template.render(Context({"n": 3}))
    assert english == "3 in hand" and german != english


def test_what_django_refuses_ours_refuses_the_same_way():
    snippet = SNIPPETS[8]
    for engine in (OURS, DJANGOS):
        with pytest.raises(TemplateSyntaxError, match="must be a number"):
            engine.from_string(LOAD + snippet).render(Context({"n": "three"}))


def test_a_node_keeps_at_most_keep_outputs(monkeypatch):
    monkeypatch.setattr(i18n_tags, "KEEP", 4)
    template = OURS.from_string(LOAD + SNIPPETS[8])
    for n in range(10):
        assert template.render(Context({"n": n})) == f"{n} in hand"
    (node,) = [n for n in template.nodelist if isinstance(n, i18n_tags.Kept)]
    assert 0 < len(node.kept) <= 4


def test_the_sites_templates_load_ours():
    template = get_template("games/ligretto/table.html")
    kept = template.template.nodelist.get_nodes_by_type(i18n_tags.Kept)
    assert kept  # translate and blocktranslate, everywhere on the table page
    root = Path(__file__).resolve().parents[1]
    pages = [*(root / "templates").rglob("*.html"), *(root / "tests").rglob("*.html")]
    djangos = [p for p in pages if re.search(r"{%\s*load\b[^%]*\bi18n\b", p.read_text())]
    assert not djangos  # each would draw its sentences anew every time


@settings(max_examples=200, deadline=None)
@given(
    name=st.one_of(st.text(max_size=12), st.integers(), st.booleans(), st.none()),
    n=st.integers(min_value=-3, max_value=10**7),
    safe=st.booleans(),
    language=st.sampled_from(LANGUAGES),
)
def test_any_plain_values_render_as_djangos(name, n, safe, language):
    if safe and isinstance(name, str):
        name = mark_safe(name)
    values = {"name": name, "n": n}
    for snippet in (SNIPPETS[7], SNIPPETS[8], SNIPPETS[12], SNIPPETS[13]):
        for _ in range(2):
            mine, theirs = _both(snippet, values, language)
            assert mine == theirs


@pytest.mark.parametrize("code", ["en", "de", "ru", "ko"])
def test_every_language_writes_a_24_hour_clock_like_the_deadlines_beside_it(code):
    """Issue 45 item 12: "3:12 PM" stood beside a deadline counting "09:17:40" on one page."""
    moment = datetime.datetime(2026, 12, 5, 15, 12)
    with translation.override(code):
        assert formats.date_format(moment, "TIME_FORMAT") == "15:12"
        assert "15:12" in formats.date_format(moment, "DATETIME_FORMAT")
