"""Plan lines from hand-made predictions: each command type's lines, subjects and unknowns stated exactly (the
end-to-end plans through the dry run are in ``test_plan_lines.py``)."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from reconcile.batches.validation import NewCommand
from reconcile.config.settings import IssueTypeRef, Settings
from reconcile.outlook.dryrun import Prediction
from reconcile.outlook.plan_lines import (
    CHANGE,
    CREATE,
    DELETE,
    FAIL,
    SAME,
    CommandPlan,
    PlanLine,
    plan_command,
    plan_commands,
    temp_key_unknown,
    totals,
)
from reconcile.vocabulary.records import MirrorIssue, MirrorLink, SprintRef

SETTINGS = Settings()
ISSUES = {
    "AURORA-1": MirrorIssue(
        key="AURORA-1",
        summary="Сверка",
        priority="Low",
        status="Открыт",
        labels=("AWPCA", "old"),
        sprint=SprintRef(id=7, name="Спринт 2", state="active"),
        links=(MirrorLink(id="77", type="Связанные", source="AURORA-1", target="AURORA-2"),),
    ),
    "AURORA-2": MirrorIssue(key="AURORA-2"),
}
WRITE = {"method": "PUT", "path": "/rest/api/2/issue/AURORA-1", "json": {}}


def predicted(type_: str, *, writes: tuple[dict[str, Any], ...] = (), **kw: Any) -> Prediction:
    return Prediction(
        seq=1, type=type_, writes=writes, status=kw.pop("status", "done"), result=kw.pop("result", {}), **kw
    )


def planned(
    type_: str,
    params: dict[str, Any],
    prediction: Prediction,
    *,
    created: tuple[str, ...] = (),
    settings: Settings = SETTINGS,
) -> CommandPlan:
    temp_key = params.get("temp_key") if type_ == "ensure_issue" else None
    command = NewCommand(seq=3, type=type_, params=params, temp_key=temp_key)
    return plan_command(command, prediction, issues=ISSUES, settings=settings, created=created)


def lines(plan: CommandPlan) -> list[tuple[str, str, bool]]:
    return [(line.sign, line.text, line.unknown) for line in plan.lines]


def test_a_new_issue_lists_what_it_is_created_with() -> None:
    """Every given field in a fixed order, the assignee last, the type by its Jira name; an empty one left out."""
    params = {
        "temp_key": "new:1",
        "summary": "Отчёт",
        "issue_type": "bug",
        "description": "",
        "priority": "High",
        "duedate": "2026-12-01",
        "planned_start": "2026-11-01",
        "planned_end": "2026-11-30",
        "labels": ["AWPCA", "x"],
        "epic_key": "AURORA-9",
        "assignee": "ivanov",
    }
    plan = planned("ensure_issue", params, predicted("ensure_issue", writes=(WRITE,)), created=("new:1",))
    assert plan.subject == "new:1 «Отчёт»"
    assert (plan.seq, plan.type, plan.writes) == (3, "ensure_issue", (WRITE,))
    assert lines(plan) == [
        (
            CREATE,
            "задача «Отчёт» в AURORA: тип «Ошибка»; приоритет «High»; срок 01.12.2026; плановое начало "
            "01.11.2026; плановое окончание 30.11.2026; метки AWPCA, x; эпик «AURORA-9»; исполнитель «ivanov»",
            True,
        )
    ]
    # the epic is a key the mirror has never seen
    assert plan.unknown == (
        temp_key_unknown("new:1"),
        "задачи AURORA-9 нет в зеркале — обновите зеркало (refresh), чтобы увидеть план",
    )


def test_an_issue_type_by_id_or_unknown_to_the_settings() -> None:
    """A type configured by id only shows the id; a type the settings do not name shows the logical name."""
    by_id = attrs.evolve(SETTINGS, issue_types={"task": IssueTypeRef(id="10002")})
    plan = planned(
        "ensure_issue",
        {"temp_key": "new:1", "summary": "S"},
        predicted("ensure_issue", writes=(WRITE,)),
        settings=by_id,
    )
    assert lines(plan) == [(CREATE, "задача «S» в AURORA: тип «10002»", True)]
    plan = planned(
        "ensure_issue",
        {"temp_key": "new:1", "summary": "S", "issue_type": "story"},
        predicted("ensure_issue", writes=(WRITE,)),
    )
    assert lines(plan) == [(CREATE, "задача «S» в AURORA: тип «story»", True)]
    # not among the keys still to be created: the key is not unknown
    assert plan.unknown == ()


def test_an_issue_found_reads_as_no_changes_with_its_key() -> None:
    plan = planned(
        "ensure_issue",
        {"temp_key": "new:1", "summary": "Отчёт"},
        predicted("ensure_issue", result={"key": "AURORA-1600"}),
        created=("new:1",),
    )
    assert lines(plan) == [(SAME, "нет изменений: задача «Отчёт» уже есть — AURORA-1600", False)]
    assert plan.unknown == ()


def test_labels_added_and_removed_are_one_line_before_and_after() -> None:
    """labels_add and labels_remove make one line: the labels before, and after (added ones last, removed gone)."""
    params = {"key": "AURORA-1", "labels_add": ["new", "AWPCA"], "labels_remove": ["old"], "priority": "High"}
    result = {"changed": ["priority", "labels_add", "labels_remove"]}
    plan = planned("ensure_fields", params, predicted("ensure_fields", writes=(WRITE,), result=result))
    assert plan.subject == "AURORA-1"
    assert lines(plan) == [
        (CHANGE, "приоритет: «Low» → «High»", False),
        (CHANGE, "метки: AWPCA, old → AWPCA, new", False),
    ]


def test_fields_of_an_issue_the_mirror_lacks_read_from_empty() -> None:
    params = {"key": "AURORA-5", "labels_remove": ["x"], "summary": "S"}
    plan = planned(
        "ensure_fields",
        params,
        predicted("ensure_fields", writes=(WRITE,), result={"changed": ["summary", "labels_remove"]}),
    )
    assert lines(plan) == [(CHANGE, "тема: пусто → «S»", False), (CHANGE, "метки: пусто → пусто", False)]
    assert plan.unknown == ("задачи AURORA-5 нет в зеркале — обновите зеркало (refresh), чтобы увидеть план",)


def test_a_comment_created_updated_or_removed() -> None:
    """The mirror holds no comments: a POST creates («+»), a PUT changes the comment that carries the marker («~»),
    a removal deletes it only if the agent wrote it («-»), each unknown; none written means the comment is there."""
    post = {"method": "POST", "path": "/rest/api/2/issue/AURORA-1/comment", "json": {"body": "[m] текст"}}
    put = {"method": "PUT", "path": "/rest/api/2/issue/AURORA-1/comment/5", "json": {"body": "[m] новый\r\nтекст"}}
    params = {"key": "AURORA-1", "marker": "[m]", "body": "b"}
    assert lines(planned("ensure_comment", params, predicted("ensure_comment", writes=(post,)))) == [
        (CREATE, "комментарий «[m] текст»", True)
    ]
    assert lines(planned("ensure_comment", params, predicted("ensure_comment", writes=(put,)))) == [
        (CHANGE, "комментарий с меткой «[m]» → «[m] новый ⏎ текст»", True)
    ]
    assert lines(planned("ensure_comment", params, predicted("ensure_comment"))) == [
        (SAME, "нет изменений: комментарий с меткой «[m]» есть", False)
    ]
    removal = {"key": "AURORA-1", "marker": "[m]", "absent": True}
    assert lines(planned("ensure_comment", removal, predicted("ensure_comment"))) == [
        (DELETE, "комментарий с меткой «[m]», если он есть и написан агентом", True)
    ]


def test_a_status_path_and_a_status_reached() -> None:
    params = {"key": "AURORA-1", "target": "Готово"}
    plan = planned(
        "ensure_status",
        params,
        predicted("ensure_status", writes=(WRITE, WRITE), result={"transitions": ["В работу", "Готово"]}),
    )
    assert lines(plan) == [(CHANGE, "статус: «Открыт» → «В работу» → «Готово»", True)]
    assert lines(planned("ensure_status", params, predicted("ensure_status"))) == [
        (SAME, "нет изменений: статус уже «Открыт»", False)
    ]


def test_a_link_deleted_and_one_created() -> None:
    """A DELETE names the link the mirror knows (type and ends), else only its id; a POST names the Jira type."""
    params = {"source": "AURORA-1", "target": "AURORA-2", "link_type": "блокирует начало", "replace": True}
    delete_known = {"method": "DELETE", "path": "/rest/api/2/issueLink/77"}
    delete_unknown = {"method": "DELETE", "path": "/rest/api/2/issueLink/99"}
    post = {"method": "POST", "path": "/rest/api/2/issueLink", "json": {}}
    plan = planned("ensure_link", params, predicted("ensure_link", writes=(delete_known, delete_unknown, post)))
    assert plan.subject == "AURORA-1 → AURORA-2"
    assert lines(plan) == [
        (DELETE, "связь «Связанные» AURORA-1 → AURORA-2 (id 77)", False),
        (DELETE, "связь (id 99)", False),
        (CREATE, "связь «Блокирует начало» AURORA-1 → AURORA-2", False),
    ]
    assert lines(planned("ensure_link", params, predicted("ensure_link"))) == [
        (SAME, "нет изменений: связь «Блокирует начало» AURORA-1 → AURORA-2 есть", False)
    ]


def test_a_link_to_an_issue_still_to_be_created_is_unknown() -> None:
    """Either end a temp key: the created link is unknown; an unknown link type is shown as given."""
    post = {"method": "POST", "path": "/rest/api/2/issueLink", "json": {}}
    for source, target in (("new:1", "AURORA-2"), ("AURORA-1", "new:1")):
        params = {"source": source, "target": target, "link_type": "дублирует"}
        plan = planned("ensure_link", params, predicted("ensure_link", writes=(post,)), created=("new:1",))
        assert lines(plan) == [(CREATE, f"связь «дублирует» {source} → {target}", True)]
        assert plan.unknown == (temp_key_unknown("new:1"),)


def test_a_failed_link_has_no_no_changes_line() -> None:
    """A link command that fails says only the error: no «нет изменений» beside it."""
    params = {"source": "AURORA-1", "target": "AURORA-2", "link_type": "связанные"}
    plan = planned("ensure_link", params, predicted("ensure_link", status="failed", error="конфликт"))
    assert lines(plan) == [(FAIL, "ошибка: конфликт", False)]


def test_sprints_and_the_backlog() -> None:
    """Into a sprint: unknown, and the sprint id is the agent's to find; into the backlog (or null): known."""
    into = planned(
        "ensure_sprint", {"key": "AURORA-1", "sprint": "Спринт 3"}, predicted("ensure_sprint", writes=(WRITE,))
    )
    assert lines(into) == [(CHANGE, "спринт: «Спринт 2» → «Спринт 3»", True)]
    assert into.unknown == ("id спринта агент найдёт по имени на доске проекта",)
    out = planned(
        "ensure_sprint", {"key": "AURORA-2", "sprint": "backlog"}, predicted("ensure_sprint", writes=(WRITE,))
    )
    assert lines(out) == [(CHANGE, "спринт: бэклог → бэклог", False)]  # a write the mirror did not foresee
    assert out.unknown == ()
    null = planned("ensure_sprint", {"key": "AURORA-1", "sprint": None}, predicted("ensure_sprint", writes=(WRITE,)))
    assert lines(null) == [(CHANGE, "спринт: «Спринт 2» → бэклог", False)]
    from_backlog = planned(
        "ensure_sprint", {"key": "AURORA-2", "sprint": "Спринт 3"}, predicted("ensure_sprint", writes=(WRITE,))
    )
    assert lines(from_backlog) == [(CHANGE, "спринт: бэклог → «Спринт 3»", True)]
    kept = planned("ensure_sprint", {"key": "AURORA-2", "sprint": "backlog"}, predicted("ensure_sprint"))
    assert lines(kept) == [(SAME, "нет изменений: бэклог", False)]
    still = planned("ensure_sprint", {"key": "AURORA-1", "sprint": "Спринт 2"}, predicted("ensure_sprint"))
    assert lines(still) == [(SAME, "нет изменений: спринт «Спринт 2»", False)]
    assert null.unknown == ()
    same = planned("ensure_sprint", {"key": "AURORA-1", "sprint": "Спринт 2"}, predicted("ensure_sprint"))
    assert lines(same) == [(SAME, "нет изменений: спринт «Спринт 2»", False)]
    assert same.unknown == ()


