"""Every agent-side scenario of seed 001 and change 000, driven through httpx against the simulator."""

from __future__ import annotations

import hashlib

import pytest

from tests.support import seed_result

from .sim_support import Bench

pytestmark = pytest.mark.anyio


async def test_repeat_of_done_ensure_fields_reads_once(bench: Bench) -> None:
    """Seed «Повтор уже выполненной команды»: duedate already 23.10 → no PUT, done, jira_calls = 1."""
    outcome = await bench.run("ensure_fields", {"key": "AURORA-1533", "duedate": "2026-10-23"})
    assert (outcome.report.status, seed_result(outcome.report.result), outcome.jira_calls) == (
        "done",
        {"changed": []},
        1,
    )
    assert bench.writes() == []


async def test_description_differing_only_in_line_breaks(bench: Bench) -> None:
    """Seed «Описание отличается только переводами строк»: "а\\nб" vs Jira's "а\\r\\nб" → no PUT, changed []."""
    first = await bench.run("ensure_fields", {"key": "AURORA-1538", "description": "а\r\nб"})
    assert seed_result(first.report.result) == {"changed": ["description"]}
    assert bench.sim.raw_issue("AURORA-1538")["description"] == "а\r\nб"
    outcome = await bench.run("ensure_fields", {"key": "AURORA-1538", "description": "а\nб"})
    assert (outcome.report.status, seed_result(outcome.report.result), outcome.jira_calls) == (
        "done",
        {"changed": []},
        1,
    )
    assert bench.writes() == []


async def test_fields_write_only_the_difference_and_keep_other_labels(bench: Bench) -> None:
    """One PUT with the differing fields; labels through add/remove; a second run writes nothing."""
    params = {
        "key": "AURORA-1551",
        "summary": "Остатки: выгрузка",
        "priority": "High",
        "labels_add": ["STOCKS_DRRK", "kind-test"],
        "labels_remove": ["kind-dev"],
        "planned_end": "2026-11-02",
    }
    outcome = await bench.run("ensure_fields", params)
    assert seed_result(outcome.report.result) == {"changed": ["priority", "planned_end", "labels_add", "labels_remove"]}
    assert bench.writes() == [("PUT", "/rest/api/2/issue/AURORA-1551", 204)]
    raw = bench.sim.raw_issue("AURORA-1551")
    assert (raw["labels"], raw["priority"], raw["custom"]["customfield_11201"]) == (
        ["STOCKS_DRRK", "kind-test"],
        "High",
        "2026-11-02",
    )
    again = await bench.run("ensure_fields", params)
    assert (seed_result(again.report.result), again.jira_calls, bench.writes()) == ({"changed": []}, 1, [])


async def test_link_replace_deletes_pauses_and_posts(bench: Bench) -> None:
    """Seed «Замена связи»: DELETE «Блокирует начало», pause by policy, POST «Связанные»; done with both."""
    params = {"source": "AURORA-1537", "target": "AURORA-1538", "link_type": "связанные", "replace": True}
    old_id = bench.sim.raw_issue("AURORA-1537")["links"][0]["id"]
    outcome = await bench.run("ensure_link", params, pause=30)
    report = outcome.report
    assert report.status == "done"
    assert [op.to_json() for op in report.operations] == [
        {"method": "DELETE", "path": f"/rest/api/2/issueLink/{old_id}", "status": 204},
        {"method": "POST", "path": "/rest/api/2/issueLink", "status": 201},
    ]
    times = bench.write_times()
    assert times[1] - times[0] >= 30
    links = bench.sim.raw_issue("AURORA-1537")["links"]
    assert [(x["type"], x["inward"], x["outward"]) for x in links] == [("Связанные", "AURORA-1537", "AURORA-1538")]
    assert seed_result(report.result) == {"existed": False, "link_id": links[0]["id"], "removed": [old_id]}


async def test_link_conflict_without_replace_changes_nothing(bench: Bench) -> None:
    """Seed «Связь-конфликт без replace»: failed naming the link found, Jira unchanged."""
    before = bench.sim.raw_issue("AURORA-1537")["links"]
    params = {"source": "AURORA-1537", "target": "AURORA-1538", "link_type": "связанные", "replace": False}
    outcome = await bench.run("ensure_link", params)
    link_id = before[0]["id"]
    assert outcome.report.status == "failed"
    assert outcome.report.error == (
        f"конфликт: связь «Блокирует начало» AURORA-1537 → AURORA-1538 (id {link_id}); нужна «Связанные»; "
        "replace не задан"
    )
    assert (bench.writes(), outcome.jira_calls) == ([], 1)
    assert bench.sim.raw_issue("AURORA-1537")["links"] == before


