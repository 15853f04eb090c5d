"""The audit's chain (DESIGN.md 6.6, reconcile.audit.chain): each record hashes its predecessor, verification names the
first record edited, removed or moved, a checkpoint anchors what retention left, and no secret is kept."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconcile.audit.chain import (
    GENESIS,
    AuditEntry,
    Checkpoint,
    Head,
    body_json,
    chained,
    parse_record,
    record_hash,
    retention_cutoff,
    verify,
)
from reconcile.audit.writes import jira_writes
from reconcile.jira.replaced import (
    AttachmentRef,
    AttachmentUndo,
    CommentRef,
    CommentUndo,
    FieldChange,
    FieldsUndo,
    LinkUndo,
    SprintName,
    SprintUndo,
    StatusUndo,
    link_to_json,
)
from reconcile.vocabulary.canonical import canonical_json, sha256_hex
from reconcile.vocabulary.records import MirrorLink
from tests.support import T0


def chain(length: int) -> list[dict[str, Any]]:
    """A chain of ``length`` records, as an export holds them."""
    records: list[dict[str, Any]] = []
    head: Head | None = None
    for n in range(length):
        entry = AuditEntry(kind="delivered", actor="agent:a", door="agent", batch_id=n % 3 or None, data={"n": n})
        record = chained(head, entry, now=T0 + timedelta(seconds=n))
        records.append(record.to_json())
        head = Head(seq=record.seq, hash=record.hash, at=T0 + timedelta(seconds=n))
    return records


def rehashed(record: dict[str, Any]) -> str:
    """The hash an editor who knows the rule computes for ``record``."""
    return record_hash(record["prev"], {k: v for k, v in record.items() if k not in ("prev", "hash")})


def test_a_record_hashes_prev_and_the_canonical_json_of_the_rest() -> None:
    """hash = sha256(prev ‖ canonical JSON of seq, at, kind, actor, door, batch_id, command_id, data); the first
    record's prev is 64 zeros."""
    [first, second] = chain(2)
    body = {
        "seq": 1,
        "at": "2026-10-22T09:00:00.000000Z",
        "kind": "delivered",
        "actor": "agent:a",
        "door": "agent",
        "batch_id": None,
        "command_id": None,
        "data": {"n": 0},
    }
    assert first["prev"] == GENESIS
    assert first["hash"] == sha256_hex(GENESIS + canonical_json(body)) == record_hash(GENESIS, body)
    assert (second["seq"], second["prev"]) == (2, first["hash"])


def test_time_never_goes_back_along_the_chain() -> None:
    """A process whose clock is behind the head's appends at the head's time: a time range is a range of seq."""
    head = Head(seq=5, hash="a" * 64, at=T0)
    record = chained(head, AuditEntry(kind="login", actor="x", door="web"), now=T0 - timedelta(seconds=3))
    assert (record.seq, record.at) == (6, "2026-10-22T09:00:00.000000Z")


def test_an_intact_chain_verifies_with_its_count_and_head() -> None:
    """Verification of an untouched chain: the count and the last hash."""
    records = chain(5)
    assert verify(records) == verify(iter(records))
    assert verify(records).count == 5
    assert verify(records).head == records[-1]["hash"]
    assert verify(records).broken is None


@given(st.integers(min_value=0, max_value=7), st.sampled_from(["data", "actor", "at", "kind"]))
def test_an_edited_record_is_named(index: int, column: str) -> None:
    """Any change of a column of record k: «запись seq k: хеш не сходится — запись изменена»."""
    records = chain(8)
    value = {"data": {"n": -1}, "actor": "someone", "at": "2020-01-01T00:00:00.000000Z", "kind": "login"}[column]
    records[index] = {**records[index], column: value}
    assert verify(records).broken == f"запись seq {index + 1}: хеш не сходится — запись изменена"


@given(st.integers(min_value=0, max_value=7))
def test_an_edited_record_with_its_hash_made_again_breaks_the_next_link(index: int) -> None:
    """An editor who also recomputes the record's hash is caught at the next record's prev (or, for the last
    record, by the head that no longer matches the hub's)."""
    records = chain(8)
    edited = {**records[index], "data": {"n": "forged"}}
    records[index] = {**edited, "hash": rehashed(edited)}
    verdict = verify(records)
    if index < 7:
        assert verdict.broken == f"запись seq {index + 2}: prev не равен хешу записи перед ней — цепочка разорвана"
    else:
        assert (verdict.broken, verdict.head) == (None, records[index]["hash"])