def test_attachments() -> None:
    params = {"key": "AURORA-1", "file": "a" * 64, "filename": "f.xlsx"}
    assert lines(planned("ensure_attachment", params, predicted("ensure_attachment", writes=(WRITE,)))) == [
        (CREATE, "вложение «f.xlsx»", True)
    ]
    assert lines(planned("ensure_attachment", params, predicted("ensure_attachment"))) == [
        (SAME, "нет изменений: вложение «f.xlsx» есть", False)
    ]


def test_a_refresh_reads_only_and_names_its_keys_or_jql() -> None:
    by_keys = planned("refresh", {"keys": ["AURORA-1", "AURORA-2"]}, predicted("refresh"))
    assert by_keys.subject == "AURORA-1, AURORA-2"
    assert lines(by_keys) == [(SAME, "нет изменений: только чтение Jira в зеркало", False)]
    assert planned("refresh", {"jql": "project = AURORA"}, predicted("refresh")).subject == "JQL «project = AURORA»"


def test_a_failure_keeps_the_writes_before_it_and_drops_no_changes() -> None:
    """A command that would fail after some writes shows them, then «!» with the error."""
    params = {"key": "AURORA-1", "target": "Готово"}
    prediction = predicted(
        "ensure_status", writes=(WRITE,), status="failed", error="нет перехода", result={"transitions": ["В работу"]}
    )
    assert lines(planned("ensure_status", params, prediction)) == [
        (CHANGE, "статус: «Открыт» → «В работу»", True),
        (FAIL, "ошибка: нет перехода", False),
    ]
    done_with_error = predicted("ensure_fields", error="предупреждение", result={"changed": []})
    assert lines(planned("ensure_fields", {"key": "AURORA-1"}, done_with_error)) == [
        (FAIL, "ошибка: предупреждение", False)
    ]


