"""One command predicted alone (``predict_command`` without the batch's shared search and context) says exactly
what it says inside its batch; and the mirror's answers to the executors' reads, pinned where a plan depends
on them."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from reconcile.batches.validation import NewCommand
from reconcile.config.settings import Settings
from reconcile.executors import JiraCall
from reconcile.executors import _run as executors_run
from reconcile.outlook import dryrun
from reconcile.outlook.dryrun import predict_command, predict_commands
from reconcile.types.dryrun_answers import (
    ATTACHMENT_ANSWERS,
    COMMENT_ANSWERS,
    LINK_ANSWERS,
    SPRINT_ANSWERS,
    UNKNOWN_SPRINT,
    MirrorView,
)
from reconcile.vocabulary.errors import ValidationError
from reconcile.vocabulary.records import MirrorIssue, MirrorLink, SprintRef

from .test_dryrun import MIRROR, NOW, SETTINGS

LINKS = frozenset({"Связанные"})

COMMANDS: list[tuple[str, dict[str, Any]]] = [
    ("ensure_issue", {"temp_key": "new:1", "summary": "Отчёт"}),
    ("ensure_issue", {"temp_key": "new:2", "summary": "Новая", "labels": ["AWPCA"]}),
    ("ensure_fields", {"key": "AURORA-1533", "duedate": "2026-11-30", "description": "а\nб"}),
    ("ensure_status", {"key": "AURORA-1533", "target": "Готово"}),
    ("ensure_status", {"key": "AURORA-1533", "target": ["Разработка", "Готово"]}),
    ("ensure_link", {"source": "AURORA-1537", "target": "AURORA-1538", "link_type": "связанные", "replace": True}),
    ("ensure_sprint", {"key": "AURORA-1538", "sprint": "Спринт 3"}),
    ("ensure_sprint", {"key": "AURORA-1538", "sprint": "Спринт 2"}),
    ("ensure_comment", {"key": "AURORA-1533", "marker": "[m]", "body": "[m] т"}),
    ("ensure_attachment", {"key": "AURORA-1533", "file": "a" * 64, "filename": "f.txt"}),
    ("ensure_fields", {"key": "AURORA-9", "summary": "нет в зеркале"}),
    ("refresh", {"keys": ["AURORA-1533"]}),
]


@pytest.mark.parametrize(("command_type", "params"), COMMANDS)
@pytest.mark.parametrize("jira_user", ["bridge-user", None])
def test_alone_as_in_its_batch(command_type: str, params: dict[str, Any], jira_user: str | None) -> None:
    temp_key = params.get("temp_key") if command_type == "ensure_issue" else None
    command = NewCommand(seq=4, type=command_type, params=params, temp_key=temp_key)
    [in_batch] = predict_commands(
        [command], mirror=MIRROR, settings=SETTINGS, jira_user=jira_user, symmetric_link_types=LINKS, now=NOW
    )
    alone = predict_command(
        seq=4,
        command_type=command_type,
        params=params,
        issues=MIRROR,
        settings=SETTINGS,
        jira_user=jira_user,
        symmetric_link_types=LINKS,
        now=NOW,
    )
    assert alone == in_batch


def test_a_status_path_skips_the_steps_already_reached() -> None:
    """The mirror offers each step of the target path but the status the issue is already in."""
    [prediction] = predict_commands(
        [NewCommand(seq=1, type="ensure_status", params={"key": "AURORA-1533", "target": ["Разработка", "Готово"]})],
        mirror=MIRROR,
        settings=SETTINGS,
        jira_user="bridge-user",
        symmetric_link_types=LINKS,
        now=NOW,
    )
    assert prediction.result["transitions"] == ["Готово"]
    assert [w["method"] for w in prediction.writes] == ["POST"]


def test_a_single_prediction_runs_the_executor_with_the_settings_given() -> None:
    """Without a context from the caller, the executor reads the settings passed (here another Jira project)."""
    prediction = predict_command(
        seq=1,
        command_type="ensure_issue",
        params={"temp_key": "new:1", "summary": "Отчёт"},
        issues={},
        settings=Settings(jira_project="ZETA"),
        jira_user="bridge-user",
        symmetric_link_types=frozenset(),
        now=NOW,
    )
    assert [w["json"]["fields"]["project"] for w in prediction.writes] == [{"key": "ZETA"}]


def test_a_symmetric_link_found_the_other_way_round_is_no_change() -> None:
    """For a symmetric link type the existing link B → A already is the link A → B: nothing to write."""
    mirror = {
        "A-1": MirrorIssue(key="A-1", links=(MirrorLink(id="7", type="Связанные", source="A-2", target="A-1"),)),
        "A-2": MirrorIssue(key="A-2", links=(MirrorLink(id="7", type="Связанные", source="A-2", target="A-1"),)),
    }
    prediction = predict_command(
        seq=1,
        command_type="ensure_link",
        params={"source": "A-1", "target": "A-2", "link_type": "связанные"},
        issues=mirror,
        settings=Settings(),
        jira_user="bridge-user",
        symmetric_link_types=frozenset({"Связанные"}),
        now=NOW,
    )
    assert (prediction.status, prediction.writes) == ("done", ())


def test_a_type_no_binding_knows_is_predicted_failed_without_a_call() -> None:
    """As the agent would report it: failed, naming the type; nothing written, nothing assumed."""
    prediction = predict_command(
        seq=2,
        command_type="ensure_due",
        params={"key": "AURORA-1533"},
        issues=MIRROR,
        settings=SETTINGS,
        jira_user="bridge-user",
        symmetric_link_types=LINKS,
        now=NOW,
    )
    assert (prediction.status, prediction.error) == ("failed", "неизвестный тип команды ensure_due")
    assert (prediction.writes, prediction.unknown, prediction.beyond) == ((), (), None)


def _batch() -> list[NewCommand]:
    return [
        NewCommand(seq=n, type=command_type, params=params, temp_key=params.get("temp_key"))
        for n, (command_type, params) in enumerate(COMMANDS, start=1)
    ]


def test_a_batch_reads_its_context_and_searches_for_duplicates_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The batch's context, the settings read from it and the duplicate search are made once and handed to every
    command (DESIGN: the dry run's cost), and the predictions are those of each command alone."""
    calls = {"context": 0, "read": 0, "search": 0}

    def counted(name: str, original: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return original(*args, **kwargs)

        return call

    monkeypatch.setattr(Settings, "agent_context", counted("context", Settings.agent_context))
    read = counted("read", executors_run.context_settings)
    monkeypatch.setattr(executors_run, "context_settings", read)
    monkeypatch.setattr(dryrun, "context_settings", read)
    monkeypatch.setattr(dryrun, "_searchable", counted("search", dryrun._searchable))
    predictions = predict_commands(
        _batch(), mirror=MIRROR, settings=SETTINGS, jira_user="bridge-user", symmetric_link_types=LINKS, now=NOW
    )
    assert len(predictions) == len(COMMANDS)
    assert calls == {"context": 1, "read": 1, "search": 1}


def test_a_context_its_executors_cannot_read_fails_every_command_with_the_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As the agent would: each command fails with the settings' refusal, and the dry run goes on to the next."""

    def unreadable(context: Any) -> Settings:
        raise ValidationError("настройки: fields — ожидается объект")

    monkeypatch.setattr(executors_run, "context_settings", unreadable)
    monkeypatch.setattr(dryrun, "context_settings", unreadable)
    predictions = predict_commands(
        _batch(), mirror=MIRROR, settings=SETTINGS, jira_user="bridge-user", symmetric_link_types=LINKS, now=NOW
    )
    driven = [p for p in predictions if p.type != "refresh"]  # the dry run does not drive a refresh
    assert len(driven) == len(COMMANDS) - 1
    assert {(p.status, p.error) for p in driven} == {("failed", "настройки: fields — ожидается объект")}
    assert all(p.writes == () for p in predictions)


def test_the_mirror_answers_the_link_types_the_settings_name() -> None:
    """An agent that has not seen a link type reads Jira's types again: the mirror answers each type the settings
    map a logical name to, once, in order (the dry run's own executors know them already and never ask)."""
    settings = attrs.evolve(SETTINGS, link_types={"связанные": "Связанные", "блокирует": "Блокирует", "b": "Связанные"})
    found = LINK_ANSWERS.find("GET", "/rest/api/2/issueLinkType")
    assert found is not None
    declared, parts = found
    view = MirrorView(issues={}, settings=settings, params={}, searchable={})
    said = declared.reply(JiraCall(method="GET", path="/rest/api/2/issueLinkType"), view, parts)
    assert said.response.ok and said.assumed is None
    assert said.response.json == {"issueLinkTypes": [{"name": "Блокирует"}, {"name": "Связанные"}]}


@pytest.mark.parametrize(
    ("command_type", "params"),
    [
        ("ensure_status", {"key": "AURORA-9", "target": "Готово"}),
        ("ensure_comment", {"key": "AURORA-9", "marker": "[m]", "body": "x"}),
        ("ensure_attachment", {"key": "AURORA-9", "file": "a" * 64, "filename": "f"}),
    ],
)
def test_a_command_on_an_issue_the_mirror_lacks_cannot_be_predicted(command_type: str, params: dict[str, Any]) -> None:
    """Its status, comments or attachments are Jira's 404 for that issue: failed, naming it, nothing written."""
    [prediction] = predict_commands(
        [NewCommand(seq=1, type=command_type, params=params)],
        mirror=MIRROR,
        settings=SETTINGS,
        jira_user="bridge-user",
        symmetric_link_types=LINKS,
        now=NOW,
    )
    assert (prediction.status, prediction.error, prediction.writes) == (
        "failed",
        "HTTP 404: задачи AURORA-9 нет в зеркале — прогноз невозможен",
        (),
    )


def _asked(answers: Any, method: str, path: str, params: dict[str, Any]) -> tuple[int, Any, str | None]:
    found = answers.find(method, path)
    assert found is not None
    declared, parts = found
    issues = {"A-1": MirrorIssue(key="A-1", sprint=SprintRef(id=12, name="Спринт 2", state="active"))}
    view = MirrorView(issues=issues, settings=SETTINGS, params=params, searchable={})
    said = declared.reply(JiraCall(method=method, path=path), view, parts)
    return said.response.status, said.response.json, said.assumed


def test_what_the_mirror_says_of_boards_sprints_comments_and_attachments() -> None:
    """A board is a scrum board; the wanted sprint exists (with the issue's sprint id when it is that one, else the
    id no sprint has), none for the backlog; no comment and no attachment — each assumption named."""
    sprints = "спринты доски зеркалу не известны: спринт считается существующим"
    assert _asked(SPRINT_ANSWERS, "GET", "/rest/agile/1.0/board/7", {"key": "A-1"}) == (
        200,
        {"id": 7, "type": "scrum"},
        None,
    )
    board_sprints = "/rest/agile/1.0/board/7/sprint"
    for params, values in [
        ({"key": "A-1", "sprint": "Спринт 2"}, [{"id": 12, "name": "Спринт 2"}]),
        ({"key": "A-1", "sprint": "Спринт 3"}, [{"id": UNKNOWN_SPRINT, "name": "Спринт 3"}]),
        ({"key": "A-9", "sprint": "Спринт 2"}, [{"id": UNKNOWN_SPRINT, "name": "Спринт 2"}]),
        ({"key": "A-1", "sprint": None}, []),
    ]:
        assert _asked(SPRINT_ANSWERS, "GET", board_sprints, params) == (200, {"values": values}, sprints)
    comments = "комментарии зеркалу не известны: предсказана запись, если комментария с маркером нет"
    assert _asked(COMMENT_ANSWERS, "GET", "/rest/api/2/issue/A-1/comment", {}) == (200, {"comments": []}, comments)
    status, body, assumed = _asked(ATTACHMENT_ANSWERS, "GET", "/rest/api/2/issue/A-1", {})
    assert (status, body["fields"]["attachment"], assumed) == (
        200,
        [],
        "вложения зеркалу не известны: предсказана загрузка",
    )