async def test_symmetric_link_in_reverse_exists(bench: Bench) -> None:
    """Change 000: «Связанные» 1446→1445 satisfies 1445→1446 → nothing written, existed: true."""
    params = {"source": "AURORA-1445", "target": "AURORA-1446", "link_type": "связанные"}
    outcome = await bench.run("ensure_link", params)
    assert outcome.report.status == "done"
    assert outcome.report.result["existed"] is True
    assert (bench.writes(), outcome.jira_calls) == ([], 1)


async def test_new_link_is_posted_with_source_inward(bench: Bench) -> None:
    """No link and no conflict: one POST, source as inwardIssue; a repeat writes nothing."""
    params = {"source": "AURORA-1533", "target": "AURORA-1538", "link_type": "блокирует начало"}
    outcome = await bench.run("ensure_link", params)
    assert bench.writes() == [("POST", "/rest/api/2/issueLink", 201)]
    link = next(x for x in bench.sim.raw_issue("AURORA-1533")["links"] if x["outward"] == "AURORA-1538")
    assert (link["type"], link["inward"]) == ("Блокирует начало", "AURORA-1533")
    assert seed_result(outcome.report.result) == {"existed": False, "link_id": link["id"], "removed": []}
    again = await bench.run("ensure_link", params)
    assert (again.report.result["existed"], bench.writes()) == (True, [])


async def test_status_path_two_transitions_with_a_pause(bench: Bench) -> None:
    """Seed «Переход по пути»: two POST /transitions with the gap between them."""
    outcome = await bench.run("ensure_status", {"key": "AURORA-1538", "target": ["Разработка", "Тестирование"]})
    assert seed_result(outcome.report.result) == {
        "status": "Тестирование",
        "transitions": ["В разработку", "На тестирование"],
    }
    assert [w[:2] for w in bench.writes()] == [("POST", "/rest/api/2/issue/AURORA-1538/transitions")] * 2
    times = bench.write_times()
    assert times[1] - times[0] >= 30
    assert bench.sim.raw_issue("AURORA-1538")["status"] == "Тестирование"


async def test_status_already_there_writes_nothing(bench: Bench) -> None:
    """Seed: if X is already «Готово» — done without a write."""
    outcome = await bench.run("ensure_status", {"key": "AURORA-1541", "target": ["Разработка", "Готово"]})
    assert (outcome.report.status, seed_result(outcome.report.result)) == (
        "done",
        {"status": "Готово", "transitions": []},
    )
    assert (bench.writes(), outcome.jira_calls) == ([], 1)


async def test_status_without_a_transition_lists_the_reachable(bench: Bench) -> None:
    """The simulator's workflow has no Разработка → Готово: failed after the first step, listing targets."""
    outcome = await bench.run("ensure_status", {"key": "AURORA-1538", "target": ["Разработка", "Готово"]})
    assert outcome.report.status == "failed"
    assert (
        outcome.report.error == "нет перехода в «Готово» из «Разработка»; доступны: Тестирование, Ожидание разработки"
    )
    assert seed_result(outcome.report.result) == {"status": "Разработка", "transitions": ["В разработку"]}
    assert len(outcome.report.operations) == 1


async def test_bug_is_created_with_issuetype_name(bench: Bench) -> None:
    """Seed «Создание ошибки»: issue_types.bug = {name: "Ошибка"} → issuetype Ошибка; done with the key."""
    params = {"temp_key": "new:1", "issue_type": "bug", "summary": "ОСВ 60 не распознана", "labels": ["AWPCA"]}
    outcome = await bench.run("ensure_issue", params)
    assert (outcome.report.status, seed_result(outcome.report.result)) == (
        "done",
        {"key": "AURORA-1590", "created": True},
    )
    raw = bench.sim.raw_issue("AURORA-1590")
    assert (raw["issuetype"], raw["summary"], raw["labels"], raw["reporter"]) == (
        "Ошибка",
        "ОСВ 60 не распознана",
        ["AWPCA"],
        "bridge-user",
    )