def test_a_line_on_a_key_still_to_be_created_becomes_unknown() -> None:
    """Every line but «нет изменений» of a command that names a temp key the batch creates is unknown; each temp
    key is said once, before the prediction's own unknowns."""
    params = {"key": "new:2", "priority": "High"}
    prediction = predicted("ensure_fields", writes=(WRITE,), result={"changed": ["priority"]}, unknown=("своё",))
    plan = planned("ensure_fields", params, prediction, created=("new:2",))
    assert lines(plan) == [(CHANGE, "приоритет: пусто → «High»", True)]
    assert plan.unknown == (temp_key_unknown("new:2"), "своё")
    same = planned("ensure_fields", params, predicted("ensure_fields", result={"changed": []}), created=("new:2",))
    assert lines(same) == [(SAME, "нет изменений", False)]


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (None, "пусто"),
        ("", "пусто"),
        ([], "пусто"),
        (["a", "b"], "a, b"),
        ("x" * 80, "«" + "x" * 80 + "»"),
        ("x" * 81, "«" + "x" * 79 + "…»"),
        ("a\r\nb\nc", "«a ⏎ b ⏎ c»"),
    ],
)
def test_values_as_a_person_reads_them(value: Any, shown: str) -> None:
    """Empty is «пусто», lists are joined, texts quoted, cut at 80 characters with …, line breaks visible."""
    plan = planned(
        "ensure_fields",
        {"key": "AURORA-2", "summary": value},
        predicted("ensure_fields", writes=(WRITE,), result={"changed": ["summary"]}),
    )
    assert lines(plan) == [(CHANGE, f"тема: пусто → {shown}", False)]


