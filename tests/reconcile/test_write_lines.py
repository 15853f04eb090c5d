"""Writes as the plan lines a person approves (DESIGN.md 6.5, reconcile.types.write_lines and
reconcile.outlook.approved_plan): the dry run maps them from the mirror, the agent's check maps the same executor's
writes from Jira and drops a command before a write nobody approved."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconcile.batches.validation import NewCommand
from reconcile.config.settings import EpicLink, Settings
from reconcile.executors import Delivery, ExecContext, JiraCall, JiraResponse, Report
from reconcile.executors.base import Dropped, Step, Upload
from reconcile.executors.drive import drive
from reconcile.outlook.approved_plan import PlanSnapshot, approved_for, expired, line_words, plan_digest, snapshot
from reconcile.outlook.dryrun import predict_commands
from reconcile.types.binding import executor_for
from reconcile.types.write_lines import UNKNOWN, Difference, PlanCheck, Reads, WriteLine, lines_of_write
from reconcile.vocabulary.records import MirrorIssue, MirrorLink
from tests.support import T0

SETTINGS = Settings()
CONTEXT = SETTINGS.agent_context()
FIELDS = {"key": "AURORA-1", "summary": "Сверка v2", "duedate": "2026-11-01", "labels_add": ["plan"]}


def planned(params: dict[str, Any], mirror: MirrorIssue, command_type: str = "ensure_fields") -> list[WriteLine]:
    [prediction] = predict_commands(
        [NewCommand(seq=1, type=command_type, params=params)],
        mirror={mirror.key: mirror},
        settings=SETTINGS,
        jira_user="bridge-user",
        symmetric_link_types=frozenset(),
        now=T0,
    )
    return list(prediction.lines)


def jira_issue(summary: str, duedate: str | None = None) -> dict[str, Any]:
    return {"key": "AURORA-1", "fields": {"summary": summary, "duedate": duedate, "labels": [], "issuelinks": []}}


def agent_run(
    params: dict[str, Any], approved: list[WriteLine], jira: dict[str, Any]
) -> tuple[list[Step], PlanCheck, Report]:
    """The agent's check around ``ensure_fields`` against a Jira holding ``jira``: the steps the driver got."""
    check = PlanCheck(params=params, approved=approved, reads=Reads(SETTINGS))
    delivery = Delivery(id=1, type="ensure_fields", params=params, pause_seconds=0, context=CONTEXT)
    steps: list[Step] = []

    def answer(step: Step) -> Any:
        steps.append(step)
        if isinstance(step, JiraCall) and step.method == "GET":
            return JiraResponse(status=200, json=jira)
        return JiraResponse(status=204)

    report = drive(check.watch(executor_for(delivery, ExecContext())), answer)
    return steps, check, report


def test_the_dry_run_maps_each_write_into_lines() -> None:
    """One PUT of ensure_fields: a line per field with the mirror's value before, a line per label verb."""
    lines = planned(FIELDS, MirrorIssue(key="AURORA-1", summary="Сверка", duedate="2026-10-23"))
    assert [line.to_json() for line in lines] == [
        {"key": "AURORA-1", "aspect": "summary", "from": "Сверка", "to": "Сверка v2"},
        {"key": "AURORA-1", "aspect": "duedate", "from": "2026-10-23", "to": "2026-11-01"},
        {"key": "AURORA-1", "aspect": "labels", "to": {"add": "plan"}},
    ]


def test_the_agent_writes_what_was_approved() -> None:
    """Jira as the mirror said: the PUT goes to the driver, nothing is found stale."""
    approved = planned(FIELDS, MirrorIssue(key="AURORA-1", summary="Сверка", duedate="2026-10-23"))
    steps, check, _ = agent_run(FIELDS, approved, jira_issue("Сверка", "2026-10-23"))
    assert [(s.method, s.path) for s in steps if isinstance(s, JiraCall)] == [
        ("GET", "/rest/api/2/issue/AURORA-1"),
        ("PUT", "/rest/api/2/issue/AURORA-1"),
    ]
    assert check.differences == []


