"""What each write replaced (DESIGN.md 6.4): the executors' ``undo`` results, only-if-unchanged writes and their
``conflicts``, and the removals (a link, the agent's own comment and attachment, the backlog by ``null``), on the
simulator through the agent's driver."""

from __future__ import annotations

import hashlib

import pytest

from jira_sim.model import JiraError

from .sim_support import Bench

pytestmark = pytest.mark.anyio


async def test_fields_remember_each_value_replaced_and_the_labels_moved(bench: Bench) -> None:
    """ensure_fields reports each written field with its value before and after, and the labels added and
    removed, from the one read it always makes (two calls in all)."""
    params = {"key": "AURORA-1538", "duedate": "2026-12-15", "labels_add": ["kind-dev"], "labels_remove": ["AWPCA"]}
    outcome = await bench.run("ensure_fields", params)
    assert outcome.report.result["undo"] == {
        "changed": {"duedate": {"from": None, "to": "2026-12-15"}},
        "labels": {"added": ["kind-dev"], "removed": ["AWPCA"]},
    }
    assert outcome.jira_calls == 2


async def test_fields_only_if_unchanged_leaves_a_changed_field_and_names_it(bench: Bench) -> None:
    """A field whose value is not the one if_unchanged expects is left and listed in conflicts; the other fields
    are written; the command is done."""
    params = {
        "key": "AURORA-1538",
        "duedate": "2026-12-15",
        "summary": "Выгрузка",
        "if_unchanged": {"duedate": "2026-01-01", "summary": "Выгрузка в ДРРК"},
    }
    outcome = await bench.run("ensure_fields", params)
    result = outcome.report.result
    assert (outcome.report.status, result["changed"]) == ("done", ["summary"])
    assert result["conflicts"] == [{"field": "duedate", "expected": "2026-01-01", "found": None}]
    assert bench.sim.raw_issue("AURORA-1538")["duedate"] is None


async def test_fields_only_if_unchanged_already_there_is_no_conflict(bench: Bench) -> None:
    """A field already at the wanted value is neither written nor a conflict, whatever if_unchanged expects: a
    repeat writes nothing."""
    params = {"key": "AURORA-1538", "summary": "Выгрузка в ДРРК", "if_unchanged": {"summary": "Другая тема"}}
    outcome = await bench.run("ensure_fields", params)
    assert (dict(outcome.report.result), bench.writes()) == ({"changed": []}, [])


async def test_status_remembers_where_it_started_and_the_statuses_passed(bench: Bench) -> None:
    """ensure_status reports {from, to, path}: the status read first and each status reached."""
    outcome = await bench.run("ensure_status", {"key": "AURORA-1538", "target": ["Разработка", "Тестирование"]})
    assert outcome.report.result["undo"] == {
        "from": "Ожидание разработки",
        "to": "Тестирование",
        "path": ["Разработка", "Тестирование"],
    }


async def test_status_only_if_unchanged_leaves_a_moved_issue(bench: Bench) -> None:
    """if_unchanged {status} other than Jira's: no transition, the conflict named, done."""
    params = {"key": "AURORA-1538", "target": "Разработка", "if_unchanged": {"status": "Тестирование"}}
    outcome = await bench.run("ensure_status", params)
    assert (outcome.report.status, outcome.report.result["conflicts"], bench.writes()) == (
        "done",
        [{"field": "status", "expected": "Тестирование", "found": "Ожидание разработки"}],
        [],
    )


async def test_sprint_remembers_the_sprint_before_and_null_is_the_backlog(bench: Bench) -> None:
    """ensure_sprint reports {from, to} as {id, name} or null; sprint null moves the issue to the backlog."""
    moved = await bench.run("ensure_sprint", {"key": "AURORA-1538", "sprint": "Спринт 3", "board_id": 4216})
    assert moved.report.result["undo"] == {"from": None, "to": {"id": 8, "name": "Спринт 3"}}
    back = await bench.run("ensure_sprint", {"key": "AURORA-1538", "sprint": None, "board_id": 4216})
    assert (back.report.result["undo"], bench.writes()) == (
        {"from": {"id": 8, "name": "Спринт 3"}, "to": None},
        [("POST", "/rest/agile/1.0/backlog/issue", 204)],
    )
    again = await bench.run("ensure_sprint", {"key": "AURORA-1538", "sprint": None, "board_id": 4216})
    assert ("undo" in again.report.result, bench.writes()) == (False, [])


async def test_sprint_only_if_unchanged_leaves_an_issue_in_another_sprint(bench: Bench) -> None:
    """if_unchanged {sprint: null} while the issue is in a sprint: not moved, the conflict named."""
    await bench.run("ensure_sprint", {"key": "AURORA-1538", "sprint": "Спринт 2", "board_id": 4216})
    params = {"key": "AURORA-1538", "sprint": "Спринт 3", "board_id": 4216, "if_unchanged": {"sprint": None}}
    outcome = await bench.run("ensure_sprint", params)
    assert (outcome.report.result["conflicts"], bench.writes()) == (
        [{"field": "sprint", "expected": None, "found": "Спринт 2"}],
        [],
    )


LINK = {"source": "AURORA-1542", "target": "AURORA-1550", "link_type": "связанные"}


