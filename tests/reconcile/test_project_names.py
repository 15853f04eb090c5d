"""Project names are Jira labels: no whitespace, no ``/``, no control character, at most 255 characters."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconcile.vocabulary.errors import ValidationError
from reconcile.vocabulary.project_names import PROJECT_NAME_MAX, check_project_name, project_name_problem

RULE = "метка Jira без пробелов, «/» и управляющих символов, не длиннее 255 символов"
_LABEL_CHARS = st.characters(blacklist_categories=("Cs", "Cc", "Zs", "Zl", "Zp"), blacklist_characters="/\x85")
LABELS = st.text(_LABEL_CHARS, min_size=1, max_size=PROJECT_NAME_MAX).filter(lambda s: not any(c.isspace() for c in s))
FORBIDDEN = st.sampled_from(
    [" ", "\t", "\n", "\u00a0", "\u2003", "\u3000", "/", "\x00", "\x01", "\x1f", "\x7f", "\x9f"]
)


@given(LABELS)
def test_a_label_jira_keeps_is_a_project_name(name: str) -> None:
    """Any text of 1–255 characters without whitespace, ``/`` or a control character is accepted."""
    assert project_name_problem(name) is None


@given(LABELS, FORBIDDEN, st.integers(min_value=0))
def test_one_forbidden_character_anywhere_refuses_the_name(name: str, bad: str, at: int) -> None:
    """A space of any script, ``/`` or a control character anywhere → «недопустимое имя проекта: …»."""
    at %= len(name) + 1
    problem = project_name_problem((name[:at] + bad + name[at:])[:PROJECT_NAME_MAX])
    assert problem is not None
    assert problem.startswith("недопустимое имя проекта: «")
    assert problem.endswith(RULE)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("AW PCA", f"недопустимое имя проекта: «AW PCA» — {RULE}"),
        ("AW/PCA", f"недопустимое имя проекта: «AW/PCA» — {RULE}"),
        ("AW\x01PCA", f"недопустимое имя проекта: «AW\\x01PCA» — {RULE}"),
        ("", f"недопустимое имя проекта: «» — {RULE}"),
        ("P" * 256, f"недопустимое имя проекта: «{'P' * 60}…» длиннее 255 символов"),
    ],
)
def test_the_refusal_names_the_project(name: str, message: str) -> None:
    """The message shows the name (control characters escaped, a long one cut) and the rule."""
    with pytest.raises(ValidationError) as refused:
        check_project_name(name)
    assert refused.value.message == message


def test_the_longest_label_and_jira_punctuation_are_names() -> None:
    """255 characters, Cyrillic, and the punctuation Jira keeps in labels (``"#?%,()``) are accepted."""
    for name in ("P" * 255, "Склад-2026", 'a"b', "x#y?z%", "a,b(c)", "STOCKS_DRRK"):
        check_project_name(name)


def test_a_refused_name_is_shown_up_to_sixty_characters() -> None:
    """Spaces and «/» shown as they are, control characters escaped; sixty characters whole, more cut with «…»."""
    exactly = "a b/" + "x" * 56
    assert project_name_problem(exactly) == (
        f"недопустимое имя проекта: «{exactly}» — метка Jira без пробелов, «/» и управляющих символов, "
        f"не длиннее {PROJECT_NAME_MAX} символов"
    )
    longer = project_name_problem("a\x01" + "x" * 60)
    assert longer is not None and longer.startswith("недопустимое имя проекта: «a\\x01" + "x" * 55 + "…» — ")