def test_plans_of_a_batch_know_its_temp_keys_and_its_skips() -> None:
    """The temp keys still to be created are those of the batch's ensure_issue commands; a skip by seq."""
    issue = NewCommand(seq=1, type="ensure_issue", params={"temp_key": "new:1", "summary": "S"}, temp_key="new:1")
    comment = NewCommand(seq=2, type="ensure_comment", params={"key": "new:1", "marker": "m", "body": "b"})
    skipped = NewCommand(seq=3, type="ensure_comment", params={"key": "new:9", "marker": "m", "body": "b"})
    post = {"method": "POST", "path": "/rest/api/2/issue/new:1/comment", "json": {"body": "b"}}
    plans = plan_commands(
        [issue, comment, skipped],
        [predicted("ensure_issue", writes=(WRITE,)), predicted("ensure_comment", writes=(post,)), None],
        issues=ISSUES,
        settings=SETTINGS,
        skips={3: "создание задачи new:9 отменено"},
    )
    assert [p.unknown for p in plans] == [(temp_key_unknown("new:1"),), (temp_key_unknown("new:1"),), ()]
    assert plans[2].lines == (PlanLine(sign=FAIL, text="пропуск: создание задачи new:9 отменено"),)
    assert totals(plans) == {CREATE: 2, CHANGE: 0, DELETE: 0}