def test_a_write_from_another_value_is_never_made() -> None:
    """A person renamed AURORA-1 after approval: the PUT never reaches the driver, the command fails with the
    difference in words, and the check keeps it for the stale_plan report."""
    approved = planned(FIELDS, MirrorIssue(key="AURORA-1", summary="Сверка", duedate="2026-10-23"))
    steps, check, report = agent_run(FIELDS, approved, jira_issue("Сверка (переименована)", "2026-10-23"))
    assert [s.method for s in steps if isinstance(s, JiraCall)] == ["GET"]
    assert (report.status, report.operations) == ("failed", ())
    assert report.error == "план изменился после одобрения: AURORA-1: summary изменилась в Jira после одобрения"
    assert [d.to_json()["text"] for d in check.differences] == ["AURORA-1: summary изменилась в Jira после одобрения"]


def test_every_difference_of_a_write_is_named_in_its_error() -> None:
    """Both the summary and the date moved in Jira after approval: the error names each, «; » between them."""
    approved = planned(FIELDS, MirrorIssue(key="AURORA-1", summary="Сверка", duedate="2026-10-23"))
    _, check, report = agent_run(FIELDS, approved, jira_issue("Сверка (переименована)", "2026-10-30"))
    texts = [d.to_json()["text"] for d in check.differences]
    assert texts == [
        "AURORA-1: summary изменилась в Jira после одобрения",
        "AURORA-1: duedate изменилась в Jira после одобрения",
    ]
    assert report.error == (
        "план изменился после одобрения: AURORA-1: summary изменилась в Jira после одобрения; "
        "AURORA-1: duedate изменилась в Jira после одобрения"
    )


def test_a_write_of_another_aspect_is_never_made() -> None:
    """The plan wrote only the summary (the date was already right); Jira's date moved since: the date's line
    was never approved."""
    params = {"key": "AURORA-1", "summary": "Сверка v2", "duedate": "2026-11-01"}
    approved = planned(params, MirrorIssue(key="AURORA-1", summary="Сверка", duedate="2026-11-01"))
    _, check, _ = agent_run(params, approved, jira_issue("Сверка", "2026-10-01"))
    assert [d.to_json()["text"] for d in check.differences] == ["AURORA-1: запись duedate не была одобрена"]


def test_nothing_approved_means_nothing_written() -> None:
    """An empty approval (the plan found nothing to do) lets no write through."""
    params = {"key": "AURORA-1", "summary": "Сверка v2"}
    steps, check, _ = agent_run(params, [], jira_issue("Сверка"))
    assert [s.method for s in steps if isinstance(s, JiraCall)] == ["GET"]
    assert len(check.differences) == 1


def test_a_creation_where_found_was_approved_is_refused() -> None:
    """ensure_issue approved as «найдена» (no lines): its POST /issue is a difference."""
    line = WriteLine(key="new:1", aspect="issue", before=None, after="Новая")
    check = PlanCheck(params={"temp_key": "new:1"}, approved=[], reads=Reads(SETTINGS))
    assert check.refusal(JiraCall(method="POST", path="/rest/api/2/issue", json={"fields": {"summary": "Новая"}}))
    assert [d.found for d in check.differences] == [line]
    assert [d.to_json()["text"] for d in check.differences] == ["new:1: задачи нет в Jira — одобрено, что она найдена"]


@given(st.text(max_size=20), st.text(alphabet="абвгд xyz", min_size=1, max_size=20))
def test_a_line_the_plan_could_not_vouch_for_matches_any_before(found: str, written: str) -> None:
    """A line on an issue yet to be created vouches only for what is written: any value before matches it."""
    approved = WriteLine(key="AURORA-9", aspect="description", after=written)
    assert approved.before is UNKNOWN
    check = PlanCheck(params={}, approved=[approved], reads=Reads(SETTINGS))
    check.reads.issues["AURORA-9"] = {"key": "AURORA-9", "fields": {"description": found}}
    put = JiraCall(method="PUT", path="/rest/api/2/issue/AURORA-9", json={"fields": {"description": written}})
    assert check.refusal(put) is None