@given(st.integers(min_value=1, max_value=6))
def test_a_removed_record_is_named(index: int) -> None:
    """Record k removed from the middle: «запись seq k: не на своём месте …»."""
    records = chain(8)
    del records[index]
    assert verify(records).broken == (
        f"запись seq {index + 1}: не на своём месте — после seq {index} идёт seq {index + 2} "
        "(запись удалена или переставлена)"
    )


@given(st.integers(min_value=0, max_value=6))
def test_two_records_swapped_are_named(index: int) -> None:
    """Records k and k+1 swapped: the first out of place is named."""
    records = chain(8)
    records[index], records[index + 1] = records[index + 1], records[index]
    broken = verify(records).broken
    assert broken is not None
    assert broken.startswith(f"запись seq {index + 1}:")


def test_the_first_record_removed_is_caught_by_the_genesis_or_the_checkpoint() -> None:
    """A run that starts at seq 1 must start from 64 zeros; after retention, from the checkpoint."""
    records = chain(4)
    forged = {**records[0], "prev": "f" * 64}
    forged = {**forged, "hash": rehashed(forged)}
    assert verify([forged]).broken == "запись seq 1: prev не равен хешу записи перед ней — цепочка разорвана"
    checkpoint = Checkpoint(seq=1, hash=records[0]["hash"])
    assert verify(records[1:], checkpoint=checkpoint).broken is None
    assert verify(records[2:], checkpoint=checkpoint).broken == (
        "запись seq 2: не на своём месте — после seq 1 идёт seq 3 (запись удалена или переставлена)"
    )
    elsewhere = Checkpoint(seq=1, hash="e" * 64)
    assert verify(records[1:], checkpoint=elsewhere).broken == (
        "запись seq 2: prev не равен хешу записи перед ней — цепочка разорвана"
    )


@given(st.integers(min_value=0, max_value=6))
def test_a_record_repeated_is_named_by_its_own_seq(index: int) -> None:
    """Record k twice in a row: the second copy is the one out of its place, so seq k is named (not k + 1)."""
    records = chain(8)
    records.insert(index + 1, records[index])
    assert verify(records).broken == (
        f"запись seq {index + 1}: не на своём месте — после seq {index + 1} идёт seq {index + 1} "
        "(запись удалена или переставлена)"
    )


def test_a_csv_row_reads_as_the_record() -> None:
    """CSV keeps numbers as text and data as its canonical JSON: read back, the record verifies."""
    [record] = chain(1)
    row = {**record, "seq": "1", "batch_id": "", "command_id": "", "data": canonical_json(record["data"])}
    assert parse_record(row) == record
    assert verify([parse_record(row)]).broken is None


def test_no_secret_is_kept() -> None:
    """A value under a key naming a secret (secret, password, authorization, cookie, csrf) is never recorded."""
    entry = AuditEntry(
        kind="token_added",
        actor="cli:root",
        door="cli",
        data={"name": "bot", "secret": "s3cr3t", "nested": [{"Webhook_Secret": "w", "password": "p"}]},
    )
    assert entry.data == {"name": "bot", "secret": "***", "nested": [{"Webhook_Secret": "***", "password": "***"}]}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)


@given(
    st.text(),
    st.text(),
    st.none() | st.integers(min_value=1, max_value=2**40),
    st.none() | st.integers(min_value=1, max_value=2**40),
    st.dictionaries(st.text(max_size=8), json_values, max_size=4),
)
def test_the_fast_body_is_the_canonical_json(
    actor: str, kind: str, batch_id: int | None, command_id: int | None, data: dict[str, Any]
) -> None:
    """body_json, written out by hand for speed, is exactly the canonical JSON the hash is defined over."""
    record = {
        "seq": 7,
        "at": "2026-10-22T09:00:00.000000Z",
        "kind": kind,
        "actor": actor,
        "door": "http",
        "batch_id": batch_id,
        "command_id": command_id,
        "data": data,
    }
    assert body_json(record) == canonical_json(record)