async def test_link_created_then_removed_by_present_false_and_again_nothing(bench: Bench) -> None:
    """A link created is remembered with its id, type and ends; present: false deletes it (remembered as
    removed); the repeat of the removal writes nothing."""
    created = await bench.run("ensure_link", {**LINK, "replace": True})
    undo = created.report.result["undo"]
    link = undo["created"]
    assert (link["type"], link["source"], link["target"]) == ("Связанные", "AURORA-1542", "AURORA-1550")
    removed = await bench.run("ensure_link", {**LINK, "present": False})
    assert removed.report.result["undo"]["removed"] == [link]
    assert bench.writes() == [("DELETE", f"/rest/api/2/issueLink/{link['id']}", 204)]
    again = await bench.run("ensure_link", {**LINK, "present": False})
    assert (again.report.status, bench.writes()) == ("done", [])


async def test_link_replace_remembers_the_old_link_and_the_new(bench: Bench) -> None:
    """A replace reports {replaced: {old, new}} with the old link's type and ends."""
    await bench.run("ensure_link", {**LINK, "link_type": "блокирует начало"})
    outcome = await bench.run("ensure_link", {**LINK, "replace": True})
    replaced = outcome.report.result["undo"]["replaced"]
    assert (replaced["old"]["type"], replaced["new"]["type"]) == ("Блокирует начало", "Связанные")


async def test_comment_remembers_created_and_previous_body_and_absent_deletes_its_own(bench: Bench) -> None:
    """ensure_comment reports {created: id}, then {updated: id, previous_body}; absent: true deletes it and
    reports the body deleted; the repeat of the removal writes nothing."""
    base = {"key": "AURORA-1538", "marker": "[план]"}
    created = await bench.run("ensure_comment", {**base, "body": "Срок 23.10"})
    comment_id = created.report.result["comment_id"]
    assert created.report.result["undo"] == {"created": comment_id}
    updated = await bench.run("ensure_comment", {**base, "body": "Срок 15.12"})
    assert updated.report.result["undo"] == {"updated": comment_id, "previous_body": "[план]\nСрок 23.10"}
    deleted = await bench.run("ensure_comment", {**base, "absent": True})
    assert deleted.report.result["undo"] == {"deleted": [{"id": comment_id, "body": "[план]\nСрок 15.12"}]}
    assert bench.writes() == [("DELETE", f"/rest/api/2/issue/AURORA-1538/comment/{comment_id}", 204)]
    again = await bench.run("ensure_comment", {**base, "absent": True})
    assert (again.report.status, bench.writes()) == ("done", [])


async def test_comment_absent_by_another_author_fails_and_deletes_nothing(bench: Bench) -> None:
    """A marked comment written by a person is never deleted: failed «комментарий написан не агентом»."""
    bench.sim.store.add_comment("AURORA-1538", {"body": "[план] от человека"}, "ivanov")
    outcome = await bench.run("ensure_comment", {"key": "AURORA-1538", "marker": "[план]", "absent": True})
    assert (outcome.report.status, outcome.report.error, bench.writes()) == (
        "failed",
        "комментарий написан не агентом",
        [],
    )


async def test_the_simulator_refuses_to_delete_another_users_comment(bench: Bench) -> None:
    """As Jira DC without «Delete All Comments»: the agent's user deleting a person's comment gets 403."""
    comment = bench.sim.store.add_comment("AURORA-1538", {"body": "чужой"}, "ivanov")
    with pytest.raises(JiraError) as refused:
        bench.sim.store.delete_comment("AURORA-1538", comment.id, "bridge-user")
    assert refused.value.status == 403
    bench.sim.store.delete_comment("AURORA-1538", comment.id, "ivanov")
    assert bench.sim.raw_issue("AURORA-1538")["comments"] == []


async def test_attachment_remembers_what_it_added_and_absent_deletes_only_the_agents(bench: Bench) -> None:
    """ensure_attachment reports {added: {id, sha256}}; absent: true deletes the agent's attachment of that size and
    name and leaves the same file added by a person; the repeat writes nothing."""
    content = b"undo" * 100
    sha = hashlib.sha256(content).hexdigest()
    params = {"key": "AURORA-1540", "file": sha, "filename": "план.txt", "size": len(content)}
    added = await bench.run("ensure_attachment", params, files={sha: content})
    new_id = added.report.result["attachment_id"]
    assert added.report.result["undo"] == {"added": {"id": new_id, "sha256": sha, "filename": "план.txt"}}
    bench.sim.store.add_attachments("AURORA-1540", [("план.txt", "text/plain", content)], "ivanov")
    removal = {"key": "AURORA-1540", "file": sha, "absent": True, "size": len(content)}
    deleted = await bench.run("ensure_attachment", removal)
    assert bench.writes() == [("DELETE", f"/rest/api/2/attachment/{new_id}", 204)]
    assert deleted.report.result["undo"] == {"deleted": [{"id": new_id, "sha256": sha, "filename": "план.txt"}]}
    left = [(a["filename"], a["author"]) for a in bench.sim.raw_issue("AURORA-1540")["attachments"]]
    assert ("план.txt", "ivanov") in left
    again = await bench.run("ensure_attachment", removal)
    assert (again.report.status, again.report.error) == ("failed", "вложение добавлено не агентом")
    assert bench.writes() == []