def test_the_plan_of_a_batch_its_digest_and_each_commands_lines() -> None:
    """The snapshot: lines with their seq (a command naming an issue yet to be created vouches for no before),
    its digest the sha256 of their canonical JSON; a delivery gets its command's lines, temp keys replaced."""
    commands = [
        NewCommand(seq=1, type="ensure_issue", params={"temp_key": "new:1", "summary": "Новая"}, temp_key="new:1"),
        NewCommand(seq=2, type="ensure_fields", params={"key": "new:1", "duedate": "2026-11-01"}),
    ]
    predictions = predict_commands(
        commands, mirror={}, settings=SETTINGS, jira_user="u", symmetric_link_types=frozenset(), now=T0
    )
    plan = snapshot(commands, predictions, to_be_created=["new:1"], now=T0)
    assert list(plan.lines) == [
        {"seq": 1, "key": "new:1", "aspect": "issue", "from": None, "to": "Новая"},
        {"seq": 2, "key": "new:1", "aspect": "duedate", "to": "2026-11-01"},
    ]
    assert plan.digest == plan_digest(list(plan.lines))
    assert plan.digest != plan_digest([*plan.lines, plan.lines[0]])
    assert approved_for(plan, 2, resolved_temp_keys={"new:1": "AURORA-9"}) == [
        {"key": "AURORA-9", "aspect": "duedate", "to": "2026-11-01"}
    ]
    assert [line_words(line) for line in plan.lines] == ["new:1 + задача «Новая»", "new:1 ~ срок: ? → 01.11.2026"]


def test_an_approval_lapses_only_without_a_delivery() -> None:
    """approval_ttl_hours: lapsed at the hour, not before, and never once something was delivered since."""
    assert not expired(T0, delivered_since=False, now=T0 + timedelta(hours=72) - timedelta(seconds=1), ttl_hours=72)
    assert expired(T0, delivered_since=False, now=T0 + timedelta(hours=72), ttl_hours=72)
    assert not expired(T0, delivered_since=True, now=T0 + timedelta(days=30), ttl_hours=72)


def test_a_line_reads_back_from_its_json() -> None:
    """``from`` only when the plan vouches for the value before; without it the line vouches for nothing."""
    vouched = WriteLine(key="AURORA-1", aspect="duedate", after="2026-11-01", before=None)
    assert vouched.to_json() == {"key": "AURORA-1", "aspect": "duedate", "to": "2026-11-01", "from": None}
    assert WriteLine.from_json(vouched.to_json()) == vouched
    unvouched = vouched.vouching_nothing_before()
    assert unvouched.to_json() == {"key": "AURORA-1", "aspect": "duedate", "to": "2026-11-01"}
    assert WriteLine.from_json(unvouched.to_json()).before is UNKNOWN
    assert WriteLine.from_json({"key": 7, "aspect": None}) == WriteLine(key="7", aspect="None", after=None)
    assert repr(UNKNOWN) == "UNKNOWN"


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ({"key": "A-1", "aspect": "issue", "to": "Сверка"}, "A-1 + задача «Сверка»"),
        ({"key": "A-1", "aspect": "labels", "to": {"add": "x"}}, "A-1 + метка «x»"),
        ({"key": "A-1", "aspect": "labels", "to": {"remove": "x"}}, "A-1 - метка «x»"),
        ({"key": "A-1", "aspect": "labels", "to": "x"}, "A-1 ~ метки: ? → «x»"),
        ({"key": "A-1", "aspect": "comment", "to": "[m] текст"}, "A-1 + комментарий «[m] текст»"),
        ({"key": "A-1", "aspect": "attachment", "to": "f.txt"}, "A-1 + вложение «f.txt»"),
        ({"key": "A-1", "aspect": "sprint", "to": "Спринт 2"}, "A-1 ~ спринт: ? → «Спринт 2»"),
        ({"key": "A-1", "aspect": "sprint", "to": None, "from": "Спринт 1"}, "A-1 ~ спринт: «Спринт 1» → «бэклог»"),
        ({"key": "A-1", "aspect": "sprint", "to": "Спринт 2", "from": None}, "A-1 ~ спринт: «бэклог» → «Спринт 2»"),
        ({"key": "A-1", "aspect": "status", "to": "Готово", "from": "Ревью"}, "A-1 ~ статус: «Ревью» → «Готово»"),
        ({"key": "A-1", "aspect": "status", "to": "Готово"}, "A-1 ~ статус: ? → «Готово»"),
        ({"key": "A-1", "aspect": "duedate", "to": "2026-11-01"}, "A-1 ~ срок: ? → 01.11.2026"),
        (
            {"key": "A-1", "aspect": "summary", "to": "Сверка v2", "from": "Сверка"},
            "A-1 ~ тема: «Сверка» → «Сверка v2»",
        ),
        ({"key": "A-1", "aspect": "summary", "to": "Сверка v2", "from": None}, "A-1 ~ тема: пусто → «Сверка v2»"),
    ],
)
def test_a_plan_line_in_words(line: dict[str, Any], words: str) -> None:
    """Each aspect as the approver reads it: «?» where the plan cannot vouch for the value before, the backlog by
    name."""
    assert line_words(line) == words


