"""A refused batch's errors and a conflict in the words a person reads on the page: parameters by their catalogue
labels, values as the page shows them."""

from __future__ import annotations

import pytest

from reconcile.vocabulary.catalogue import CATALOGUE
from reconcile.vocabulary.error_words import in_labels
from reconcile.vocabulary.wording import conflict_text


@pytest.mark.parametrize(
    ("message", "command_type", "shown"),
    [
        (
            "нет body; ожидаются key, marker, body",
            "ensure_comment",
            "нет «Текст комментария»; ожидаются «Задача», «Метка комментария», «Текст комментария»",
        ),
        ("значение «body» в body", "ensure_comment", "значение «body» в «Текст комментария»"),  # a quoted value stays
        ("нет summary", "ensure_issue", "нет «Тема»"),
        ("нет key", "ensure_issue", "нет key"),  # no parameter of that type
        ("refresh: changes", "refresh", "refresh: «Только изменения»"),  # the hub's own parameters too
        ("нет body; ожидаются key", "no_such_type", "нет body; ожидаются key"),
        (
            "нет настройки issue_types.key; key/marker-body key2 Key",
            "ensure_comment",
            "нет настройки issue_types.key; key/marker-body key2 Key",
        ),  # only whole words: not inside a path, a name or a longer word
    ],
)
def test_an_error_names_each_parameter_by_its_label(message: str, command_type: str, shown: str) -> None:
    assert in_labels(message, command_type) == shown


def test_every_parameter_reads_as_its_catalogue_label() -> None:
    for name, spec in CATALOGUE.items():
        for param in (*spec.params, *spec.hub_params):
            assert in_labels(f"нет {param.name}", name) == f"нет «{param.label}»"


@pytest.mark.parametrize(
    ("name", "expected", "found", "text"),
    [
        ("duedate", "2026-10-01", "2026-12-15", "срок не изменён: в Jira 15.12.2026, ожидалось 01.10.2026"),
        ("sprint", None, "Спринт 2", "спринт не изменён: в Jira «Спринт 2», ожидалось бэклог"),
        ("sprint", "Спринт 1", None, "спринт не изменён: в Jira бэклог, ожидалось «Спринт 1»"),
        ("status", None, "Готово", "статус не изменён: в Jira «Готово», ожидалось пусто"),
        ("status", "Готово", None, "статус не изменён: в Jira пусто, ожидалось «Готово»"),
    ],
)
def test_a_conflict_in_words(name: str, expected: object, found: object, text: str) -> None:
    """What Jira held and what the write expected; a sprint's none is the backlog, any other none is empty."""
    assert conflict_text(name, expected, found) == text
