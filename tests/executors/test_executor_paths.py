"""Every Jira path an executor yields is made of checked parts (DESIGN.md 5.7, issue 31 finding 2): a hostile value
in any parameter, in the delivery's context or in Jira's own answers never shapes a path or a query — a value
meant for a path is refused before the call, any other travels only as JSON data.

The executors are driven as values (no I/O), each call answered by the in-process simulator's route table, so
they walk the paths a real Jira would lead them down."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

import pytest

from jira_sim import routes
from jira_sim.simulator import Simulator
from jira_sim.wire import Request
from reconcile.config.settings import Settings
from reconcile.executors import Delivery, ExecContext, FetchFile, JiraCall, JiraResponse, Report, Step
from reconcile.executors.drive import drive
from reconcile.guard.paths import FIXED
from reconcile.types.binding import TYPES, executor_for
from reconcile.vocabulary.catalogue import CATALOGUE

from .executors_support import issue, ok, play

CONTENT = b"hostile"
SHA = hashlib.sha256(CONTENT).hexdigest()

#: Values a hostile hub (or Jira's answer) may put where an id, a key or a name belongs.
HOSTILE: tuple[Any, ...] = (
    "..",
    "../../../api/2/issue/HR-1?fields=summary",
    "AURORA-1533/../../HR-1",
    "AURORA-1533?fields=*all",
    "AURORA-1533#x",
    "%2e%2e",
    "%2F",
    " 4216",
    "4216\n",
    "AURORA-1533 ",
    "４２１６",
    "٤٢١٦",
    "HR-1",
    "-1",
    0,
    -4216,
    True,
    1.5,
    [4216],
    {"id": 4216},
)

#: What a delivery holds beside the catalogue's example: what the hub adds (a board, a file's size, the refresh's
#: boards), a file whose bytes the test serves, fields the sample's issue does not hold yet, a path the sample's
#: workflow walks (the seed's example skips «Тестирование»), and the refresh's JQL, so that a hostile one is tried.
DELIVERED: dict[str, dict[str, Any]] = {
    "ensure_fields": {"summary": "Новая тема", "planned_start": "2026-11-01"},
    "ensure_status": {"target": ["Разработка", "Тестирование", "Готово"]},
    "ensure_sprint": {"board_id": 4216},
    "ensure_attachment": {"file": SHA, "size": len(CONTENT)},
    "refresh": {"boards": [{"id": 4216, "type": None}], "jql": "labels = AWPCA"},
}
#: A valid delivery of each type: its catalogue example (the keys are the sample's; the context the default
#: settings').
VALID = {spec.type: {**spec.example, **DELIVERED.get(spec.type, {})} for spec in CATALOGUE.values()}
#: The parameters whose value goes into a path: a hostile one is refused before any call.
IN_PATH = {
    "ensure_fields": {"key"},
    "ensure_comment": {"key"},
    "ensure_status": {"key"},
    "ensure_link": {"source"},
    "ensure_sprint": {"key", "board_id"},
    "ensure_attachment": {"key"},
}

_KEY = r"[A-Z][A-Z0-9_]*-[1-9][0-9]*"
_SEGMENT = "|".join([*(re.escape(part) for part in sorted(FIXED, key=len, reverse=True)), _KEY, "[1-9][0-9]*"])
PATH = re.compile(rf"(/({_SEGMENT}))+", re.ASCII)
#: What a query may hold: fixed names, numbers, the sprint states and field lists of field ids.
QUERY = {
    "fields": re.compile(r"([a-z]+|customfield_[1-9][0-9]*)(,([a-z]+|customfield_[1-9][0-9]*))*", re.ASCII),
    "startAt": re.compile(r"[0-9]+", re.ASCII),
    "maxResults": re.compile(r"[0-9]+", re.ASCII),
    "state": re.compile(r"active,future"),
}


class SimulatedJira:
    """Answers each call with the simulator's route table (an upload with Jira's answer to one), recording them."""

    def __init__(self) -> None:
        self.sim = Simulator()
        self.calls: list[JiraCall] = []

    def answer(self, step: Step) -> Any:
        if isinstance(step, FetchFile):
            return CONTENT
        if not isinstance(step, JiraCall):
            return None
        self.calls.append(step)
        if step.upload is not None:
            return ok([{"id": "10600", "filename": step.upload.filename}])
        request = Request(
            method=step.method,
            path=unquote(step.path),
            query={name: [value] for name, value in (step.params or {}).items()},
            headers={"authorization": "Bearer pat"},
            body=b"" if step.json is None else json.dumps(step.json).encode(),
            base="http://jira.test",
        )
        answer = routes.dispatch(self.sim.store, request)
        headers = {name.decode(): value.decode() for name, value in answer.headers}
        body = json.loads(answer.body) if answer.body else None
        return JiraResponse(status=answer.status, json=body, headers=headers)


def run(
    type_: str, params: Mapping[str, Any], context: Mapping[str, Any] | None = None
) -> tuple[Report, SimulatedJira]:
    jira = SimulatedJira()
    delivery = Delivery(id=1, type=type_, params=params, pause_seconds=0, context=context or Settings().agent_context())
    ctx = ExecContext(jira_user="bridge-user", jira_time_zone="Europe/Moscow", allowed_projects=("AURORA",))
    report = drive(executor_for(delivery, ctx), jira.answer)
    endpoints = TYPES[type_].dry_run.endpoints
    undeclared = [c for c in jira.calls if not any(e.parts(c.method, unquote(c.path)) is not None for e in endpoints)]
    assert undeclared == [], f"{type_} called endpoints its dry-run answers do not declare"
    return report, jira


def clean(call: JiraCall) -> bool:
    """The call's path is fixed parts, keys and positive ids only; its query holds only what the executors ask."""
    if PATH.fullmatch(call.path) is None:
        return False
    return all(name in QUERY and QUERY[name].fullmatch(value) for name, value in (call.params or {}).items())