def test_the_lines_of_link_and_sprint_writes() -> None:
    """A link created is a line of its source (type, source, target); one deleted names what it was when the
    executor read it, else its id and the command's source; a move to a sprint is one line per issue, named by the
    board's sprint names (the command's sprint when the board was not read), the backlog as none."""
    link = MirrorLink(id="5", type="Связанные", source="A-1", target="A-2")
    reads = Reads(
        Settings(),
        links={"5": link},
        sprint={"A-1": "Спринт 1", "A-2": None},
        sprint_names={"12": "Спринт 2"},
    )
    params = {"source": "A-9", "sprint": "Спринт 7"}

    def lines(method: str, path: str, json: Any = None) -> list[WriteLine]:
        return lines_of_write(JiraCall(method=method, path=path, json=json), params=params, reads=reads)

    made = {"type": {"name": "Связанные"}, "inwardIssue": {"key": "A-1"}, "outwardIssue": {"key": "A-2"}}
    as_link = {"type": "Связанные", "source": "A-1", "target": "A-2"}
    assert lines("POST", "/rest/api/2/issueLink", made) == [
        WriteLine(key="A-1", aspect="link", before=None, after=as_link)
    ]
    assert lines("DELETE", "/rest/api/2/issueLink/5") == [
        WriteLine(key="A-1", aspect="link", before=as_link, after=None)
    ]
    assert lines("DELETE", "/rest/api/2/issueLink/6") == [
        WriteLine(key="A-9", aspect="link", before={"id": "6"}, after=None)
    ]
    assert lines("POST", "/rest/agile/1.0/sprint/12/issue", {"issues": ["A-1", "A-2"]}) == [
        WriteLine(key="A-1", aspect="sprint", before="Спринт 1", after="Спринт 2"),
        WriteLine(key="A-2", aspect="sprint", before=None, after="Спринт 2"),
    ]
    assert lines("POST", "/rest/agile/1.0/sprint/13/issue", {"issues": ["A-1"]}) == [
        WriteLine(key="A-1", aspect="sprint", before="Спринт 1", after="Спринт 7")
    ]
    assert lines("POST", "/rest/agile/1.0/backlog/issue", {"issues": ["A-1"]}) == [
        WriteLine(key="A-1", aspect="sprint", before="Спринт 1", after=None)
    ]
    assert lines("POST", "/rest/agile/1.0/backlog/issue", {}) == []
    # anything else on those paths is a write no rule knows: one line naming it
    assert lines("PUT", "/rest/api/2/issueLink/5", {"x": 1}) == [
        WriteLine(key="", aspect="PUT /rest/api/2/issueLink/5", after={"x": 1})
    ]
    assert lines("POST", "/rest/agile/1.0/sprint/12", {"name": "x"}) == [
        WriteLine(key="", aspect="POST /rest/agile/1.0/sprint/12", after="x")
    ]
    assert lines("GET", "/rest/api/2/issueLink") == [WriteLine(key="", aspect="GET /rest/api/2/issueLink", after=None)]


