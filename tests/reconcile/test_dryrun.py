"""Dry run: the executors, run against mirror records, predict the writes a batch would make."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from reconcile.batch import BatchContext, ProjectInfo, validate_batch
from reconcile.dryrun import issue_to_jira, predict_batch
from reconcile.jira_model import issue_from_jira
from reconcile.records import MirrorIssue, MirrorLink, SprintRef
from reconcile.settings import Settings

NOW = datetime(2026, 10, 22, 12, 0, tzinfo=UTC)
SETTINGS = Settings()
MIRROR = {
    "AURORA-1533": MirrorIssue(
        key="AURORA-1533",
        summary="Сверка",
        description="а\r\nб",
        duedate="2026-10-23",
        status="Разработка",
        status_category="indeterminate",
        labels=("AWPCA",),
    ),
    "AURORA-1537": MirrorIssue(
        key="AURORA-1537",
        labels=("AWPCA",),
        links=(MirrorLink(id="10007", type="Блокирует начало", source="AURORA-1537", target="AURORA-1538"),),
    ),
    "AURORA-1538": MirrorIssue(
        key="AURORA-1538", labels=("AWPCA",), sprint=SprintRef(id=7, name="Спринт 2", state="active")
    ),
    "AURORA-1600": MirrorIssue(
        key="AURORA-1600", summary="Отчёт", reporter="bridge-user", created="2026-10-21T09:00:00Z"
    ),
}


def predict(*commands: dict[str, Any]) -> list[dict[str, Any]]:
    ctx = BatchContext(
        settings=SETTINGS,
        projects={"AWPCA": ProjectInfo(name="AWPCA", board_id=4216, board_type="scrum")},
        mirror_labels={k: v.labels for k, v in MIRROR.items()},
    )
    batch = validate_batch({"author": "a", "title": "t", "commands": list(commands)}, ctx)
    predictions = predict_batch(
        batch,
        mirror=MIRROR,
        settings=SETTINGS,
        jira_user="bridge-user",
        symmetric_link_types=frozenset({"Связанные"}),
        now=NOW,
    )
    return [p.to_json() for p in predictions]


def test_rendered_record_reads_back_the_same() -> None:
    """issue_to_jira is the inverse of the Jira model on mirror records."""
    for issue in MIRROR.values():
        assert issue_from_jira(issue_to_jira(issue, SETTINGS), SETTINGS) == issue


def test_nothing_to_write_when_the_mirror_already_matches() -> None:
    """A done ensure_fields, CRLF included, predicts no write; the tail refresh reads only."""
    predictions = predict(
        {"type": "ensure_fields", "params": {"key": "AURORA-1533", "duedate": "2026-10-23", "description": "а\nб"}}
    )
    assert [(p["type"], p["writes"], p["result"]) for p in predictions] == [
        ("ensure_fields", [], {"changed": []}),
        ("refresh", [], {}),
    ]


def test_differing_field_predicts_one_put_with_only_that_field() -> None:
    """Only the differing field is in the predicted PUT."""
    first = predict(
        {"type": "ensure_fields", "params": {"key": "AURORA-1533", "duedate": "2026-10-30", "summary": "Сверка"}}
    )[0]
    assert first["writes"] == [
        {"method": "PUT", "path": "/rest/api/2/issue/AURORA-1533", "json": {"fields": {"duedate": "2026-10-30"}}}
    ]
    assert first["result"] == {"changed": ["duedate"]}


def test_link_replace_predicts_delete_then_post() -> None:
    """A conflicting link with replace predicts DELETE then POST, with the gap counted."""
    first = predict(
        {
            "type": "ensure_link",
            "params": {"source": "AURORA-1537", "target": "AURORA-1538", "link_type": "связанные", "replace": True},
        }
    )[0]
    assert [(w["method"], w["path"]) for w in first["writes"]] == [
        ("DELETE", "/rest/api/2/issueLink/10007"),
        ("POST", "/rest/api/2/issueLink"),
    ]
    assert first["pause_seconds"] == 60


def test_duplicate_in_mirror_predicts_no_create_and_temp_keys_follow() -> None:
    """ensure_issue finds our issue in the mirror; a new one is predicted created and usable by temp key."""
    predictions = predict(
        {"type": "ensure_issue", "params": {"temp_key": "new:1", "summary": "Отчёт"}},
        {"type": "ensure_issue", "params": {"temp_key": "new:2", "summary": "Новая"}},
        {"type": "ensure_comment", "params": {"key": "new:2", "marker": "[план]", "body": "текст"}},
    )
    assert predictions[0]["writes"] == [] and predictions[0]["result"] == {"key": "AURORA-1600", "created": False}
    assert [w["method"] for w in predictions[1]["writes"]] == ["POST"]
    assert predictions[2]["writes"][0]["path"] == "/rest/api/2/issue/new:2/comment"
    assert predictions[2]["unknown"] == [
        "комментарии зеркалу не известны: предсказана запись, если комментария с маркером нет"
    ]


def test_issue_missing_from_the_mirror_is_said() -> None:
    """A key the mirror has never seen cannot be predicted; the prediction says why."""
    first = predict({"type": "ensure_status", "params": {"key": "AURORA-9", "target": "Готово"}})[0]
    assert first["status"] == "failed"
    assert first["error"] == "HTTP 404: задачи AURORA-9 нет в зеркале — прогноз невозможен"


def test_sprint_already_set_predicts_nothing() -> None:
    """The sprint in the mirror is the wanted one: no move."""
    first = predict({"type": "ensure_sprint", "params": {"key": "AURORA-1538", "sprint": "Спринт 2"}})[0]
    assert first["writes"] == []


def test_attachment_predicts_the_upload_without_reading_the_file() -> None:
    """The mirror knows no attachments: the upload is predicted (and said to be assumed), not failed on bytes."""
    ctx = BatchContext(settings=SETTINGS, mirror_labels={k: v.labels for k, v in MIRROR.items()}, files={"a" * 64: 10})
    body = {
        "author": "a",
        "title": "t",
        "commands": [
            {"type": "ensure_attachment", "params": {"key": "AURORA-1533", "file": "a" * 64, "filename": "f"}}
        ],
    }
    first = predict_batch(
        validate_batch(body, ctx),
        mirror=MIRROR,
        settings=SETTINGS,
        jira_user="bridge-user",
        symmetric_link_types=frozenset(),
        now=NOW,
    )[0].to_json()
    assert (first["status"], first["writes"], first["result"]) == (
        "done",
        [{"method": "POST", "path": "/rest/api/2/issue/AURORA-1533/attachments"}],
        {"attachment_id": None, "uploaded": True},
    )
    assert first["unknown"] == ["вложения зеркалу не известны: предсказана загрузка"]
