"""Dry run: the executors, run against mirror records, predict the writes a batch would make."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import attrs
from hypothesis import given
from hypothesis import strategies as st

from reconcile.batches.validation import BatchContext, NewCommand, ProjectInfo, validate_batch
from reconcile.config.settings import EpicLink, Settings
from reconcile.jira.model import issue_from_jira
from reconcile.outlook.dryrun import issue_to_jira, predict_batch, predict_commands, with_issues_to_be_created
from reconcile.vocabulary.records import MirrorIssue, MirrorLink, SprintRef
from tests.support import seed_result

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
    assert [(p["type"], p["writes"], seed_result(p["result"])) for p in predictions] == [
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
    assert seed_result(first["result"]) == {"changed": ["duedate"]}


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
    assert (first["status"], first["writes"], seed_result(first["result"])) == (
        "done",
        [{"method": "POST", "path": "/rest/api/2/issue/AURORA-1533/attachments"}],
        {"attachment_id": None, "uploaded": True},
    )
    assert first["unknown"] == ["вложения зеркалу не известны: предсказана загрузка"]


def _first(command: dict[str, Any]) -> dict[str, Any]:
    return predict(command)[0]


def test_status_path_predicts_a_transition_per_step_after_the_current_one() -> None:
    """The mirror knows no workflow: each step of the path after the current status is one transition (its id
    is its place in the path), the gap between them counted, and the assumption said."""
    assert _first(
        {"type": "ensure_status", "params": {"key": "AURORA-1533", "target": ["Разработка", "Ревью", "Готово"]}}
    ) == {
        "seq": 1,
        "type": "ensure_status",
        "writes": [
            {
                "method": "POST",
                "path": "/rest/api/2/issue/AURORA-1533/transitions",
                "json": {"transition": {"id": "2"}},
            },
            {
                "method": "POST",
                "path": "/rest/api/2/issue/AURORA-1533/transitions",
                "json": {"transition": {"id": "3"}},
            },
        ],
        "status": "done",
        "result": {
            "status": "Готово",
            "transitions": ["Ревью", "Готово"],
            "undo": {"from": "Разработка", "to": "Готово", "path": ["Ревью", "Готово"]},
        },
        "error": None,
        "pause_seconds": 60.0,
        "unknown": ["переходы рабочего процесса зеркалу не известны: путь считается проходимым"],
    }


def test_sprint_move_into_another_sprint_and_into_the_backlog() -> None:
    """Another sprint is assumed to exist (id unknown: 0); the backlog needs no board; the current sprint by
    name is no move."""
    other = _first({"type": "ensure_sprint", "params": {"key": "AURORA-1533", "sprint": "Спринт 3"}})
    assert (other["writes"], seed_result(other["result"]), other["pause_seconds"], other["unknown"]) == (
        [{"method": "POST", "path": "/rest/agile/1.0/sprint/0/issue", "json": {"issues": ["AURORA-1533"]}}],
        {"sprint_id": 0, "moved": True},
        30.0,
        ["спринты доски зеркалу не известны: спринт считается существующим"],
    )
    backlog = _first({"type": "ensure_sprint", "params": {"key": "AURORA-1538", "sprint": "backlog"}})
    assert (backlog["writes"], seed_result(backlog["result"]), backlog["unknown"]) == (
        [{"method": "POST", "path": "/rest/agile/1.0/backlog/issue", "json": {"issues": ["AURORA-1538"]}}],
        {"sprint_id": None, "moved": True},
        [],
    )
    same = _first({"type": "ensure_sprint", "params": {"key": "AURORA-1538", "sprint": "Спринт 2"}})
    assert (same["writes"], seed_result(same["result"])) == ([], {"sprint_id": 7, "moved": False})


def test_comment_and_link_predict_their_posts_with_placeholder_ids() -> None:
    """A comment is predicted created (the mirror has none); a new link is posted, its id not yet known."""
    comment = _first({"type": "ensure_comment", "params": {"key": "AURORA-1533", "marker": "[m]", "body": "x"}})
    assert (comment["writes"], seed_result(comment["result"])) == (
        [{"method": "POST", "path": "/rest/api/2/issue/AURORA-1533/comment", "json": {"body": "[m]\nx"}}],
        {"comment_id": "(новый)", "action": "created"},
    )
    link = _first(
        {"type": "ensure_link", "params": {"source": "AURORA-1533", "target": "AURORA-1538", "link_type": "связанные"}}
    )
    assert (link["writes"], seed_result(link["result"]), link["unknown"]) == (
        [
            {
                "method": "POST",
                "path": "/rest/api/2/issueLink",
                "json": {
                    "type": {"name": "Связанные"},
                    "inwardIssue": {"key": "AURORA-1533"},
                    "outwardIssue": {"key": "AURORA-1538"},
                },
            }
        ],
        {"existed": False, "link_id": "(новая)", "removed": []},
        [],
    )


def test_a_new_issue_is_predicted_created_under_its_temp_key() -> None:
    """ensure_issue without a duplicate predicts the POST with every field and the temp key as the result key;
    its gap is that of ensure_issue."""
    first = _first({"type": "ensure_issue", "params": {"temp_key": "new:1", "summary": "Новая", "priority": "High"}})
    assert (first["writes"], seed_result(first["result"]), first["pause_seconds"]) == (
        [
            {
                "method": "POST",
                "path": "/rest/api/2/issue",
                "json": {
                    "fields": {
                        "project": {"key": "AURORA"},
                        "summary": "Новая",
                        "issuetype": {"name": "Задача"},
                        "priority": {"name": "High"},
                    }
                },
            }
        ],
        {"key": "new:1", "created": True},
        120.0,
    )


def test_the_issue_to_be_created_is_a_record_of_its_params() -> None:
    """Under its temp key: the text params, the labels, our user as reporter, created and updated now."""
    command = NewCommand(
        seq=1,
        type="ensure_issue",
        temp_key="new:4",
        params={
            "temp_key": "new:4",
            "summary": "Новая",
            "description": "d",
            "priority": "Low",
            "duedate": "2026-11-01",
            "planned_start": "2026-10-25",
            "planned_end": "2026-10-31",
            "labels": ["AWPCA"],
            "epic_key": "AURORA-1",
            "assignee": "ivanov",
            "issue_type": "task",
        },
    )
    issues = with_issues_to_be_created([command], MIRROR, jira_user="bridge-user", now=NOW)
    assert issues == {
        **MIRROR,
        "new:4": MirrorIssue(
            key="new:4",
            summary="Новая",
            description="d",
            priority="Low",
            duedate="2026-11-01",
            planned_start="2026-10-25",
            planned_end="2026-10-31",
            labels=("AWPCA",),
            epic_key="AURORA-1",
            assignee="ivanov",
            reporter="bridge-user",
            created="2026-10-22T12:00:00Z",
            updated="2026-10-22T12:00:00Z",
        ),
    }
    bare = NewCommand(seq=1, type="ensure_issue", temp_key="new:5", params={"temp_key": "new:5", "summary": 5})
    assert with_issues_to_be_created([bare], {}, jira_user=None, now=NOW)["new:5"] == MirrorIssue(
        key="new:5", created="2026-10-22T12:00:00Z", updated="2026-10-22T12:00:00Z"
    )


def test_the_duplicate_search_sees_only_our_issues_of_the_last_seven_days() -> None:
    """Our issue created exactly 7 days ago is found; a second older, another reporter's, or any while our
    user is unknown, is not (and a temp key's record never is)."""

    def created_key(mirror: dict[str, MirrorIssue], jira_user: str | None) -> Any:
        command = NewCommand(
            seq=1, type="ensure_issue", temp_key="new:1", params={"temp_key": "new:1", "summary": "Отчёт"}
        )
        (prediction,) = predict_commands(
            [command], mirror=mirror, settings=SETTINGS, jira_user=jira_user, symmetric_link_types=frozenset(), now=NOW
        )
        return prediction.result["key"]

    def ours(key: str, created: str, reporter: str = "bridge-user") -> MirrorIssue:
        return MirrorIssue(key=key, summary="Отчёт", reporter=reporter, created=created)

    assert created_key({"A-1": ours("A-1", "2026-10-15T12:00:00+00:00")}, "bridge-user") == "A-1"
    assert created_key({"A-1": ours("A-1", "2026-10-15T11:59:59+00:00")}, "bridge-user") == "new:1"
    assert created_key({"A-1": ours("A-1", "2026-10-21T12:00:00+00:00", "ivanov")}, "bridge-user") == "new:1"
    assert created_key({"A-1": ours("A-1", "2026-10-21T12:00:00+00:00")}, None) == "new:1"
    assert (
        created_key({"A-1": MirrorIssue(key="A-1", summary="Отчёт", reporter="bridge-user")}, "bridge-user") == "new:1"
    )
    # an issue of ours without a summary is a duplicate of no command, whatever its summary says
    untitled = MirrorIssue(key="A-1", summary=None, reporter="bridge-user", created="2026-10-21T12:00:00+00:00")
    for summary in ("Отчёт", "XXXX", "None"):
        command = NewCommand(
            seq=1, type="ensure_issue", temp_key="new:1", params={"temp_key": "new:1", "summary": summary}
        )
        (prediction,) = predict_commands(
            [command],
            mirror={"A-1": untitled},
            settings=SETTINGS,
            jira_user="bridge-user",
            symmetric_link_types=frozenset(),
            now=NOW,
        )
        assert prediction.result["key"] == "new:1"


def test_records_render_back_in_parent_mode_and_without_configured_fields() -> None:
    """issue_to_jira is the inverse of the Jira model whatever the epic mode and the configured fields."""
    parent = attrs.evolve(SETTINGS, epic_link=EpicLink(mode="parent", field_id=None))
    issue = MirrorIssue(key="A-1", epic_key="A-9", planned_start="2026-10-01", labels=("x",))
    assert issue_to_jira(issue, parent)["fields"]["parent"] == {"key": "A-9"}
    assert issue_from_jira(issue_to_jira(issue, parent), parent) == issue
    assert issue_to_jira(MirrorIssue(key="A-1"), parent)["fields"]["parent"] is None
    bare = attrs.evolve(SETTINGS, fields={}, epic_link=EpicLink(mode="field", field_id=None))
    rendered = issue_to_jira(issue, bare)["fields"]
    assert not set(rendered) & {"customfield_10100", "customfield_10104", "customfield_11200", "parent"}


texts = st.text(alphabet=st.sampled_from("аб x\r\n,"), max_size=6)
names = st.none() | st.text(alphabet=st.sampled_from("абвx"), min_size=1, max_size=5)
days = st.none() | st.dates(min_value=date(2000, 1, 1), max_value=date(2100, 12, 31)).map(date.isoformat)
times = st.none() | st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1)).map(
    lambda t: t.strftime("%Y-%m-%dT%H:%M:%SZ")
)
keys = st.integers(min_value=1, max_value=9999).map(lambda n: f"X-{n}")