def test_a_skipped_command_has_no_lines_and_the_others_keep_theirs() -> None:
    """A command predicted ``None`` (it will be skipped) gives no line; one on an issue that exists vouches for the
    value before, even after a command on an issue yet to be created; the plan is of the moment given."""
    commands = [
        NewCommand(seq=1, type="ensure_fields", params={"key": "new:2", "duedate": "2026-11-01"}),
        NewCommand(seq=2, type="ensure_fields", params={"key": "new:1", "duedate": "2026-11-01"}),
        NewCommand(seq=3, type="ensure_fields", params={"key": "AURORA-1", "duedate": "2026-11-01"}),
    ]
    mirror = {"AURORA-1": MirrorIssue(key="AURORA-1", duedate="2026-10-01"), "new:1": MirrorIssue(key="new:1")}
    predictions = predict_commands(
        commands[1:], mirror=mirror, settings=SETTINGS, jira_user="u", symmetric_link_types=frozenset(), now=T0
    )
    later = T0 + timedelta(minutes=5)
    plan = snapshot(commands, [None, *predictions], to_be_created=["new:1"], now=later)
    assert list(plan.lines) == [
        {"seq": 2, "key": "new:1", "aspect": "duedate", "to": "2026-11-01"},
        {"seq": 3, "key": "AURORA-1", "aspect": "duedate", "from": "2026-10-01", "to": "2026-11-01"},
    ]
    assert plan.at == later
    with pytest.raises(ValueError):
        snapshot(commands, predictions, to_be_created=[], now=T0)


def test_a_delivery_gets_its_lines_with_every_temp_key_created_since_replaced() -> None:
    """In lists and objects at any depth; a temp key not created yet, and any other text, stay as they are."""
    line = {
        "seq": 4,
        "key": "new:1",
        "aspect": "link",
        "to": {"source": "new:1", "target": "new:2", "path": ["new:1", "AURORA-5", 7]},
    }
    plan = PlanSnapshot(digest="d", lines=(line, {**line, "seq": 5}), at=T0)
    assert approved_for(plan, 4, resolved_temp_keys={"new:1": "AURORA-9", "AURORA-5": "AURORA-6"}) == [
        {
            "key": "AURORA-9",
            "aspect": "link",
            "to": {"source": "AURORA-9", "target": "new:2", "path": ["AURORA-9", "AURORA-5", 7]},
        }
    ]


def test_a_difference_as_the_stale_report_carries_it() -> None:
    """The line found now beside the approved one of the same issue and aspect (if any), and the words for it."""
    approved = WriteLine(key="A-1", aspect="summary", after="x", before="y")
    found = WriteLine(key="A-1", aspect="summary", after="x", before="z")
    assert Difference(found=found, approved=approved).to_json() == {
        "key": "A-1",
        "aspect": "summary",
        "now": {"key": "A-1", "aspect": "summary", "to": "x", "from": "z"},
        "approved": {"key": "A-1", "aspect": "summary", "to": "x", "from": "y"},
        "text": "A-1: summary изменилась в Jira после одобрения",
    }
    unapproved = Difference(found=WriteLine(key="A-1", aspect="duedate", after="2026-01-01"), approved=None)
    assert unapproved.to_json() == {
        "key": "A-1",
        "aspect": "duedate",
        "now": {"key": "A-1", "aspect": "duedate", "to": "2026-01-01"},
        "approved": None,
        "text": "A-1: запись duedate не была одобрена",
    }


def test_an_issue_created_under_an_epic_yet_to_be_created_still_vouches_that_it_is_new() -> None:
    """The second issue names the first's temp key: what its writes find there is not known, but that the issue
    itself does not exist yet is (``from: null`` on its issue line)."""
    commands = [
        NewCommand(
            seq=1,
            type="ensure_issue",
            params={"temp_key": "new:1", "summary": "Эпик", "issue_type": "epic"},
            temp_key="new:1",
        ),
        NewCommand(
            seq=2,
            type="ensure_issue",
            params={"temp_key": "new:2", "summary": "Задача", "epic_key": "new:1"},
            temp_key="new:2",
        ),
    ]
    predictions = predict_commands(
        commands, mirror={}, settings=SETTINGS, jira_user="u", symmetric_link_types=frozenset(), now=T0
    )
    assert list(snapshot(commands, predictions, to_be_created=["new:1", "new:2"], now=T0).lines) == [
        {"seq": 1, "key": "new:1", "aspect": "issue", "to": "Эпик", "from": None},
        {"seq": 2, "key": "new:2", "aspect": "issue", "to": "Задача", "from": None},
    ]