async def test_duplicate_found_on_recreate(bench: Bench) -> None:
    """Seed «Создание с проверкой дубля»: our issue with that summary from earlier → no second issue."""
    params = {"temp_key": "new:5", "summary": "Шахматка: комментарии"}
    outcome = await bench.run("ensure_issue", params)
    assert seed_result(outcome.report.result) == {"key": "AURORA-1542", "created": False}
    assert bench.writes() == []


async def test_create_then_repeat_creates_one_issue(bench: Bench) -> None:
    """A lost report of a creation: the repeat finds the created issue by the duplicate search."""
    params = {"temp_key": "new:7", "issue_type": "epic", "summary": "Отчёт", "epic_key": None, "labels": ["AWPCA"]}
    first = await bench.run("ensure_issue", params)
    bench.clock.advance(3600)
    second = await bench.run("ensure_issue", params)
    assert seed_result(first.report.result) == {"key": "AURORA-1590", "created": True}
    assert seed_result(second.report.result) == {"key": "AURORA-1590", "created": False}
    assert bench.writes() == []
    assert bench.sim.raw_issue("AURORA-1590")["custom"]["customfield_10102"] == "Отчёт"


async def test_attachment_present_is_neither_fetched_nor_uploaded(bench: Bench) -> None:
    """Seed «Вложение уже есть»: same name and size → done with its id, no fetch, jira_calls = 1."""
    present = bench.sim.raw_issue("AURORA-1540")["attachments"][0]
    params = {"key": "AURORA-1540", "file": "b" * 64, "filename": "ОСВ 60.xlsx", "size": 2048}
    outcome = await bench.run("ensure_attachment", params)
    assert seed_result(outcome.report.result) == {"attachment_id": present["id"], "uploaded": False}
    assert (outcome.jira_calls, bench.fetched, bench.writes()) == (1, [], [])


async def test_attachment_same_name_other_size_is_uploaded_again(bench: Bench) -> None:
    """Seed «Вложение с тем же именем, другого размера»: a second attachment with the same name."""
    content = "сверка".encode() * 10
    sha = hashlib.sha256(content).hexdigest()
    params = {"key": "AURORA-1540", "file": sha, "filename": "ОСВ 60.xlsx", "size": len(content)}
    outcome = await bench.run("ensure_attachment", params, files={sha: content})
    attachments = bench.sim.raw_issue("AURORA-1540")["attachments"]
    assert [(a["filename"], a["size"]) for a in attachments] == [("ОСВ 60.xlsx", 2048), ("ОСВ 60.xlsx", len(content))]
    assert seed_result(outcome.report.result) == {"attachment_id": attachments[1]["id"], "uploaded": True}
    assert bench.fetched == [sha]
    again = await bench.run("ensure_attachment", params, files={sha: content})
    assert (again.report.result["uploaded"], again.jira_calls) == (False, 1)


async def test_attachment_bytes_not_matching_sha_fail_before_upload(bench: Bench) -> None:
    """The hub's bytes are checked against sha256: a mismatch fails the command, nothing uploaded."""
    params = {"key": "AURORA-1540", "file": "c" * 64, "filename": "a.txt", "size": 3}
    outcome = await bench.run("ensure_attachment", params, files={"c" * 64: b"abc"})
    digest = hashlib.sha256(b"abc").hexdigest()
    assert (outcome.report.status, outcome.report.error) == (
        "failed",
        f"файл {'c' * 64} у хаба с другим sha256: {digest}",
    )
    assert bench.writes() == []


async def test_sprint_move_and_repeat(bench: Bench) -> None:
    """ensure_sprint into «Спринт 2» of board 4216 moves once; the repeat writes nothing; backlog moves out."""
    params = {"key": "AURORA-1538", "sprint": "Спринт 2", "board_id": 4216}
    outcome = await bench.run("ensure_sprint", params)
    assert (seed_result(outcome.report.result), bench.writes()) == (
        {"sprint_id": 7, "moved": True},
        [("POST", "/rest/agile/1.0/sprint/7/issue", 204)],
    )
    again = await bench.run("ensure_sprint", params)
    assert (seed_result(again.report.result), bench.writes()) == ({"sprint_id": 7, "moved": False}, [])
    backlog = await bench.run("ensure_sprint", {"key": "AURORA-1538", "sprint": "backlog"})
    assert seed_result(backlog.report.result) == {"sprint_id": None, "moved": True}
    assert bench.sim.raw_issue("AURORA-1538")["sprints"] == []