def mentions(call: JiraCall, value: Any) -> bool:
    """Whether ``value`` (its text) is a part of the call's path or a value of its query."""
    text = str(value)
    return text in unquote(call.path).split("/") or text in (call.params or {}).values()


@pytest.mark.parametrize("type_", sorted(VALID))
def test_a_valid_delivery_walks_only_clean_paths(type_: str) -> None:
    """The baseline: each type's valid delivery reaches its writes, every call by a clean path and query."""
    report, jira = run(type_, VALID[type_])
    assert report.status == "done", report.error
    assert jira.calls
    assert any(c.is_write for c in jira.calls) is CATALOGUE[type_].writes
    assert [f"{c.method} {c.path}" for c in jira.calls if not clean(c)] == []


@pytest.mark.parametrize(
    ("type_", "name"),
    [(t, p.name) for t in sorted(VALID) for p in (*CATALOGUE[t].params, *CATALOGUE[t].hub_params)],
)
def test_a_hostile_parameter_never_shapes_a_path(type_: str, name: str) -> None:
    """Each hostile value in each parameter: no call leaves with an unclean path or query, none carries the value
    there, and a value meant for a path fails the command before any call, naming the value."""
    for value in HOSTILE:
        report, jira = run(type_, {**VALID[type_], name: value})
        assert [f"{c.method} {c.path}" for c in jira.calls if not clean(c)] == [], value
        assert [c.path for c in jira.calls if isinstance(value, str) and mentions(c, value)] == [], value
        if name in IN_PATH.get(type_, ()) or (type_ == "refresh" and name == "boards"):
            assert (report.status, jira.calls) == ("failed", []), value


@pytest.mark.parametrize("value", [v for v in HOSTILE if not isinstance(v, bool | int)])
def test_a_hostile_board_id_in_a_refresh_fails_it_before_any_call(value: Any) -> None:
    """A delivered board whose id is no positive integer fails the refresh with zero calls, its id shown."""
    report, jira = run("refresh", {**VALID["refresh"], "boards": [{"id": value, "type": None}]})
    assert (report.status, jira.calls) == ("failed", [])
    assert report.error == f"недопустимый id доски: {json.dumps(value, ensure_ascii=False)}"


COMMENTS = {"startAt": 0, "maxResults": 100, "total": 1, "comments": [{"id": None, "body": "[m] старый"}]}


@pytest.mark.parametrize("value", ["../../issue/HR-1", "10700/../../HR-1", "10700?x", "٤٢", "0", "%2e%2e"])
def test_ids_from_jiras_answers_never_shape_a_path(value: str) -> None:
    """A comment's and a link's id read from Jira are put in a path only when they are positive integers: any
    other fails the command before the write, no write made."""
    comments = {**COMMENTS, "comments": [{"id": value, "body": "[m] старый"}]}
    report, steps = play("ensure_comment", {"key": "AURORA-1537", "marker": "[m]", "body": "новый"}, [ok(comments)])
    assert (report.status, report.operations) == ("failed", ())
    assert report.error == f"недопустимый id комментария: {json.dumps(value, ensure_ascii=False)}"
    assert len([s for s in steps if isinstance(s, JiraCall)]) == 1
    blocks = {"id": value, "type": {"name": "Блокирует начало"}, "outwardIssue": {"key": "AURORA-1538"}}
    answers = [ok(issue("AURORA-1537", issuelinks=[blocks]))]
    params = {"source": "AURORA-1537", "target": "AURORA-1538", "link_type": "связанные", "replace": True}
    report, steps = play("ensure_link", params, answers, pause=0)
    assert (report.status, report.operations) == ("failed", ())
    assert report.error == f"недопустимый id связи: {json.dumps(value, ensure_ascii=False)}"
    assert [s for s in steps if isinstance(s, JiraCall) and s.method != "GET"] == []


#: Where the delivery's context names something that may reach a request: the project, field ids, link types.
CONTEXT_PLACES = [
    ("jira_project",),
    ("fields", "sprint"),
    ("fields", "planned_start"),
    ("fields", "planned_end"),
    ("epic_link", "field_id"),
    ("epic_name_field_id",),
    ("link_types", "связанные"),
]


def hostile_context(place: tuple[str, ...], value: Any) -> dict[str, Any]:
    context = Settings().agent_context()
    if len(place) == 1:
        return {**context, place[0]: value}
    return {**context, place[0]: {**context[place[0]], place[1]: value}}


@pytest.mark.parametrize(("type_", "place"), [(t, place) for t in sorted(VALID) for place in CONTEXT_PLACES])
def test_a_hostile_context_value_never_shapes_a_path_or_a_query(type_: str, place: tuple[str, ...]) -> None:
    """Each hostile value at each place of the context: every call that leaves has a clean path and query, and
    none carries the value there (a field id that is no field id fails the command before any call)."""
    for value in (v for v in HOSTILE if isinstance(v, str)):
        report, jira = run(
            type_,
            {**VALID[type_], "epic_key": "AURORA-1537"} if type_ == "ensure_fields" else VALID[type_],
            hostile_context(place, value),
        )
        assert [f"{c.method} {c.path} {c.params}" for c in jira.calls if not clean(c)] == [], value
        assert [c.path for c in jira.calls if mentions(c, value)] == [], value
        if place[0] in ("fields", "epic_link", "epic_name_field_id"):
            assert jira.calls == [], (value, report.error)
