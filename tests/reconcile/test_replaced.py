"""What a write replaced, read back from its result (DESIGN.md 6.4): every shape the executors write reads back as
itself, and a result that is not one of them says only what it can (never a guess, never an exception)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconcile.jira.replaced import (
    AttachmentRef,
    AttachmentUndo,
    CommentRef,
    CommentUndo,
    Conflict,
    FieldChange,
    FieldsUndo,
    IssueUndo,
    LinkUndo,
    SprintName,
    SprintUndo,
    StatusUndo,
    Undo,
    conflicts_of_result,
    link_from_json,
    link_to_json,
    undo_of_result,
)
from reconcile.vocabulary.catalogue import CommandType
from reconcile.vocabulary.records import MirrorLink

_text = st.text(max_size=6)
_texts = st.lists(_text, max_size=3).map(tuple)
_links = st.builds(MirrorLink, id=st.text("0123456789", min_size=1, max_size=4), type=_text, source=_text, target=_text)
_sprints = st.builds(SprintName, id=st.integers(0, 10**6), name=_text)
_attachments = st.builds(AttachmentRef, id=_text, sha256=_text, filename=_text)

#: Each type's undo in the shapes its executor writes.
_UNDOS: dict[str, st.SearchStrategy[Any]] = {
    CommandType.ENSURE_FIELDS: st.builds(
        FieldsUndo,
        changed=st.dictionaries(_text, st.builds(FieldChange, before=st.none() | _text, after=st.none() | _text)),
        added=_texts,
        removed=_texts,
    ),
    CommandType.ENSURE_STATUS: st.builds(StatusUndo, before=_text, after=_text, path=_texts.filter(bool)),
    CommandType.ENSURE_SPRINT: st.builds(SprintUndo, before=st.none() | _sprints, after=st.none() | _sprints).filter(
        lambda u: u.before != u.after
    ),
    CommandType.ENSURE_LINK: st.builds(
        LinkUndo, created=st.none() | _links, removed=st.lists(_links, max_size=2).map(tuple)
    ),
    CommandType.ENSURE_COMMENT: st.one_of(
        st.builds(CommentUndo, created=_text),
        st.builds(CommentUndo, updated=_text, previous_body=st.none() | _text),
        st.builds(CommentUndo, deleted=st.lists(st.builds(CommentRef, id=_text, body=_text), max_size=2).map(tuple)),
    ),
    CommandType.ENSURE_ATTACHMENT: st.one_of(
        st.builds(AttachmentUndo, added=_attachments),
        st.builds(AttachmentUndo, deleted=st.lists(_attachments, max_size=2).map(tuple)),
    ),
    CommandType.ENSURE_ISSUE: st.builds(IssueUndo, key=_text, created=st.booleans()),
}


@given(st.sampled_from(sorted(_UNDOS)).flatmap(lambda t: st.tuples(st.just(t), _UNDOS[t])))
def test_every_undo_reads_back_as_itself(typed: tuple[str, Undo]) -> None:
    command_type, undo = typed
    assert undo_of_result(command_type, {"undo": undo.to_json(), "changed": []}) == undo


@pytest.mark.parametrize(
    ("command_type", "result"),
    [
        (CommandType.ENSURE_FIELDS, None),
        (CommandType.ENSURE_FIELDS, ["undo"]),
        (CommandType.ENSURE_FIELDS, {"changed": ["duedate"]}),  # reported before undo existed
        (CommandType.ENSURE_FIELDS, {"undo": ["changed"]}),
        (CommandType.REFRESH, {"undo": {}}),  # a refresh writes nothing
        (CommandType.ENSURE_ISSUE, {"undo": {"created": 7}}),
        (CommandType.ENSURE_ISSUE, {"undo": {}}),
    ],
)
def test_a_result_that_does_not_say_what_it_replaced_reads_as_none(command_type: str, result: Any) -> None:
    assert undo_of_result(command_type, result) is None


@pytest.mark.parametrize(
    ("command_type", "undo", "read"),
    [
        (CommandType.ENSURE_FIELDS, {}, FieldsUndo()),
        (
            CommandType.ENSURE_FIELDS,
            {"changed": {"duedate": {"from": 5, "to": "2026-10-01"}, "x": "y"}, "labels": {"added": ["a", 1]}},
            FieldsUndo(changed={"duedate": FieldChange(before=None, after="2026-10-01")}, added=("a",)),
        ),
        (CommandType.ENSURE_FIELDS, {"changed": [], "labels": "a"}, FieldsUndo()),
        (CommandType.ENSURE_STATUS, {}, StatusUndo(before="", after="", path=())),
        (
            CommandType.ENSURE_STATUS,
            {"from": None, "to": "Готово", "path": ["Ревью", 3, "Готово"]},
            StatusUndo(before="", after="Готово", path=("Ревью", "Готово")),
        ),
        (CommandType.ENSURE_SPRINT, {}, SprintUndo(before=None, after=None)),
        (
            CommandType.ENSURE_SPRINT,
            {"from": {"id": "1", "name": "С1"}, "to": {"id": 2, "name": "С2"}},
            SprintUndo(before=None, after=SprintName(id=2, name="С2")),
        ),
        (CommandType.ENSURE_SPRINT, {"from": {"id": 1}, "to": {"name": "С2"}}, SprintUndo(before=None, after=None)),
        (
            CommandType.ENSURE_LINK,
            {"replaced": {"old": {"id": 5, "type": "Связанные", "source": "A-1", "target": "A-2"}, "new": None}},
            LinkUndo(removed=(MirrorLink(id="5", type="Связанные", source="A-1", target="A-2"),)),
        ),
        (
            CommandType.ENSURE_LINK,
            {"created": {"type": "Связанные", "source": "A-1", "target": "A-2"}, "removed": [{"type": "x"}, 3]},
            LinkUndo(created=MirrorLink(id="", type="Связанные", source="A-1", target="A-2")),
        ),
        (CommandType.ENSURE_LINK, {"replaced": [], "removed": "x"}, LinkUndo()),
        (CommandType.ENSURE_COMMENT, {"created": 10001}, CommentUndo(created="10001")),
        (
            CommandType.ENSURE_COMMENT,
            {"updated": 10002, "previous_body": 5},
            CommentUndo(updated="10002", previous_body=None),
        ),
        (
            CommandType.ENSURE_COMMENT,
            {"deleted": [{"id": 1, "body": "б"}, {"id": 2, "body": None}, "x"]},
            CommentUndo(deleted=(CommentRef(id="1", body="б"),)),
        ),
        (CommandType.ENSURE_COMMENT, {"deleted": "x"}, CommentUndo()),
        (
            CommandType.ENSURE_ATTACHMENT,
            {"added": {"id": 3, "sha256": "ab"}, "deleted": [{"id": 4}, {"sha256": "cd", "filename": "f.txt"}]},
            AttachmentUndo(
                added=AttachmentRef(id="3", sha256="ab", filename=""),
                deleted=(AttachmentRef(id="None", sha256="cd", filename="f.txt"),),
            ),
        ),
        (CommandType.ENSURE_ATTACHMENT, {"added": "ab", "deleted": {}}, AttachmentUndo()),
        (CommandType.ENSURE_ISSUE, {"found": "A-1"}, IssueUndo(key="A-1", created=False)),
        (CommandType.ENSURE_ISSUE, {"created": "A-2", "found": "A-1"}, IssueUndo(key="A-2", created=True)),
    ],
)
def test_a_malformed_undo_keeps_only_what_it_says(command_type: str, undo: Any, read: Undo) -> None:
    """A value of the wrong kind is left out (a text not a text is unknown); ids are read as text."""
    assert undo_of_result(command_type, {"undo": undo}) == read


def test_empty_writes_render_as_an_empty_undo() -> None:
    """``undo: {}`` is a write of nothing, whatever the type."""
    same = SprintName(id=1, name="С1")
    for undo in (
        FieldsUndo(),
        StatusUndo(before="a", after="a", path=()),
        SprintUndo(before=same, after=same),
        SprintUndo(before=None, after=None),
        LinkUndo(),
        CommentUndo(),
        AttachmentUndo(),
    ):
        assert undo.to_json() == {}, undo


@pytest.mark.parametrize(
    ("undo", "changed", "labels"),
    [
        (
            FieldsUndo(changed={"summary": FieldChange(before="было", after="стало")}),
            {"summary": {"from": "было", "to": "стало"}},
            {"added": [], "removed": []},
        ),
        (FieldsUndo(added=("срочно",)), {}, {"added": ["срочно"], "removed": []}),
        (FieldsUndo(removed=("старое",)), {}, {"added": [], "removed": ["старое"]}),
    ],
)
def test_a_fields_write_of_one_kind_names_it(undo: FieldsUndo, changed: dict[str, Any], labels: dict[str, Any]) -> None:
    """A field changed, or only a label added, or only one removed, is a write: both parts are shown."""
    assert undo.to_json() == {"changed": changed, "labels": labels}


def test_the_shapes_written() -> None:
    """DESIGN 6.4's words: a replaced link names the old and the new one beside every link removed."""
    old = MirrorLink(id="1", type="Связанные", source="A-1", target="A-2")
    new = MirrorLink(id="2", type="Блокирует", source="A-1", target="A-2")
    assert link_to_json(old) == {"id": "1", "type": "Связанные", "source": "A-1", "target": "A-2"}
    assert LinkUndo(created=new, removed=(old,)).to_json() == {
        "replaced": {"old": link_to_json(old), "new": link_to_json(new)},
        "removed": [link_to_json(old)],
    }
    assert LinkUndo(created=new).to_json() == {"created": link_to_json(new)}
    assert SprintUndo(before=None, after=SprintName(id=2, name="С2")).to_json() == {
        "from": None,
        "to": {"id": 2, "name": "С2"},
    }
    assert StatusUndo(before="a", after="b", path=("b",)).to_json() == {"from": "a", "to": "b", "path": ["b"]}
    assert CommentUndo(updated="7", previous_body="было").to_json() == {"updated": "7", "previous_body": "было"}
    assert IssueUndo(key="A-1", created=False).to_json() == {"found": "A-1"}
    assert link_from_json({"id": None, "type": "t", "source": "s", "target": 5}) is None
    assert link_from_json("A-1") is None


def test_conflicts_of_a_result() -> None:
    """What an only-if-unchanged write left alone; anything else there is no conflict."""
    raw = [{"field": "duedate", "expected": "2026-10-01", "found": "2026-11-01"}, "x", {"field": 5}]
    assert conflicts_of_result({"conflicts": raw}) == (
        Conflict(field="duedate", expected="2026-10-01", found="2026-11-01"),
        Conflict(field="5", expected=None, found=None),
    )
    assert Conflict(field="a", expected=1, found=2).to_json() == {"field": "a", "expected": 1, "found": 2}
    for result in (None, {}, {"conflicts": "duedate"}, {"conflicts": {"field": "a"}}, ["conflicts"]):
        assert conflicts_of_result(result) == ()  # type: ignore[arg-type]