def test_odd_lines_still_read() -> None:
    """A label line without its verb, a link created without a body: «?» and «None» rather than an error."""
    assert line_words({"key": "A-1", "aspect": "labels", "to": {}}) == "A-1 - метка «?»"
    no_body = JiraCall(method="POST", path="/rest/api/2/issueLink")
    assert lines_of_write(no_body, params={}, reads=Reads(SETTINGS)) == [
        WriteLine(key="None", aspect="link", before=None, after={"type": "None", "source": "None", "target": "None"})
    ]


def test_the_drivers_own_refusal_reaches_the_executor() -> None:
    """The fence refuses a write the check let through: the executor hears it and ends failed with its words."""
    params = {"key": "AURORA-1", "duedate": "2026-11-01"}
    approved = planned(params, MirrorIssue(key="AURORA-1", summary="Сверка"))
    check = PlanCheck(params=params, approved=approved, reads=Reads(SETTINGS))
    delivery = Delivery(id=1, type="ensure_fields", params=params, pause_seconds=0, context=CONTEXT)
    watched = check.watch(executor_for(delivery, ExecContext()))
    step = watched.send(None)
    assert isinstance(step, JiraCall) and step.method == "GET"
    step = watched.send(JiraResponse(status=200, json=jira_issue("Сверка")))
    assert isinstance(step, JiraCall) and step.method == "PUT"
    with pytest.raises(StopIteration) as ended:
        watched.throw(Dropped("забор: запись не разрешена"))
    report = ended.value.value
    assert (report.status, report.error) == ("failed", "забор: запись не разрешена")
    assert check.differences == []


def test_what_the_agent_has_read_follows_its_reads_and_its_own_writes() -> None:
    """An issue's status, links and sprint, a transition's target (its name without one), a board's sprint names;
    a write gone through moves the status and sprint and drops a deleted link; an answer that failed or cannot be
    read teaches nothing and raises nothing."""
    sprint_field = SETTINGS.fields["sprint"]
    reads = Reads(SETTINGS)

    def seen(method: str, path: str, status: int = 200, json: Any = None, body: Any = None) -> None:
        reads.seen(JiraCall(method=method, path=path, json=body), JiraResponse(status=status, json=json))

    link = {"id": "5", "type": {"name": "Связанные", "inward": "связана с", "outward": "связана с"}}
    fields = {
        "status": {"name": "Ревью"},
        "issuelinks": [{**link, "outwardIssue": {"key": "A-2"}}],
        sprint_field: [{"id": 11, "name": "Спринт 1", "state": "active"}],
    }
    seen("GET", "/rest/api/2/issue/A-1", json={"key": "A-1", "fields": fields})
    transitions = [{"id": "31", "name": "Сделать", "to": {"name": "Готово"}}, {"id": 41, "name": "Назад"}]
    seen("GET", "/rest/api/2/issue/A-1/transitions", json={"transitions": transitions})
    seen("GET", "/rest/agile/1.0/board/7/sprint", json={"values": [{"id": 12, "name": "Спринт 2"}]})
    assert (reads.status, reads.sprint, list(reads.links)) == ({"A-1": "Ревью"}, {"A-1": "Спринт 1"}, ["5"])
    assert (reads.links["5"].source, reads.links["5"].target) == ("A-1", "A-2")
    assert reads.transitions == {("A-1", "31"): "Готово", ("A-1", "41"): "Назад"}
    assert reads.sprint_names == {"12": "Спринт 2"}
    assert reads.before("A-1", "status") == "Ревью"

    seen("POST", "/rest/api/2/issue/A-1/transitions", 204, body={"transition": {"id": "31"}})
    seen("POST", "/rest/agile/1.0/sprint/12/issue", 204, body={"issues": ["A-1"]})
    seen("DELETE", "/rest/api/2/issueLink/5", 204)
    seen("DELETE", "/rest/api/2/issueLink/6", 204)
    assert (reads.status, reads.sprint, reads.links) == ({"A-1": "Готово"}, {"A-1": "Спринт 2"}, {})

    seen("GET", "/rest/api/2/issue/A-2", 404, json={"key": "A-2", "fields": {"status": {"name": "x"}}})
    seen("GET", "/rest/api/2/issue/A-3", json={"key": "A-3", "fields": []})
    seen("POST", "/rest/api/2/issue/A-3/transitions", 400, body={"transition": {"id": "31"}})
    seen("GET", "/rest/api/2/issue/A-4", json={"key": "A-4", "fields": {"summary": " Сверка "}})
    seen("GET", "/rest/api/2/issue/A-5", json={"key": "A-5", "fields": {"status": "x", sprint_field: None}})
    assert reads.status == {"A-1": "Готово", "A-5": None}
    assert reads.sprint == {"A-1": "Спринт 2", "A-5": None}
    assert sorted(reads.issues) == ["A-1", "A-4", "A-5"]
    assert (reads.before("A-4", "summary"), reads.before("A-9", "summary")) == (" Сверка ", None)


