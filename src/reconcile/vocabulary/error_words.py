"""A refused batch's error in the words a person sees on the page (issue 32): the editor labels each field with its
catalogue label («Текст комментария»), so its errors name parameters by those labels too — «нет «Текст
комментария»», not «нет body» — while the API keeps the seed's message with the parameter ids.

The labels come from the catalogue (:data:`reconcile.vocabulary.catalogue.CATALOGUE`), never from a second table: every
whole word of the message that is a parameter of the command's type becomes its label in «quotes». What the message
quotes itself («…»: a value the person typed) is left as it is, and so is any word that is no parameter of the type.
"""

from __future__ import annotations

import re

from reconcile.vocabulary.catalogue import CATALOGUE

__all__ = ["in_labels"]

#: A quoted value («…», left alone) or a word that may be a parameter's id.
_TOKEN = re.compile(r"«[^«»]*»|(?<![\w./-])[a-z][a-z0-9_]*(?![\w/-])")


def in_labels(message: str, command_type: str) -> str:
    """``message`` with each parameter id of ``command_type`` as its label: «нет body; ожидаются key, marker, body»
    → «нет «Текст комментария»; ожидаются «Задача», «Метка комментария», «Текст комментария»»."""
    spec = CATALOGUE.get(command_type)
    if spec is None:
        return message
    labels = {param.name: param.label for param in (*spec.params, *spec.hub_params)}

    def named(found: re.Match[str]) -> str:
        word = found.group(0)
        label = labels.get(word)
        return f"«{label}»" if label is not None else word

    return _TOKEN.sub(named, message)
