"""Sentences as JSON-native data, so that a reloaded state still says its message in words.

Pure (no Django): the rules modules dump a state's `message` with its template and parameters
beside its English, and load it back as the same `games.engine.Sentence`.
"""

from __future__ import annotations

from typing import Any

from games.engine import Sentence, ngettext, term


def to_data(said: Any) -> dict[str, Any] | None:
    """A Sentence as JSON-native data (its parameters too, a Sentence among them); else None."""
    if not isinstance(said, Sentence):
        return None
    params = {
        k: {"sentence": to_data(v)} if isinstance(v, Sentence) else v
        for k, v in said.params.items()
    }
    return {
        "template": said.template,
        "params": params,
        "plural": said.plural,
        "amount": said.amount,
    } | ({"context": said.context} if said.context else {})


def from_data(data: Any) -> Sentence | None:
    """The Sentence `to_data` wrote (None for none)."""
    if not isinstance(data, dict):
        return None
    params = {
        k: from_data(v["sentence"]) if isinstance(v, dict) and "sentence" in v else v
        for k, v in data["params"].items()
    }
    if data.get("plural") is not None:
        return ngettext(data["template"], data["plural"], data["amount"], **params)
    if data.get("context"):
        return term(data["context"], data["template"])
    return Sentence(data["template"], **params)


def replaced(said: Sentence, swap: Any) -> Sentence:
    """`said` with each parameter Sentence for which `swap(p)` is not None replaced by that
    (a seat's words by the player's name), looked for at every depth."""
    if said.context:
        return said  # a word (`term`): nothing inside to replace
    params = dict(said.params)
    for key, value in said.params.items():
        if isinstance(value, Sentence):
            instead = swap(value)
            params[key] = replaced(value, swap) if instead is None else instead
    if said.plural is not None:
        return ngettext(said.template, said.plural, said.amount, **params)
    return Sentence(said.template, **params)


def message_of(data: dict[str, Any], english: str | None) -> Sentence | str | None:
    """A dumped state's message: its Sentence (`message_words`) if that still says `english`,
    else the English alone (an older snapshot, or one whose message was rewritten by hand)."""
    said = from_data(data.get("message_words"))
    return said if said is not None and said == english else english