@pytest.mark.parametrize("mode", ["field", "parent"])
def test_the_lines_of_a_fields_write_name_each_field_by_its_logical_name(mode: str) -> None:
    """Jira's field ids become the names ``ensure_fields`` uses (the planned dates, the epic by field or parent),
    each with the value last read; the summary without its spaces; a field the hub does not set is named by its id
    with nothing vouched before; each label verb is a line."""
    settings = attrs.evolve(SETTINGS, epic_link=EpicLink(mode=mode, field_id="customfield_10100"))  # type: ignore[arg-type]
    epic_id = "parent" if mode == "parent" else "customfield_10100"
    epic = (lambda key: {"key": key}) if mode == "parent" else (lambda key: key)
    planned_start = settings.fields["planned_start"]
    reads = Reads(settings)
    found = {"summary": " Было ", "duedate": "2026-10-01", planned_start: "2026-09-01", epic_id: epic("A-8")}
    reads.seen(
        JiraCall(method="GET", path="/rest/api/2/issue/A-1"),
        JiraResponse(status=200, json={"key": "A-1", "fields": found}),
    )
    fields = {
        "summary": " Стало ",
        planned_start: "2026-11-01",
        "customfield_99": "x",
        epic_id: epic("A-9"),
        "duedate": None,
    }
    body = {"fields": fields, "update": {"labels": [{"add": "x"}, {"remove": "y"}]}}
    assert lines_of_write(JiraCall(method="PUT", path="/rest/api/2/issue/A-1", json=body), params={}, reads=reads) == [
        WriteLine(key="A-1", aspect="summary", before="Было", after="Стало"),
        WriteLine(key="A-1", aspect="planned_start", before="2026-09-01", after="2026-11-01"),
        WriteLine(key="A-1", aspect="customfield_99", before=None, after="x"),
        WriteLine(key="A-1", aspect="epic_key", before="A-8", after="A-9"),
        WriteLine(key="A-1", aspect="duedate", before="2026-10-01", after=None),
        WriteLine(key="A-1", aspect="labels", after={"add": "x"}),
        WriteLine(key="A-1", aspect="labels", after={"remove": "y"}),
    ]


def test_the_lines_of_the_writes_on_an_issue() -> None:
    """A new issue under its temp key with its summary trimmed; a transition to the status it leads to, from the
    status read (its id when the transitions were not read); a comment written or deleted; an attachment by the
    name it is uploaded under (the command's when no file part is given); anything else on an issue names itself."""
    reads = Reads(SETTINGS, status={"A-1": "Ревью"}, transitions={("A-1", "31"): "Готово"})

    def lines(method: str, path: str, json: Any = None, params: dict[str, Any] | None = None, **call: Any) -> Any:
        return lines_of_write(JiraCall(method=method, path=path, json=json, **call), params=params or {}, reads=reads)

    created = lines("POST", "/rest/api/2/issue", {"fields": {"summary": " Отчёт "}}, {"temp_key": "new:1"})
    assert created == [WriteLine(key="new:1", aspect="issue", before=None, after="Отчёт")]
    assert lines("POST", "/rest/api/2/issue", {}) == [WriteLine(key="", aspect="issue", before=None, after=None)]
    moved = lines("POST", "/rest/api/2/issue/A-1/transitions", {"transition": {"id": "31"}})
    assert moved == [WriteLine(key="A-1", aspect="status", before="Ревью", after="Готово")]
    unread = lines("POST", "/rest/api/2/issue/A-2/transitions", {"transition": {"id": "7"}})
    assert unread == [WriteLine(key="A-2", aspect="status", before=None, after="7")]
    assert lines("POST", "/rest/api/2/issue/A-1/comment", {"body": "[m] т"}) == [
        WriteLine(key="A-1", aspect="comment", after="[m] т")
    ]
    assert lines("PUT", "/rest/api/2/issue/A-1/comment/5", {"body": "[m] т2"}) == [
        WriteLine(key="A-1", aspect="comment", after="[m] т2")
    ]
    assert lines("DELETE", "/rest/api/2/issue/A-1/comment/5") == [WriteLine(key="A-1", aspect="comment", after=None)]
    upload = Upload(filename="счёт.xlsx", content=b"x")
    assert lines("POST", "/rest/api/2/issue/A-1/attachments", params={"filename": "f.txt"}, upload=upload) == [
        WriteLine(key="A-1", aspect="attachment", after="счёт.xlsx")
    ]
    assert lines("POST", "/rest/api/2/issue/A-1/attachments", params={"filename": "f.txt"}) == [
        WriteLine(key="A-1", aspect="attachment", after="f.txt")
    ]
    for method, path, json in [
        ("POST", "/rest/api/2/issue/A-1/remotelink", {"x": 1}),
        ("PUT", "/rest/api/2/issue/A-1/transitions", {"transition": {"id": "31"}}),
        ("POST", "/rest/api/2/issue/A-1", {"x": 1}),
    ]:
        assert lines(method, path, json) == [WriteLine(key="", aspect=f"{method} {path}", after=json)]