async def test_sprint_unknown_name_fails_listing_the_board(bench: Bench) -> None:
    """An unknown sprint name fails listing the active and future sprints of the board."""
    outcome = await bench.run("ensure_sprint", {"key": "AURORA-1538", "sprint": "Спринт 1", "board_id": 4216})
    assert outcome.report.error == "нет спринта «Спринт 1» на доске 4216; активные и будущие: Спринт 2, Спринт 3"


async def test_comment_created_then_updated_then_left(bench: Bench) -> None:
    """ensure_comment: POST when no marked comment, PUT when the text differs, nothing when equal."""
    params = {"key": "AURORA-1538", "marker": "[план]", "body": "Срок 23.10"}
    created = await bench.run("ensure_comment", params)
    assert created.report.result["action"] == "created"
    comment = bench.sim.raw_issue("AURORA-1538")["comments"][-1]
    assert (comment["body"], comment["id"]) == ("[план]\nСрок 23.10", created.report.result["comment_id"])
    updated = await bench.run("ensure_comment", {**params, "body": "[план] Срок 30.10"})
    assert seed_result(updated.report.result) == {"comment_id": comment["id"], "action": "updated"}
    same = await bench.run("ensure_comment", {**params, "body": "[план] Срок 30.10"})
    assert (same.report.result["action"], bench.writes()) == ("none", [])


async def test_comment_matching_up_to_crlf_is_left(bench: Bench) -> None:
    """AURORA-1533's «[план]» comment is stored with CRLF: the same text with LF is no change."""
    params = {"key": "AURORA-1533", "marker": "[план]", "body": "[план] Срок согласован\nс заказчиком"}
    outcome = await bench.run("ensure_comment", params)
    assert (outcome.report.result["action"], bench.writes(), outcome.jira_calls) == ("none", [], 1)


async def test_refresh_issues_neighbours_boards_and_journal(bench: Bench) -> None:
    """refresh by keys: issues page, neighbours by issuelinks, unknown board type, journal since."""
    params = {
        "keys": ["AURORA-1537", "AURORA-1533"],
        "boards": [{"id": 5120, "type": None}, {"id": 4216, "type": "scrum"}],
        "history": {"since": "2026-10-20T08:00:00Z"},
    }
    outcome = await bench.run("refresh", params)
    report = outcome.report
    assert report.status == "done"
    assert report.operations == ()
    kinds = [(p.page, p.kind) for p in bench.pages]
    assert kinds == [(1, "issues"), (2, "neighbours"), (3, "history")]
    assert sorted(i.key for i in bench.pages[0].issues) == ["AURORA-1533", "AURORA-1537"]
    neighbours = sorted(i.key for i in bench.pages[1].issues)
    history = bench.pages[2].history
    assert [(h.key, h.created) for h in history] == [("AURORA-1533", "2026-10-20T09:00:00Z")]
    assert seed_result(report.result) == {
        "issues": 2,
        "neighbours": len(neighbours),
        "boards": {"5120": "kanban"},
        "history": {"entries": 1},
    }
    assert "AURORA-1538" in neighbours
    search = [c for c in bench.sim.calls if c["path"] == "/rest/api/2/search"]
    assert len(search) == 3


async def test_refresh_of_keys_with_a_deleted_issue_reads_the_rest(bench: Bench) -> None:
    """Jira rejects `key in (…)` naming a missing issue; the query is repeated with validateQuery false."""
    params = {"keys": ["AURORA-1", "AURORA-9999"], "history": {"since": "2026-10-01T00:00:00Z"}}
    outcome = await bench.run("refresh", params)
    assert outcome.report.status == "done", outcome.report.error
    assert [c["status"] for c in bench.sim.calls] == [400, 200, 200]
    assert [i.key for i in bench.pages[0].issues] == ["AURORA-1"]
    assert seed_result(outcome.report.result) == {"issues": 1, "neighbours": 0, "boards": {}, "history": {"entries": 0}}


async def test_unknown_context_keys_are_ignored(bench: Bench) -> None:
    """Keys of context that are not settings do not fail the command."""
    context = {"jira_project": "AURORA", "something_new": 1}
    outcome = await bench.run("ensure_fields", {"key": "AURORA-1533", "duedate": "2026-10-23"}, context=context)
    assert (outcome.report.status, outcome.jira_calls) == ("done", 1)