def test_a_jira_write_names_the_issue_it_touched() -> None:
    """The key in the path (decoded), else the command's ``key`` or ``source``, else the key its result names; each
    operation one record with its method, path and status, in order."""
    operations = [
        {"method": "PUT", "path": "/rest/api/2/issue/AURORA%2D1537", "status": 204},
        {"method": "POST", "path": "/rest/api/2/issue/AURORA-1538/comment", "status": 201},
        {"method": "POST", "path": "/rest/api/2/issueLink", "status": 201},
    ]
    writes = jira_writes("ensure_comment", {"key": "AURORA-1", "source": "AURORA-2"}, operations, {})
    assert [(w["method"], w["path"], w["status"], w["key"]) for w in writes] == [
        ("PUT", "/rest/api/2/issue/AURORA%2D1537", 204, "AURORA-1537"),
        ("POST", "/rest/api/2/issue/AURORA-1538/comment", 201, "AURORA-1538"),
        ("POST", "/rest/api/2/issueLink", 201, "AURORA-1"),
    ]
    link = {"method": "POST", "path": "/rest/api/2/issueLink"}
    assert jira_writes("ensure_link", {"source": "AURORA-2", "key": 5}, [link], {})[0]["key"] == "AURORA-2"
    created = {"method": "POST", "path": "/rest/api/2/issue"}
    assert jira_writes("ensure_issue", {"temp_key": "new:1"}, [created], {"key": "AURORA-9"})[0]["key"] == "AURORA-9"
    assert jira_writes("ensure_issue", {}, [created], {"key": 9})[0] == {
        "method": "POST",
        "path": "/rest/api/2/issue",
        "status": None,
        "key": None,
        "before": None,
        "after": None,
    }
    assert jira_writes("ensure_issue", {}, [], {}) == []


def test_retention_keeps_the_days_it_is_told_and_names_the_checkpoint() -> None:
    assert retention_cutoff(T0, 30) == T0 - timedelta(days=30)
    assert retention_cutoff(T0, 0.5) == T0 - timedelta(hours=12)
    assert Checkpoint(seq=41, hash="ab" * 32).to_json() == {"seq": 41, "hash": "ab" * 32}


@given(
    st.integers(0, 5),
    st.sets(st.sampled_from(["seq", "batch_id", "command_id", "data"])),
    st.integers(1, 10**9),
)
def test_any_column_kept_as_text_reads_back_as_the_record(index: int, as_text: set[str], command_id: int) -> None:
    """A CSV export keeps numbers as text (an empty cell for none) and data as JSON text: any mix of them reads back
    as the record; a JSON line is taken exactly as it is, a column this version does not know included."""
    record = {**chain(6)[index], "command_id": command_id if index % 2 else None}
    row = dict(record)
    for column in as_text:
        value = record[column]
        row[column] = canonical_json(value) if column == "data" else ("" if value is None else str(value))
    assert parse_record(row) == record
    assert parse_record({**record, "later": 1}) == {**record, "later": 1}


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        ({"data": "[1]"}, "data — не объект"),
        ({"data": None}, "data — не объект"),
        ({"seq": ""}, "нет seq"),
        ({"seq": None}, "нет seq"),
        ({"seq": "x"}, "seq — не число"),
        ({"seq": True}, "seq — не число"),
        ({"seq": [1]}, "seq — не число"),
        ({"batch_id": "x"}, "batch_id — не число"),
        ({"command_id": "1.5"}, "command_id — не число"),
        ({"at": None}, "нет at"),
        ({"kind": 7}, "нет kind"),
        ({"actor": None}, "нет actor"),
        ({"door": None}, "нет door"),
        ({"prev": None}, "нет prev"),
        ({"hash": None}, "нет hash"),
    ],
)
def test_an_unreadable_record_says_what_is_wrong(changes: dict[str, Any], why: str) -> None:
    with pytest.raises(ValueError, match=f"^{why}$"):
        parse_record({**chain(2)[1], **changes})


@given(st.integers(min_value=0, max_value=7))
def test_a_broken_chain_counts_and_names_the_records_before_the_break(index: int) -> None:
    """The verdict at a break: the records that verified and the hash of the last of them (none before the first)."""
    records = chain(8)
    records[index] = {**records[index], "data": {"n": -1}}
    verdict = verify(records)
    assert verdict.count == index
    assert verdict.head == (records[index - 1]["hash"] if index else None)
    assert verify([]).count == 0 and verify([]).head is None


def test_a_record_carries_its_batch_and_command() -> None:
    entry = AuditEntry(kind="reported", actor="agent:a", door="agent", batch_id=7, command_id=70, data={})
    record = chained(None, entry, now=T0).to_json()
    assert (record["batch_id"], record["command_id"]) == (7, 70)
    assert record["hash"] == rehashed(record)


def _before_after(command_type: str, operations: list[tuple[str, str]], result: dict[str, Any]) -> list[Any]:
    writes = jira_writes(command_type, {}, [{"method": m, "path": p, "status": 204} for m, p in operations], result)
    return [(w["before"], w["after"]) for w in writes]


