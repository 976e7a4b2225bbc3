"""Django's i18n template library, with what `translate` and `blocktranslate` render kept.

The site's templates `{% load i18n_kept %}` (settings.TEMPLATES maps the label here; the label
`i18n` itself stays Django's, as its system check asks): every tag and filter of
`django.templatetags.i18n`, where `translate` and `blocktranslate` are compiled by
Django's own functions and each node is wrapped (`Kept`), so that its output is kept per
language and per the values it reads. A live table's push draws the same sentences again and
again ("Waste: red 7, key W"), and Django's nodes look up the catalogue and resolve, format and
escape every value each time: at 40 tables x 4 players, a fifth of the server loop's samples
(docs/performance.md). `makemessages` reads the templates' text, so it sees the same tags.

Only plain values are keys (text, whole numbers, booleans, None, each with its type: a safe
string is escaped differently from the same text unmarked); a node that reads anything else
renders as Django's does, every time. Floats and decimals are not kept: equal ones can print
differently (Decimal("1.0") and Decimal("1.00"), 0.0 and -0.0).
"""

from __future__ import annotations

from typing import Any

from django import template
from django.template.base import FilterExpression, Variable
from django.templatetags import i18n as django_i18n
from django.utils import translation
from django.utils.safestring import SafeString

register = template.Library()
register.tags.update(django_i18n.register.tags)
register.filters.update(django_i18n.register.filters)

PLAIN = frozenset({str, SafeString, int, bool, type(None)})
KEEP = 512  # outputs a node keeps; past that it starts afresh (values are few in practice)
_ABSENT = object()  # a name the context does not have


class Kept(template.Node):
    """A `translate` or `blocktranslate` node whose output is kept by what it depends on."""

    child_nodelists = ()

    def __init__(self, node: Any) -> None:
        self.node = node  # Django's TranslateNode or BlockTranslateNode
        self.asvar = node.asvar
        self.kept: dict[tuple[Any, ...], str] = {}
        if isinstance(node, django_i18n.BlockTranslateNode):
            names = node.render_token_list(node.singular)[1]
            if node.plural and node.countervar and node.counter:
                names += node.render_token_list(node.plural)[1]
            self.names: tuple[str, ...] | None = tuple(dict.fromkeys(names))
        else:
            expression = node.filter_expression
            constant = isinstance(expression.var, Variable) and expression.var.literal is not None
            # `{% translate some_variable %}` or with filters: rendered every time.
            self.names = () if constant and not expression.filters else None

    def render(self, context: template.Context) -> str:
        key = self._key(context)
        if key is None:
            return self.node.render(context)
        output = self.kept.get(key)
        if output is None:
            output = self.node.render(context)
            if self.asvar:
                output = context[self.asvar]
            if len(self.kept) >= KEEP:
                self.kept.clear()
            self.kept[key] = output
        if self.asvar:
            context[self.asvar] = output
            return ""
        return output

    def _key(self, context: template.Context) -> tuple[Any, ...] | None:
        if self.names is None:
            return None
        node = self.node
        message_context = _resolved(node.message_context, context)
        if type(message_context) not in PLAIN:
            return None
        situation = (
            translation.get_language(),
            context.autoescape,
            context.use_l10n,
            context.use_tz,
            message_context,
        )
        if not self.names and not isinstance(node, django_i18n.BlockTranslateNode):
            return situation
        given = {name: e.resolve(context) for name, e in node.extra_context.items()}
        count = None
        if node.plural and node.countervar and node.counter:
            count = node.counter.resolve(context)
            if type(count) is not int:
                return None  # Django's own rendering says what is wrong with it
            given[node.countervar] = count
        values: list[Any] = [count]
        for name in self.names:
            value = given[name] if name in given else context.get(name, _ABSENT)
            if value is _ABSENT:
                values.append(_ABSENT)
                continue
            kind = type(value)
            if kind not in PLAIN:
                return None
            values.append((kind, value))
        return (*situation, *values)


def _resolved(expression: FilterExpression | None, context: template.Context) -> Any:
    return expression.resolve(context) if expression is not None else None


def _kept(compile_node: Any) -> Any:
    def compile_kept(parser: template.base.Parser, token: template.base.Token) -> Kept:
        return Kept(compile_node(parser, token))

    return compile_kept


for _name in ("translate", "trans"):
    register.tag(_name, _kept(django_i18n.do_translate))
for _name in ("blocktranslate", "blocktrans"):
    register.tag(_name, _kept(django_i18n.do_block_translate))