def test_totals_count_each_kind() -> None:
    plan = CommandPlan(
        seq=1,
        type="ensure_link",
        subject="",
        lines=(
            PlanLine(sign=DELETE, text=""),
            PlanLine(sign=DELETE, text=""),
            PlanLine(sign=CREATE, text=""),
            PlanLine(sign=SAME, text=""),
            PlanLine(sign=FAIL, text=""),
            PlanLine(sign=CHANGE, text=""),
        ),
    )
    assert totals([plan, plan]) == {CREATE: 2, CHANGE: 2, DELETE: 4}


def test_the_plan_of_an_attachment() -> None:
    """A removal names the file (its sha256's first twelve characters without a name) and is «unknown»."""
    sha = "ab" * 32
    named = {"key": "AURORA-1", "file": sha, "filename": "f.txt"}
    upload = {"method": "POST", "path": "/rest/api/2/issue/AURORA-1/attachments"}
    assert lines(planned("ensure_attachment", {**named, "absent": True}, predicted("ensure_attachment"))) == [
        (DELETE, "вложение «f.txt», если его добавил агент", True)
    ]
    unnamed = {"key": "AURORA-1", "file": sha, "absent": True}
    assert lines(planned("ensure_attachment", unnamed, predicted("ensure_attachment"))) == [
        (DELETE, "вложение файл abababababab…, если его добавил агент", True)
    ]
    assert lines(planned("ensure_attachment", named, predicted("ensure_attachment"))) == [
        (SAME, "нет изменений: вложение «f.txt» есть", False)
    ]
    assert lines(planned("ensure_attachment", named, predicted("ensure_attachment", writes=(upload,)))) == [
        (CREATE, "вложение «f.txt»", True)
    ]


def test_a_link_already_as_wanted_says_so_either_way() -> None:
    """Nothing to write: the link is there, or (``present: false``) it is not."""
    link = {"source": "AURORA-1", "target": "AURORA-2", "link_type": "связанные"}
    assert lines(planned("ensure_link", link, predicted("ensure_link"))) == [
        (SAME, "нет изменений: связь «Связанные» AURORA-1 → AURORA-2 есть", False)
    ]
    assert lines(planned("ensure_link", {**link, "present": False}, predicted("ensure_link"))) == [
        (SAME, "нет изменений: связи «Связанные» AURORA-1 → AURORA-2 нет", False)
    ]


def test_what_an_only_if_unchanged_command_would_leave_is_named() -> None:
    """Jira no longer holds the value the command expects: the plan says what it holds and what was expected."""
    due = {"field": "duedate", "expected": "2026-10-01", "found": "2026-11-01"}
    fields = {"key": "AURORA-1", "duedate": "2026-12-01", "if_unchanged": {"duedate": "2026-10-01"}}
    assert lines(
        planned("ensure_fields", fields, predicted("ensure_fields", result={"changed": [], "conflicts": [due]}))
    ) == [(SAME, "срок не изменён: в Jira 01.11.2026, ожидалось 01.10.2026", False)]
    status = {"field": "status", "expected": "Ревью", "found": "Открыт"}
    target = {"key": "AURORA-1", "target": "Готово", "if_unchanged": {"status": "Ревью"}}
    assert lines(planned("ensure_status", target, predicted("ensure_status", result={"conflicts": [status]}))) == [
        (SAME, "статус не изменён: в Jira «Открыт», ожидалось «Ревью»", False)
    ]