def test_a_writes_before_and_after_are_what_its_result_says_it_replaced() -> None:
    """The shapes the executors report under ``undo`` (built here by reconcile.jira.replaced, as they build them):
    each write of each type has the value it replaced and the one it set."""
    fields = FieldsUndo(changed={"summary": FieldChange(before="Сверка", after="Сверка v2")}, added=("x",))
    result = {"changed": ["summary", "labels_add"], "undo": fields.to_json()}
    assert _before_after("ensure_fields", [("PUT", "/rest/api/2/issue/A-1")], result) == [
        ({"summary": "Сверка"}, {"summary": "Сверка v2"})
    ]
    status = StatusUndo(before="Разработка", after="Готово", path=("Тестирование", "Готово"))
    two = [("POST", "/rest/api/2/issue/A-1/transitions")] * 2
    assert _before_after("ensure_status", two, {"undo": status.to_json()}) == [("Разработка", "Готово")] * 2
    sprint = SprintUndo(before=None, after=SprintName(id=7, name="Спринт 2"))
    assert _before_after("ensure_sprint", [("POST", "/rest/agile/1.0/sprint/7/issue")], {"undo": sprint.to_json()}) == [
        (None, {"id": 7, "name": "Спринт 2"})
    ]
    old, new = (MirrorLink(id=i, type="Blocks", source="A-1", target=t) for i, t in (("10", "A-2"), ("", "A-3")))
    link = LinkUndo(created=new, removed=(old,)).to_json()
    writes = [("DELETE", "/rest/api/2/issueLink/10"), ("POST", "/rest/api/2/issueLink")]
    assert _before_after("ensure_link", writes, {"undo": link}) == [
        (link_to_json(old), None),
        (None, link_to_json(new)),
    ]
    assert _before_after("ensure_link", [("DELETE", "/rest/api/2/issueLink/10")], {"undo": {"created": link}}) == [
        (None, None)
    ]
    created = LinkUndo(created=new).to_json()
    assert _before_after("ensure_link", [("POST", "/rest/api/2/issueLink")], {"undo": created}) == [
        (None, link_to_json(new))
    ]


def test_a_comment_and_an_attachment_name_what_each_write_replaced() -> None:
    """A comment created (its id after), updated (its text before), deleted (each DELETE the text of the comment
    its path names); an attachment added (after) or deleted (before, by the id in the path)."""
    comment = "/rest/api/2/issue/A-1/comment"
    made = {"undo": CommentUndo(created="301").to_json()}
    assert _before_after("ensure_comment", [("POST", comment)], made) == [(None, "301")]
    updated = {"undo": CommentUndo(updated="301", previous_body="было").to_json()}
    assert _before_after("ensure_comment", [("PUT", f"{comment}/301")], updated) == [("было", None)]
    gone = {"undo": CommentUndo(deleted=(CommentRef(id="5", body="пять"), CommentRef(id="6", body="шесть"))).to_json()}
    deletes = [("DELETE", f"{comment}/6"), ("DELETE", f"{comment}/5"), ("DELETE", f"{comment}/7")]
    assert _before_after("ensure_comment", deletes, gone) == [("шесть", None), ("пять", None), (None, None)]
    ref = AttachmentRef(id="900", sha256="ab" * 32, filename="план.txt")
    added = {"undo": AttachmentUndo(added=ref).to_json()}
    assert _before_after("ensure_attachment", [("POST", "/rest/api/2/issue/A-1/attachments")], added) == [
        (None, ref.to_json())
    ]
    nothing_deleted = {"undo": AttachmentUndo(added=ref).to_json()}
    assert _before_after("ensure_attachment", [("DELETE", "/rest/api/2/attachment/900")], nothing_deleted) == [
        (None, None)
    ]
    deleted = {"undo": AttachmentUndo(deleted=(ref,)).to_json()}
    writes = [("DELETE", "/rest/api/2/attachment/900"), ("DELETE", "/rest/api/2/attachment/901")]
    assert _before_after("ensure_attachment", writes, deleted) == [(ref.to_json(), None), (None, None)]


def test_a_result_without_undo_is_read_at_its_top_level_and_an_empty_undo_says_nothing() -> None:
    """A result reported before ``undo`` existed said its change at the top; ``undo: {}`` (nothing written to
    take back) gives no before or after even when the top level has the names of the fields."""
    legacy = {"changed": {"summary": {"from": "a", "to": "b"}}}
    assert _before_after("ensure_fields", [("PUT", "/rest/api/2/issue/A-1")], legacy) == [
        ({"summary": "a"}, {"summary": "b"})
    ]
    assert _before_after("ensure_status", [("POST", "/x")], {"from": "A", "to": "B"}) == [("A", "B")]
    empty = {"undo": {}, "changed": {"summary": {"from": "a", "to": "b"}}}
    assert _before_after("ensure_fields", [("PUT", "/rest/api/2/issue/A-1")], empty) == [(None, None)]
    assert _before_after("ensure_issue", [("POST", "/rest/api/2/issue")], {"undo": {"created": "A-9"}}) == [
        (None, None)
    ]
