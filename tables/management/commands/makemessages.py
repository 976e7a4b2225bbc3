"""`makemessages` that also reads the engines' words: `games.engine.term(context, word)`.

The pure engines import no Django, so a game's words with a context (a card colour, a place's
verb: its layout's `TERMS`) are written as `term("card colour", "red")`; xgettext is told that
`term`'s first argument is the context and its second the word, as for `pgettext`.
"""

from __future__ import annotations

from django.core.management.commands import makemessages


class Command(makemessages.Command):
    xgettext_options = [*makemessages.Command.xgettext_options, "--keyword=term:1c,2"]