@st.composite
def mirror_issues(draw: st.DrawFn) -> MirrorIssue:
    key = draw(keys)
    status = draw(names)
    links = tuple(
        MirrorLink(id=str(n), type=draw(st.sampled_from(["Связанные", "Блокирует начало"])), source=a, target=b)
        for n, (a, b) in enumerate(
            draw(st.lists(keys.filter(lambda k: k != key), max_size=3).map(lambda others: [(key, o) for o in others]))
            + draw(st.lists(keys.filter(lambda k: k != key), max_size=3).map(lambda others: [(o, key) for o in others]))
        )
    )
    return MirrorIssue(
        key=key,
        summary=draw(st.none() | texts),
        description=draw(st.none() | texts),
        status=status,
        status_category=draw(names) if status else None,
        priority=draw(names),
        duedate=draw(days),
        planned_start=draw(days),
        planned_end=draw(days),
        labels=tuple(draw(st.lists(st.text(alphabet="abc", min_size=1, max_size=3), max_size=3))),
        epic_key=draw(st.none() | keys),
        assignee=draw(names),
        reporter=draw(names),
        created=draw(times),
        updated=draw(times),
        sprint=draw(
            st.none()
            | st.builds(
                SprintRef,
                id=st.integers(1, 10**6),
                name=st.text(alphabet="аб 2", max_size=4),
                state=st.sampled_from(["active", "future"]),
            )
        ),
        links=links,
    )


@given(mirror_issues(), st.sampled_from(["field", "parent"]))
def test_any_record_renders_to_jira_and_reads_back(issue: MirrorIssue, mode: str) -> None:
    """issue_to_jira is the inverse of issue_from_jira for every field of a record, links either way, in both
    epic modes."""
    settings = SETTINGS if mode == "field" else attrs.evolve(SETTINGS, epic_link=EpicLink(mode="parent", field_id=None))
    assert issue_from_jira(issue_to_jira(issue, settings), settings) == issue


def test_the_tail_refresh_and_the_pauses_inside_a_command() -> None:
    """A refresh reads only: its prediction is done with nothing else. Each write after the first in a command
    adds its gap: three transitions are the command's gap and two more."""
    predictions = predict(
        {"type": "ensure_status", "params": {"key": "AURORA-1533", "target": ["Ревью", "Тест", "Готово"]}}
    )
    assert predictions[1] == {
        "seq": 2,
        "type": "refresh",
        "writes": [],
        "status": "done",
        "result": {},
        "error": None,
        "pause_seconds": 0,
        "unknown": [],
    }
    assert (len(predictions[0]["writes"]), predictions[0]["pause_seconds"]) == (3, 90.0)
