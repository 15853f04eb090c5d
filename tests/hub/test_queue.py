"""The agent side: claim (order, re-delivery, delivery limit, temp keys), report, cancel and retry."""

from __future__ import annotations

import hashlib

import pytest

from hub_app.runtime.hub import Hub
from tests.support import cmd

from .conftest import Api, Clock
from .support import claim_none, claim_ok, create_ok, done, issue, seed_mirror

pytestmark = pytest.mark.anyio


async def test_empty_queue_answers_204(api: Api) -> None:
    """Nothing queued and no projects → 204 at once when wait = 0."""
    await claim_none(api)


async def test_delivery_shape_and_order(api: Api) -> None:
    """Commands come one at a time in (created_at, seq) order with pause_seconds and context."""
    first = await create_ok(api, [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")])
    await create_ok(api, [cmd("ensure_comment", key="AURORA-2", marker="m", body="b")])
    delivery = await claim_ok(api)
    assert delivery["id"] == first["commands"][0]["id"]
    assert delivery["type"] == "ensure_fields"
    assert delivery["params"] == {"key": "AURORA-1", "duedate": "2026-10-23"}
    assert delivery["pause_seconds"] == 120
    assert delivery["deliveries"] == 1
    assert delivery["context"]["jira_project"] == "AURORA"
    assert set(delivery["context"]) == {
        "jira_project",
        "issue_types",
        "epic_name_field_id",
        "epic_link",
        "fields",
        "link_types",
        "claim_wait_seconds",
    }
    assert delivery["context"]["claim_wait_seconds"] == 25
    await done(api, delivery["id"], {"changed": []})
    tail = await claim_ok(api)
    assert tail["type"] == "refresh"
    assert tail["params"] == {"keys": ["AURORA-1"], "boards": []}
    assert tail["pause_seconds"] == 2


async def test_lost_claim_answer_is_redelivered_first(api: Api, clock: Clock) -> None:
    """A claimed command is delivered again (deliveries + 1) before queued work."""
    batch = await create_ok(api, [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")])
    first = await claim_ok(api)
    clock.advance(seconds=30)
    again = await claim_ok(api)
    assert again["id"] == first["id"] == batch["commands"][0]["id"]
    assert again["deliveries"] == 2
    assert again["params"] == first["params"]
    command = (await api.get(f"/commands/{first['id']}")).json()
    assert command["deliveries"] == 2
    assert command["claimed_at"] == "2026-10-22T09:00:30Z"


async def test_delivery_limit_fails_and_moves_on(api: Api) -> None:
    """After 3 deliveries the 4th claim fails the command and issues the next one."""
    batch = await create_ok(
        api,
        [
            cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23"),
            cmd("ensure_comment", key="AURORA-1", marker="m", body="b"),
        ],
    )
    ids = [c["id"] for c in batch["commands"]]
    for n in (1, 2, 3):
        assert (await claim_ok(api))["deliveries"] == n
    nxt = await claim_ok(api)
    assert nxt["id"] == ids[1]
    failed = (await api.get(f"/commands/{ids[0]}")).json()
    assert failed["status"] == "failed"
    assert failed["error"] == "агент не отчитался после 3 выдач"


async def test_temp_key_substituted_after_creation(api: Api) -> None:
    """ensure_link on new:60 is issued after ensure_issue is done, with the real key."""
    await create_ok(
        api,
        [
            cmd("ensure_issue", temp_key="new:60", summary="Сверка"),
            cmd("ensure_link", source="new:60", target="AURORA-1537", link_type="связанные"),
        ],
        notes=[{"key": "new:60", "text": "почему"}],
    )
    creation = await claim_ok(api)
    assert creation["params"]["temp_key"] == "new:60"
    await done(api, creation["id"], {"key": "AURORA-1590", "created": True})
    linked = await claim_ok(api)
    assert linked["params"] == {"source": "AURORA-1590", "target": "AURORA-1537", "link_type": "связанные"}
    notes = (await api.get("/notes?key=AURORA-1590")).json()
    assert [n["text"] for n in notes["items"]] == ["почему"]
    await done(api, linked["id"], {"existed": False})
    tail = await claim_ok(api)
    assert tail["params"]["keys"] == ["AURORA-1590", "AURORA-1537"]


async def test_cancelled_creation_skips_dependents(api: Api) -> None:
    """ensure_issue cancelled with force → the dependent is skipped «создание задачи new:901 отменено»."""
    batch = await create_ok(
        api,
        [
            cmd("ensure_issue", temp_key="new:901", summary="А"),
            cmd("ensure_comment", key="new:901", marker="m", body="b"),
        ],
    )
    ids = [c["id"] for c in batch["commands"]]
    await claim_ok(api)
    refused = await api.post(f"/commands/{ids[0]}/cancel", {})
    assert refused.status_code == 409
    assert refused.json() == {
        "status_code": 409,
        "detail": f"команда {ids[0]} выдана агенту — отмена только с force: true",
    }
    forced = await api.post(f"/commands/{ids[0]}/cancel", {"force": True})
    assert forced.json()["status"] == "cancelled"
    await claim_none(api)
    skipped = (await api.get(f"/commands/{ids[1]}")).json()
    assert skipped["status"] == "skipped"
    assert skipped["error"] == "создание задачи new:901 отменено"
    tail = (await api.get(f"/commands/{ids[2]}")).json()
    assert tail["status"] == "skipped"
    assert tail["error"] == "нет ключей для обновления"


async def test_failed_creation_skips_dependents(api: Api) -> None:
    """ensure_issue failed → the dependent is skipped «задача new:902 не создана»."""
    batch = await create_ok(
        api,
        [
            cmd("ensure_issue", temp_key="new:902", summary="А"),
            cmd("ensure_link", source="new:902", target="AURORA-1", link_type="связанные"),
        ],
    )
    ids = [c["id"] for c in batch["commands"]]
    creation = await claim_ok(api)
    report = await api.report(
        creation["id"], {"status": "failed", "error": "HTTP 400: " + "x" * 2000, "jira_calls": 2, "operations": []}
    )
    assert report.json() == {"accepted": True, "status": "failed"}
    tail = await claim_ok(api)
    assert tail["params"]["keys"] == ["AURORA-1"]
    command = (await api.get(f"/commands/{ids[1]}")).json()
    assert command["error"] == "задача new:902 не создана"
    failed = (await api.get(f"/commands/{ids[0]}")).json()
    assert len(failed["error"]) == 1500
    assert failed["jira_calls"] == 2


async def test_late_creation_report_after_limit(api: Api) -> None:
    """A done report for an ensure_issue failed at the limit records the key and moves the note; status stays."""
    batch = await create_ok(
        api, [cmd("ensure_issue", temp_key="new:5", summary="Отчёт")], notes=[{"key": "new:5", "text": "заметка"}]
    )
    command_id = batch["commands"][0]["id"]
    for _ in range(3):
        await claim_ok(api)
    await claim_none(api)
    late = await api.report(
        command_id,
        {"status": "done", "result": {"key": "AURORA-77", "created": True}, "jira_calls": 2, "operations": []},
    )
    assert late.json() == {"accepted": False, "status": "failed"}
    command = (await api.get(f"/commands/{command_id}")).json()
    assert command["status"] == "failed"
    assert command["result"]["key"] == "AURORA-77"
    notes = (await api.get("/notes?key=AURORA-77")).json()["items"]
    assert [n["text"] for n in notes] == ["заметка"]


async def test_late_creation_report_after_cancel(api: Api) -> None:
    """A done report for a force-cancelled ensure_issue records the key; the status stays cancelled."""
    batch = await create_ok(
        api, [cmd("ensure_issue", temp_key="new:3", summary="Х")], notes=[{"key": "new:3", "text": "n"}]
    )
    command_id = batch["commands"][0]["id"]
    await claim_ok(api)
    await api.post(f"/commands/{command_id}/cancel", {"force": True})
    late = await api.report(command_id, {"status": "done", "result": {"key": "AURORA-8", "created": True}})
    assert late.json() == {"accepted": False, "status": "cancelled"}
    assert (await api.get(f"/commands/{command_id}")).json()["result"] == {"key": "AURORA-8", "created": True}
    assert (await api.get("/notes?key=AURORA-8")).json()["total"] == 1


async def test_report_is_idempotent(api: Api) -> None:
    """The same report twice: recorded once, both answered accepted."""
    await create_ok(api, [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")])
    delivery = await claim_ok(api)
    body = {
        "status": "done",
        "result": {"changed": ["duedate"]},
        "jira_calls": 2,
        "operations": [{"method": "PUT", "path": "/rest/api/2/issue/AURORA-1", "status": 204}],
    }
    assert (await api.report(delivery["id"], body)).json() == {"accepted": True, "status": "done"}
    assert (await api.report(delivery["id"], body)).json() == {"accepted": True, "status": "done"}
    command = (await api.get(f"/commands/{delivery['id']}")).json()
    assert command["operations"] == body["operations"]
    assert command["result"] == {"changed": ["duedate"]}


async def test_report_body_errors(api: Api) -> None:
    """A report with unknown fields, a wrong status or a wrong type is 422; an unknown command is 404."""
    await create_ok(api, [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")])
    delivery = await claim_ok(api)
    bad = await api.report(delivery["id"], {"status": "ok"})
    assert bad.status_code == 422
    assert bad.json()["detail"] == "status — ожидается done или failed"
    extra = await api.report(delivery["id"], {"status": "done", "colour": 1})
    assert extra.json()["detail"] == (
        "лишние поля colour; ожидаются status; "
        "необязательные result, error, jira_calls, operations, outcome, difference"
    )
    wrong = await api.report(delivery["id"], {"status": "done", "jira_calls": "2"})
    assert wrong.json()["detail"] == "jira_calls — ожидается целое число или null"
    assert (await api.get(f"/commands/{delivery['id']}")).json()["status"] == "claimed"
    missing = await api.report(999999, {"status": "done"})
    assert missing.status_code == 404
    assert missing.json()["detail"] == "команды 999999 нет"


async def test_cancel_batch_with_and_without_force(api: Api) -> None:
    """Cancelling a batch cancels its queued commands; the claimed one only with force."""
    batch = await create_ok(
        api,
        [
            cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23"),
            cmd("ensure_comment", key="AURORA-1", marker="m", body="b"),
        ],
    )
    await claim_ok(api)
    soft = (await api.post(f"/batches/{batch['id']}/cancel", {})).json()
    assert [c["status"] for c in soft["commands"]] == ["claimed", "cancelled", "cancelled"]
    hard = (await api.post(f"/batches/{batch['id']}/cancel", {"force": True})).json()
    assert [c["status"] for c in hard["commands"]] == ["cancelled", "cancelled", "cancelled"]
    await claim_none(api)
    bad = await api.post(f"/batches/{batch['id']}/cancel", {"force": "yes"})
    assert bad.status_code == 422
    assert bad.json()["detail"] == "force — ожидается логическое значение true/false"


async def test_retry_makes_a_new_batch(api: Api) -> None:
    """Retry of a failed command: a new batch with the same params (temp keys resolved) and a tail refresh."""
    batch = await create_ok(
        api,
        [
            cmd("ensure_issue", temp_key="new:1", summary="А"),
            cmd("ensure_status", key="new:1", target=["Разработка", "Готово"]),
        ],
    )
    creation = await claim_ok(api)
    await done(api, creation["id"], {"key": "AURORA-50", "created": True})
    status = await claim_ok(api)
    await api.report(status["id"], {"status": "failed", "error": "нет перехода"})
    not_yet = await api.post(f"/commands/{batch['commands'][0]['id']}/retry")
    assert not_yet.status_code == 409
    retried = await api.post(f"/commands/{status['id']}/retry")
    assert retried.status_code == 201, retried.text
    new = retried.json()
    assert [c["type"] for c in new["commands"]] == ["ensure_status", "refresh"]
    assert new["commands"][0]["params"] == {"key": "AURORA-50", "target": ["Разработка", "Готово"]}
    assert new["commands"][1]["params"] == {"keys": ["AURORA-50"]}
    assert (await api.get(f"/commands/{new['commands'][0]['id']}")).json()["retry_of"] == status["id"]


async def test_retry_is_validated_as_new(api: Api) -> None:
    """A retried ensure_sprint re-resolves its board: a project now on kanban → 422."""
    await api.post("/projects", {"name": "AWPCA", "board_id": 4216, "board_type": "scrum"}, role="admin")
    await seed_mirror(api, [issue("AURORA-51", labels=["AWPCA"])])
    batch = await create_ok(api, [cmd("ensure_sprint", key="AURORA-51", sprint="Спринт 2")], project="AWPCA")
    assert batch["commands"][0]["params"]["board_id"] == 4216
    sprint = await claim_ok(api)
    await api.report(sprint["id"], {"status": "failed", "error": "нет спринта"})
    await api.patch("/projects/AWPCA", {"board_type": "kanban"})
    retried = await api.post(f"/commands/{sprint['id']}/retry")
    assert retried.status_code == 422
    assert retried.json()["detail"] == "у проекта AWPCA канбан-доска, спринтов нет"


async def test_attachment_size_at_delivery(api: Api, hub: Hub) -> None:
    """ensure_attachment is delivered with size of the stored file, or size = null once it is gone; never stored."""
    content = b"PK\x03\x04 xlsx"
    await api.client.post("/files?filename=a.xlsx", content=content, headers=api.auth("interface"))
    sha = hashlib.sha256(content).hexdigest()
    batch = await create_ok(api, [cmd("ensure_attachment", key="AURORA-1", file=sha, filename="ОСВ 60.xlsx")])
    delivery = await claim_ok(api)
    assert delivery["params"] == {"key": "AURORA-1", "file": sha, "filename": "ОСВ 60.xlsx", "size": len(content)}
    hub.files.delete(sha)
    again = await claim_ok(api)
    assert again["params"]["size"] is None
    stored = (await api.get(f"/batches/{batch['id']}")).json()["commands"][0]["params"]
    assert "size" not in stored


async def test_second_agent_is_refused_while_first_is_live(api: Api, clock: Clock) -> None:
    """A claim from another agent_id while the first was seen within 2 × claim wait → 409."""
    await claim_none(api, agent_id="agent-1")
    other = await api.claim(agent_id="agent-2")
    assert other.status_code == 409
    assert other.json()["detail"] == (
        "активен другой агент agent-1 (последний раз 2026-10-22T09:00:00Z); второй агент не допускается"
    )
    clock.advance(seconds=51)
    await claim_none(api, agent_id="agent-2")
    status = (await api.get("/agent-status")).json()
    assert status["agent_id"] == "agent-2"
    assert status["online"] is True


async def test_agent_status_records_facts(api: Api, clock: Clock) -> None:
    """The claim records version, jira_user, time zone and symmetric link types; online fades."""
    await claim_none(api, jira_user="bridge-user", jira_time_zone="Europe/Moscow", symmetric_link_types=["Связанные"])
    status = (await api.get("/agent-status")).json()
    assert status["jira_user"] == "bridge-user"
    assert status["jira_time_zone"] == "Europe/Moscow"
    assert status["symmetric_link_types"] == ["Связанные"]
    assert status["version"] == "1.0"
    clock.advance(minutes=2)
    assert (await api.get("/agent-status")).json()["online"] is False


async def test_claim_body_errors(api: Api) -> None:
    """A claim without agent_id or with a wrong type is 422, nothing recorded."""
    missing = await api.post("/agent/claim", {"version": "1"}, role="agent")
    assert missing.status_code == 422
    assert missing.json()["detail"] == (
        "нет agent_id; ожидаются agent_id; необязательные version, jira_user, jira_time_zone, jira_base_url, "
        "symmetric_link_types, wait, instance, policy"
    )
    wrong = await api.post("/agent/claim", {"agent_id": "a", "wait": "soon"}, role="agent")
    assert wrong.json()["detail"] == "wait — ожидается неотрицательное число"
    assert (await api.get("/agent-status")).json()["agent_id"] is None


async def test_late_report_after_reported_failure_changes_nothing(api: Api) -> None:
    """A done report after the agent itself reported failed records nothing: only limit or cancel allow it."""
    batch = await create_ok(api, [cmd("ensure_issue", temp_key="new:1", summary="Х")])
    command_id = batch["commands"][0]["id"]
    await claim_ok(api)
    await api.report(command_id, {"status": "failed", "error": "HTTP 400"})
    late = await api.report(command_id, {"status": "done", "result": {"key": "AURORA-9", "created": True}})
    assert late.json() == {"accepted": False, "status": "failed"}
    assert (await api.get(f"/commands/{command_id}")).json()["result"] == {}


async def test_bug_with_sprint_and_attachment_in_one_batch(api: Api) -> None:
    """[ensure_issue bug new:1, ensure_sprint new:1, ensure_attachment new:1]: created; the attachment is
    delivered after the creation with the real key and the file's size."""
    await api.post("/projects", {"name": "AWPCA", "board_id": 4216, "board_type": "scrum"}, role="admin")
    content = b"PK\x03\x04 osv-60"
    await api.client.post("/files?filename=osv.xlsx", content=content, headers=api.auth("interface"))
    sha = hashlib.sha256(content).hexdigest()
    batch = await create_ok(
        api,
        [
            cmd("ensure_issue", temp_key="new:1", issue_type="bug", summary="ОСВ 60 не распознана"),
            cmd("ensure_sprint", key="new:1", sprint="Спринт 2"),
            cmd("ensure_attachment", key="new:1", file=sha, filename="ОСВ 60.xlsx"),
        ],
        project="AWPCA",
    )
    assert batch["commands"][0]["params"]["labels"] == ["AWPCA"]
    assert batch["commands"][1]["params"]["board_id"] == 4216
    creation = await claim_ok(api)
    await done(api, creation["id"], {"key": "AURORA-1601", "created": True})
    sprint = await claim_ok(api)
    assert sprint["params"] == {"key": "AURORA-1601", "sprint": "Спринт 2", "board_id": 4216}
    await done(api, sprint["id"], {"sprint_id": 7, "moved": True})
    attachment = await claim_ok(api)
    assert attachment["params"] == {
        "key": "AURORA-1601",
        "file": sha,
        "filename": "ОСВ 60.xlsx",
        "size": len(content),
    }


async def test_lost_creation_report_redelivered_and_recorded(api: Api) -> None:
    """ensure_issue's report is lost: the claim delivers it again, the agent reports the found key, the note moves."""
    batch = await create_ok(
        api, [cmd("ensure_issue", temp_key="new:5", summary="Отчёт")], notes=[{"key": "new:5", "text": "n"}]
    )
    command_id = batch["commands"][0]["id"]
    await claim_ok(api)
    again = await claim_ok(api)
    assert (again["id"], again["deliveries"]) == (command_id, 2)
    await done(api, command_id, {"key": "AURORA-70", "created": False})
    assert (await api.get(f"/commands/{command_id}")).json()["status"] == "done"
    assert [n["key"] for n in (await api.get(f"/batches/{batch['id']}")).json()["notes"]] == ["AURORA-70"]