def test_a_write_answered_with_a_body_still_counts_as_written_and_only_a_link_delete_drops_a_link() -> None:
    """A transition answered 200 with a JSON body moves the status all the same; deleting a comment whose id is a
    link's id leaves the link; a summary written to an issue never read vouches nothing before; the planned end is
    named as the planned start is."""
    link = MirrorLink(id="5", type="Связанные", source="A-1", target="A-2")
    reads = Reads(SETTINGS, status={"A-1": "Ревью"}, transitions={("A-1", "31"): "Готово"}, links={"5": link})
    transition = JiraCall(method="POST", path="/rest/api/2/issue/A-1/transitions", json={"transition": {"id": "31"}})
    reads.seen(transition, JiraResponse(status=200, json={}))
    reads.seen(JiraCall(method="DELETE", path="/rest/api/2/issue/A-1/comment/5"), JiraResponse(status=204))
    assert (reads.status, list(reads.links)) == ({"A-1": "Готово"}, ["5"])
    planned_end = SETTINGS.fields["planned_end"]
    put = JiraCall(
        method="PUT", path="/rest/api/2/issue/A-7", json={"fields": {"summary": " Новая ", planned_end: "2026-12-01"}}
    )
    assert lines_of_write(put, params={}, reads=reads) == [
        WriteLine(key="A-7", aspect="summary", before=None, after="Новая"),
        WriteLine(key="A-7", aspect="planned_end", before=None, after="2026-12-01"),
    ]


def _read_issue(reads: Reads, key: str, body: dict[str, Any]) -> None:
    reads.seen(JiraCall(method="GET", path=f"/rest/api/2/issue/{key}"), JiraResponse(status=200, json=body))


def test_an_issue_read_again_is_parsed_again() -> None:
    """``before`` parses an issue once per answer: a second read of the issue replaces what the first one said."""
    reads = Reads(SETTINGS)
    _read_issue(reads, "ZEUS-1", {"key": "ZEUS-1", "fields": {"summary": "первая"}})
    assert reads.before("ZEUS-1", "summary") == "первая"
    _read_issue(reads, "ZEUS-1", {"key": "ZEUS-1", "fields": {"summary": "вторая"}})
    assert reads.before("ZEUS-1", "summary") == "вторая"
    assert reads.before("ZEUS-2", "summary") is None


def test_an_issue_the_mirror_cannot_read_has_no_value_before() -> None:
    """An answer whose fields the mirror refuses (a summary that is no text) says nothing of any field, twice."""
    reads = Reads(SETTINGS)
    _read_issue(reads, "ZEUS-3", {"key": "ZEUS-3", "fields": {"summary": 5, "status": {"name": "Open"}}})
    assert reads.status == {"ZEUS-3": "Open"}
    assert reads.before("ZEUS-3", "summary") is None
    assert reads.before("ZEUS-3", "status") is None
