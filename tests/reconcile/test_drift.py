"""Drift: the desired states of done commands that the mirror no longer shows, and who changed them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import attrs
from hypothesis import given
from hypothesis import strategies as st

from reconcile.config.settings import Settings
from reconcile.outlook.confirm import AgentFacts, narrow
from reconcile.outlook.drift import (
    Drift,
    SetCommand,
    Setting,
    attribute,
    find_drift,
    journal_keys,
    latest_settings,
    natural_key,
    reapply_body,
)
from reconcile.vocabulary.catalogue import CATALOGUE, AspectKind
from reconcile.vocabulary.records import HistoryEntry, HistoryItem, MirrorIssue, MirrorLink, SprintRef
from tests.support import T0

LINK_TYPES = Settings().link_types
FACTS = AgentFacts(jira_user="bridge-user", symmetric_link_types=frozenset({"Связанные"}))
KEYS = ("A-1", "A-2", "A-3")


def drift(
    commands: Sequence[SetCommand],
    mirror: Mapping[str, MirrorIssue],
    vanished: Mapping[str, MirrorIssue] | None = None,
    project: str | None = None,
    **kw: Any,
) -> list[Drift]:
    return find_drift(
        latest_settings(commands),
        mirror=mirror,
        vanished=vanished,
        facts=FACTS,
        link_types=LINK_TYPES,
        project=project,
        **kw,
    )


def brief(items: Sequence[Drift]) -> list[tuple[int, str, str, Any, Any]]:
    return [(d.command_id, d.key, d.aspect, d.wanted, d.now) for d in items]


# --- a model of what each command makes true, for the laws ---------------------------------------------------


def produce(mirror: dict[str, MirrorIssue], command: SetCommand) -> None:
    """What the agent leaves in Jira after ``command`` (the mirror after its tail refresh)."""
    p = command.params
    if command.type == "ensure_issue":
        key = (command.result or {})["key"]
        mirror[key] = mirror.get(key) or MirrorIssue(key=key, summary=p["summary"], reporter="bridge-user")
        return
    key = p["source"] if command.type == "ensure_link" else p["key"]
    issue = mirror[key]
    if command.type == "ensure_fields":
        labels = list(issue.labels)
        labels += [label for label in p.get("labels_add", []) if label not in labels]
        labels = [label for label in labels if label not in p.get("labels_remove", [])]
        values = {k: v for k, v in p.items() if k not in ("key", "labels_add", "labels_remove")}
        issue = attrs.evolve(issue, labels=tuple(labels), **values)
    elif command.type == "ensure_status":
        target = p["target"]
        issue = attrs.evolve(issue, status=target[-1] if isinstance(target, list) else target)
    elif command.type == "ensure_sprint":
        sprint = None if p["sprint"] == "backlog" else SprintRef(id=1, name=p["sprint"], state="active")
        issue = attrs.evolve(issue, sprint=sprint)
    elif command.type == "ensure_link":
        # The link replaces any other between the two, and the mirror shows it on both ends.
        pair = {p["source"], p["target"]}
        wanted = MirrorLink(
            id=f"l{command.id}", type=LINK_TYPES[p["link_type"]], source=p["source"], target=p["target"]
        )
        for end in pair & set(mirror):
            kept = tuple(link for link in mirror[end].links if {link.source, link.target} != pair)
            mirror[end] = attrs.evolve(mirror[end], links=(*kept, wanted))
        return
    mirror[key] = issue


def produced(base: Mapping[str, MirrorIssue], commands: Sequence[SetCommand]) -> dict[str, MirrorIssue]:
    mirror = dict(base)
    for command in commands:
        produce(mirror, command)
    return mirror


#: The types whose state drift reads on their subject's record (every aspect but an issue's existence).
LOOKED_AT = [name for name, spec in CATALOGUE.items() if spec.sets not in (None, AspectKind.EXISTENCE)]
texts = st.sampled_from(["x", "y", "a\nb", None])
dates = st.sampled_from(["2026-10-20", "2026-11-01", None])
labels = st.lists(st.sampled_from(["l1", "l2", "l3"]), max_size=2, unique=True)
statuses = st.sampled_from(["Разработка", "Тестирование", "Готово"])
sprints = st.sampled_from(["Спринт 2", "Спринт 3", "backlog"])


@st.composite
def fields_params(draw: st.DrawFn, key: str) -> dict[str, Any]:
    params: dict[str, Any] = {"key": key}
    for name, values in (("description", texts), ("assignee", texts), ("duedate", dates), ("priority", texts)):
        if draw(st.booleans()):
            params[name] = draw(values)
    add, remove = draw(labels), draw(labels)
    if add:
        params["labels_add"] = add
    remove = [label for label in remove if label not in add]
    if remove:
        params["labels_remove"] = remove
    if len(params) == 1:
        params["duedate"] = draw(dates)
    return params


@st.composite
def commands(draw: st.DrawFn, first_id: int = 1) -> list[SetCommand]:
    found: list[SetCommand] = []
    for index in range(draw(st.integers(min_value=1, max_value=6))):
        key = draw(st.sampled_from(KEYS))
        kind = draw(st.sampled_from(LOOKED_AT))
        if kind == "ensure_fields":
            params = draw(fields_params(key))
        elif kind == "ensure_status":
            params = {"key": key, "target": draw(st.one_of(statuses, st.lists(statuses, min_size=1, max_size=2)))}
        elif kind == "ensure_sprint":
            params = {"key": key, "sprint": draw(sprints), "board_id": 4216}
        elif kind == "ensure_link":
            target = draw(st.sampled_from([k for k in KEYS if k != key]))
            params = {"source": key, "target": target, "link_type": draw(st.sampled_from(sorted(LINK_TYPES)))}
        else:
            raise NotImplementedError(f"the model of this test knows no {kind}: add it to produce() and here")
        found.append(SetCommand(id=first_id + index, batch_id=1, type=kind, params=params))
    return found


def base_mirror() -> dict[str, MirrorIssue]:
    return {key: MirrorIssue(key=key, status="Ожидание разработки", labels=("AWPCA",)) for key in KEYS}


# --- the laws ----------------------------------------------------------------------------------------------


@given(commands())
def test_a_command_checked_against_the_state_it_produced_never_drifts(cmds: list[SetCommand]) -> None:
    """Whatever the commands, the state they leave behind shows no drift."""
    assert drift(cmds, produced(base_mirror(), cmds)) == []


def _changed(issue: MirrorIssue, aspect: str, params: Mapping[str, Any]) -> MirrorIssue:
    """``issue`` with exactly ``aspect`` moved away from what ``params`` wanted."""
    if aspect.startswith("label:"):
        label = aspect.removeprefix("label:")
        present = label in issue.labels
        return attrs.evolve(
            issue, labels=tuple(x for x in issue.labels if x != label) if present else (*issue.labels, label)
        )
    if aspect == "status":
        return attrs.evolve(issue, status="Вручную")
    if aspect == "sprint":
        return attrs.evolve(issue, sprint=SprintRef(id=9, name="Чужой", state="future"))
    if aspect == "link":
        return attrs.evolve(
            issue,
            links=tuple(
                link for link in issue.links if link.target != params["target"] and link.source != params["target"]
            ),
        )
    value = getattr(issue, aspect)
    return attrs.evolve(issue, **{aspect: "вручную" if value != "вручную" else "иначе"})


@given(commands(), st.data())
def test_changing_exactly_the_aspect_a_command_set_always_drifts(cmds: list[SetCommand], data: st.DataObject) -> None:
    """Move one aspect the latest commands set: exactly that aspect drifts, named for its latest command."""
    mirror = produced(base_mirror(), cmds)
    chosen = data.draw(st.sampled_from(latest_settings(cmds)))
    aspect = narrow(chosen.command.type, chosen.params, data.draw(st.sampled_from(chosen.aspects)))
    mirror[aspect.key] = _changed(mirror[aspect.key], aspect.name, aspect.params)
    found = drift(cmds, mirror)
    assert [(d.command_id, d.key, d.aspect) for d in found] == [(chosen.command.id, aspect.key, aspect.name)]


@given(commands(), commands(first_id=100))
def test_a_later_command_for_the_same_aspect_supersedes_the_earlier(
    early: list[SetCommand], late: list[SetCommand]
) -> None:
    """After both runs nothing drifts, and only the later command is named for the aspects both set."""
    mirror = produced(base_mirror(), [*early, *late])
    assert drift([*early, *late], mirror) == []

    def slot(setting: Setting, name: str) -> tuple[frozenset[str], str]:
        ends = {setting.key, setting.params["target"]} if name == "link" else {setting.key}
        return frozenset(ends), name

    late_slots = {slot(s, name) for s in latest_settings(late) for name in s.aspects}
    for setting in latest_settings([*early, *late]):
        for name in setting.aspects:
            if slot(setting, name) in late_slots:
                assert setting.command.id >= 100
    # Put back what the earlier commands wanted: whatever drifts is named for a later command.
    for item in drift([*early, *late], produced(mirror, early)):
        assert item.command_id >= 100


@given(commands(), st.sampled_from(["summary", "planned_end", "epic_key", "reporter"]), st.sampled_from(KEYS))
def test_unrelated_changes_never_drift(cmds: list[SetCommand], field: str, key: str) -> None:
    """A field no command set, a label no command named, a link between other issues: no drift."""
    mirror = produced(base_mirror(), cmds)
    issue = mirror[key]
    mirror[key] = attrs.evolve(
        issue,
        **{field: "вручную"},
        labels=(*issue.labels, "чужая"),
        links=(*issue.links, MirrorLink(id="x", type="Дубль", source=key, target="B-1")),
    )
    mirror["B-1"] = MirrorIssue(key="B-1", status="Готово")
    assert drift(cmds, mirror) == []


# --- examples ----------------------------------------------------------------------------------------------


def cmd(command_id: int, type_: str, batch_id: int = 1, **params: Any) -> SetCommand:
    temp_key = params.get("temp_key") if type_ == "ensure_issue" else None
    result = {"key": params.pop("created_key")} if type_ == "ensure_issue" else None
    return SetCommand(id=command_id, batch_id=batch_id, type=type_, params=params, temp_key=temp_key, result=result)


def test_items_say_what_was_wanted_and_what_the_mirror_shows() -> None:
    """Each kind of aspect answers its wanted and current value in the API's terms."""
    cmds = [
        cmd(1, "ensure_fields", key="A-1", duedate="2026-10-23", labels_add=["l1"], labels_remove=["old"]),
        cmd(2, "ensure_status", key="A-1", target=["Разработка", "Готово"]),
        cmd(3, "ensure_sprint", key="A-1", sprint="Спринт 2", board_id=4216),
        cmd(4, "ensure_link", source="A-1", target="A-2", link_type="блокирует начало"),
    ]
    mirror = {
        "A-1": MirrorIssue(
            key="A-1",
            duedate="2026-10-30",
            labels=("old",),
            status="Разработка",
            links=(MirrorLink(id="9", type="Связанные", source="A-2", target="A-1"),),
        ),
        "A-2": MirrorIssue(key="A-2"),
    }
    assert brief(drift(cmds, mirror)) == [
        (1, "A-1", "duedate", "2026-10-23", "2026-10-30"),
        (1, "A-1", "label:l1", True, False),
        (1, "A-1", "label:old", False, True),
        (2, "A-1", "status", "Готово", "Разработка"),
        (3, "A-1", "sprint", "Спринт 2", "backlog"),
        (
            4,
            "A-1",
            "link",
            {"source": "A-1", "target": "A-2", "type": "Блокирует начало"},
            [{"source": "A-2", "target": "A-1", "type": "Связанные"}],
        ),
    ]


def test_text_compares_as_confirmation_does() -> None:
    """CRLF in the mirror and null against "" are the same text: no drift."""
    cmds = [cmd(1, "ensure_fields", key="A-1", description="a\nb", assignee=None)]
    assert drift(cmds, {"A-1": MirrorIssue(key="A-1", description="a\r\nb", assignee="")}) == []


def test_temp_keys_are_read_as_the_keys_their_batch_created() -> None:
    """A command that named new:1 is about the issue its batch's ensure_issue created."""
    cmds = [
        cmd(1, "ensure_issue", batch_id=7, temp_key="new:1", summary="Отчёт", created_key="A-9"),
        cmd(2, "ensure_fields", batch_id=7, key="new:1", duedate="2026-10-23"),
        cmd(3, "ensure_fields", batch_id=8, key="new:1", duedate="2026-10-24"),
    ]
    found = drift(cmds, {"A-9": MirrorIssue(key="A-9")})
    assert brief(found) == [(2, "A-9", "duedate", "2026-10-23", None)]
    assert found[0].params == {"key": "A-9", "duedate": "2026-10-23"}


def test_an_issue_a_batch_created_drifts_when_it_vanished() -> None:
    """Existence drifts only when the created issue vanished; its other aspects go with it."""
    cmds = [
        cmd(1, "ensure_issue", temp_key="new:1", summary="Отчёт", created_key="A-9"),
        cmd(2, "ensure_status", key="A-9", target="Готово"),
        cmd(3, "ensure_status", key="A-5", target="Готово"),
    ]
    gone = {"A-9": MirrorIssue(key="A-9", labels=("AWPCA",)), "A-5": MirrorIssue(key="A-5", labels=("AWPCA",))}
    assert brief(drift(cmds, {}, vanished=gone)) == [(1, "A-9", "issue", True, False)]
    assert drift(cmds, {"A-9": MirrorIssue(key="A-9", status="Готово")}) == []


def test_issues_the_mirror_does_not_hold_are_not_judged() -> None:
    """No mirror record, no verdict; a link to a vanished issue is not judged either."""
    cmds = [
        cmd(1, "ensure_status", key="A-1", target="Готово"),
        cmd(2, "ensure_link", source="A-2", target="A-3", link_type="связанные"),
    ]
    assert drift(cmds, {"A-2": MirrorIssue(key="A-2")}, vanished={"A-3": MirrorIssue(key="A-3")}) == []


def test_the_project_slice_decides_which_aspects_count() -> None:
    """With a project, an aspect counts when its issue carries the label; a link when either end does."""
    cmds = [
        cmd(1, "ensure_status", key="A-1", target="Готово"),
        cmd(2, "ensure_status", key="A-2", target="Готово"),
        cmd(3, "ensure_link", source="A-2", target="A-1", link_type="связанные"),
    ]
    mirror = {"A-1": MirrorIssue(key="A-1", labels=("AWPCA",)), "A-2": MirrorIssue(key="A-2", labels=("OTHER",))}
    assert [(d.command_id, d.aspect) for d in drift(cmds, mirror, project="AWPCA")] == [(1, "status"), (3, "link")]
    assert [(d.command_id, d.aspect) for d in drift(cmds, mirror, project="OTHER")] == [(2, "status"), (3, "link")]
    assert [(d.command_id, d.aspect) for d in drift(cmds, mirror, project="NONE")] == []


def test_a_replaced_link_is_superseded_not_drifted() -> None:
    """A later link between the same two issues, of another type or direction, supersedes the earlier."""
    cmds = [
        cmd(1, "ensure_link", source="A-1", target="A-2", link_type="блокирует начало"),
        cmd(2, "ensure_link", source="A-2", target="A-1", link_type="связанные", replace=True),
    ]
    mirror = {"A-2": MirrorIssue(key="A-2", links=(MirrorLink(id="1", type="Связанные", source="A-2", target="A-1"),))}
    assert drift(cmds, mirror) == []


def test_a_command_is_judged_only_on_a_record_read_since_it_finished() -> None:
    """Between a command's report and its tail refresh the mirror still shows the old state: not drift."""
    done_at = datetime(2026, 10, 22, 10, 0, tzinfo=UTC)
    cmds = [
        attrs.evolve(cmd(1, "ensure_status", key="A-1", target="Готово"), finished_at=done_at),
        attrs.evolve(cmd(2, "ensure_issue", temp_key="new:1", summary="s", created_key="A-9"), finished_at=done_at),
    ]
    mirror = {"A-1": MirrorIssue(key="A-1", status="Разработка")}
    gone = {"A-9": MirrorIssue(key="A-9")}
    settings = latest_settings(cmds)

    def judged(read: datetime) -> list[tuple[int, str]]:
        found = find_drift(
            settings,
            mirror=mirror,
            vanished=gone,
            facts=FACTS,
            link_types=LINK_TYPES,
            read_at={"A-1": read, "A-9": read},
        )
        return [(d.command_id, d.aspect) for d in found]

    assert judged(done_at - timedelta(seconds=1)) == []
    assert judged(done_at) == [(1, "status"), (2, "issue")]


def test_items_come_in_natural_key_order() -> None:
    """A-2 before A-10; one issue's items by command, then by the order of its params."""
    cmds = [
        cmd(1, "ensure_fields", key="A-10", priority="High"),
        cmd(2, "ensure_fields", key="A-2", priority="High", duedate="2026-10-23"),
        cmd(3, "ensure_status", key="A-2", target="Готово"),
    ]
    mirror = {key: MirrorIssue(key=key) for key in ("A-2", "A-10")}
    assert [(d.key, d.aspect) for d in drift(cmds, mirror)] == [
        ("A-2", "priority"),
        ("A-2", "duedate"),
        ("A-2", "status"),
        ("A-10", "priority"),
    ]
    assert sorted(["B-1", "A-10", "A-2", "A-1"], key=natural_key) == ["A-1", "A-2", "A-10", "B-1"]


# --- the journal -------------------------------------------------------------------------------------------


def entry(key: str, jira_id: str, created: str, author: str, *items: HistoryItem) -> HistoryEntry:
    return HistoryEntry(key=key, id=jira_id, created=created, author=author, items=items)


def item(field: str, from_: str | None = None, to: str | None = None, **strings: str | None) -> HistoryItem:
    return HistoryItem(field=field, from_=from_, to=to, **strings)


def test_the_latest_journal_entry_that_touched_the_aspect_names_who_and_when() -> None:
    """Per aspect: the latest entry with an item of its field; other fields' entries do not count."""
    cmds = [
        cmd(1, "ensure_fields", key="A-1", duedate="2026-10-23", labels_add=["l1"]),
        cmd(2, "ensure_status", key="A-1", target="Готово"),
        cmd(3, "ensure_link", source="A-1", target="A-2", link_type="связанные"),
        cmd(4, "ensure_fields", key="A-1", planned_end="2026-11-01"),
    ]
    mirror = {"A-1": MirrorIssue(key="A-1", duedate="2026-10-30", status="Разработка", planned_end="2026-11-05")}
    journal = {
        "A-1": [
            entry("A-1", "10", "2026-10-22T08:00:00Z", "ivanov", item("duedate", "2026-10-20", "2026-10-23")),
            entry("A-1", "11", "2026-10-22T09:00:00Z", "petrova", item("duedate", "2026-10-23", "2026-10-30")),
            entry("A-1", "12", "2026-10-22T10:00:00Z", "ivanov", item("priority", "3", "2")),
            entry("A-1", "13", "2026-10-22T11:00:00Z", "sidorov", item("status", "10103", "10101")),
            entry("A-1", "14", "2026-10-22T12:00:00Z", "ivanov", item("labels", from_string="l1 x", to_string="x")),
            entry(
                "A-1", "15", "2026-10-22T13:00:00Z", "ivanov", item("Плановое окончание", "2026-11-01", "2026-11-05")
            ),
            entry("A-1", "16", "2026-10-22T14:00:00Z", "ivanov", item("Rank", to_string="Ranked higher")),
        ],
        "A-2": [entry("A-2", "20", "2026-10-22T12:30:00Z", "petrova", item("Link", from_="A-1", from_string="x"))],
    }
    found = attribute(drift(cmds, mirror), journal)
    assert [(d.aspect, d.changed_by, d.changed_at) for d in found] == [
        ("duedate", "petrova", "2026-10-22T09:00:00Z"),
        ("label:l1", "ivanov", "2026-10-22T12:00:00Z"),
        ("status", "sidorov", "2026-10-22T11:00:00Z"),
        ("link", "petrova", "2026-10-22T12:30:00Z"),
        ("planned_end", "ivanov", "2026-10-22T13:00:00Z"),
    ]


def test_what_the_journal_does_not_cover_stays_unknown() -> None:
    """No entry touching the aspect (or the existence of an issue): changed_by and changed_at are None."""
    cmds = [
        cmd(1, "ensure_issue", temp_key="new:1", summary="Отчёт", created_key="A-9"),
        cmd(2, "ensure_fields", key="A-1", assignee="ivanov"),
    ]
    found = drift(cmds, {"A-1": MirrorIssue(key="A-1")}, vanished={"A-9": MirrorIssue(key="A-9")})
    journal = {"A-1": [entry("A-1", "1", "2026-10-22T08:00:00Z", "petrova", item("duedate"))]}
    assert journal_keys(found) == ["A-1"]
    assert [(d.aspect, d.changed_by, d.changed_at) for d in attribute(found, journal)] == [
        ("assignee", None, None),
        ("issue", None, None),
    ]


# --- putting it back ---------------------------------------------------------------------------------------


def test_reapply_re_asserts_only_the_drifted_aspects_one_command_each() -> None:
    """ensure_fields keeps only its drifted fields; the others are re-asserted whole; new temp keys."""
    cmds = [
        cmd(1, "ensure_issue", batch_id=3, temp_key="new:4", summary="Отчёт", labels=["AWPCA"], created_key="A-9"),
        cmd(2, "ensure_fields", batch_id=3, key="A-1", duedate="2026-10-23", priority="High", labels_add=["l1", "l2"]),
        cmd(3, "ensure_sprint", batch_id=3, key="A-1", sprint="Спринт 2", board_id=4216),
        cmd(4, "ensure_link", batch_id=3, source="A-1", target="A-2", link_type="связанные", replace=True),
    ]
    mirror = {"A-1": MirrorIssue(key="A-1", priority="High", labels=("l2",)), "A-2": MirrorIssue(key="A-2")}
    found = drift(cmds, mirror, vanished={"A-9": MirrorIssue(key="A-9")})
    body = reapply_body(found, author="planner", title="возврат", project="AWPCA")
    assert body == {
        "author": "planner",
        "title": "возврат",
        "project": "AWPCA",
        "commands": [
            {"type": "ensure_issue", "params": {"temp_key": "new:1", "summary": "Отчёт", "labels": ["AWPCA"]}},
            {"type": "ensure_fields", "params": {"key": "A-1", "duedate": "2026-10-23", "labels_add": ["l1"]}},
            {"type": "ensure_sprint", "params": {"key": "A-1", "sprint": "Спринт 2"}},
            {
                "type": "ensure_link",
                "params": {"source": "A-1", "target": "A-2", "link_type": "связанные", "replace": True},
            },
        ],
    }
    assert "project" not in reapply_body(found[:1], author="planner", title="возврат", project=None)


def test_a_vanished_issue_comes_back_with_its_epic_as_created() -> None:
    """Reapplying an ensure_issue names its epic by the key its batch created, never by the old temp key."""
    cmds = [
        cmd(1, "ensure_issue", batch_id=5, temp_key="new:1", summary="Эпик", issue_type="epic", created_key="A-50"),
        cmd(2, "ensure_issue", batch_id=5, temp_key="new:2", summary="Задача", epic_key="new:1", created_key="A-51"),
    ]
    found = drift(cmds, {"A-50": MirrorIssue(key="A-50")}, vanished={"A-51": MirrorIssue(key="A-51")})
    assert reapply_body(found, author="planner", title="возврат", project=None)["commands"] == [
        {"type": "ensure_issue", "params": {"temp_key": "new:1", "summary": "Задача", "epic_key": "A-50"}}
    ]


# --- rules the mutation run found unstated (issue 16) ---


def created(command_id: int, temp_key: str, key: str | None, **params: Any) -> SetCommand:
    result = None if key is None else {"key": key}
    return SetCommand(
        id=command_id,
        batch_id=1,
        type="ensure_issue",
        params={"temp_key": temp_key, **params},
        temp_key=temp_key,
        result=result,
    )


def test_links_sharing_one_end_are_separate_aspects() -> None:
    """A link's aspect is its pair of issues: A-1—A-3 and A-2—A-3 share an end but neither supersedes the other."""
    cmds = [
        cmd(1, "ensure_link", source="A-1", target="A-3", link_type="связанные"),
        cmd(2, "ensure_link", source="A-2", target="A-3", link_type="связанные"),
        cmd(3, "ensure_link", source="A-3", target="A-1", link_type="связанные"),
    ]
    assert [(s.command.id, s.aspects) for s in latest_settings(cmds)] == [(2, ("link",)), (3, ("link",))]


def test_an_ensure_issue_whose_result_names_no_key_sets_nothing() -> None:
    """Without a created key (no result, an empty or non-text key) an ensure_issue has no existence to follow."""
    for key in (None, ""):
        assert latest_settings([created(1, "new:1", key, summary="Отчёт")]) == []
    odd = SetCommand(id=1, batch_id=1, type="ensure_issue", params={}, temp_key="new:1", result={"key": 5})
    assert latest_settings([odd]) == []


def test_an_aspect_an_only_if_unchanged_command_left_alone_stays_with_the_earlier_command() -> None:
    """A conflict in the later command's result: it did not set the priority, so the earlier command still owns
    it, and the later one owns only what it set."""
    early = cmd(1, "ensure_fields", key="A-1", priority="High")
    left = SetCommand(
        id=2,
        batch_id=1,
        type="ensure_fields",
        params={"key": "A-1", "priority": "Low", "duedate": "2026-10-01", "if_unchanged": {"priority": "Medium"}},
        result={"conflicts": [{"field": "priority", "expected": "Medium", "found": "High"}]},
    )
    assert [(s.command.id, s.aspects) for s in latest_settings([early, left])] == [
        (1, ("priority",)),
        (2, ("duedate",)),
    ]


def test_a_status_target_given_as_a_name_is_wanted_whole() -> None:
    """ensure_status's target may be one name (not a path): the drift wants that name, not its last letter."""
    found = drift(
        [cmd(1, "ensure_status", key="A-1", target="Готово")], {"A-1": MirrorIssue(key="A-1", status="Новая")}
    )
    assert brief(found) == [(1, "A-1", "status", "Готово", "Новая")]


def test_a_sprint_drift_shows_the_sprint_the_issue_is_in_now() -> None:
    """The current value of a sprint aspect is the name of the issue's sprint («backlog» only without one)."""
    in_other = MirrorIssue(key="A-1", sprint=SprintRef(id=2, name="Спринт 1", state="active"))
    found = drift([cmd(1, "ensure_sprint", key="A-1", sprint="Спринт 2", board_id=4)], {"A-1": in_other})
    assert brief(found) == [(1, "A-1", "sprint", "Спринт 2", "Спринт 1")]


def test_a_link_type_missing_from_the_settings_is_wanted_by_its_own_name() -> None:
    """A logical link type the settings no longer map is wanted under its own name (Jira's name as given)."""
    mirror = {"A-1": MirrorIssue(key="A-1"), "A-2": MirrorIssue(key="A-2")}
    found = drift([cmd(1, "ensure_link", source="A-1", target="A-2", link_type="Дублирует")], mirror)
    assert brief(found) == [(1, "A-1", "link", {"source": "A-1", "target": "A-2", "type": "Дублирует"}, [])]


def test_a_drift_names_the_batch_of_its_command() -> None:
    """Each drift carries its command's batch (the drift page links it)."""
    found = drift([cmd(1, "ensure_fields", batch_id=7, key="A-1", priority="High")], {"A-1": MirrorIssue(key="A-1")})
    assert [(d.command_id, d.batch_id) for d in found] == [(1, 7)]


def test_a_setting_passed_over_does_not_stop_the_ones_after_it() -> None:
    """A setting not yet judged (its issue read before it finished, or not in the mirror) is passed over; the
    settings after it are still judged."""
    late = SetCommand(
        id=1,
        batch_id=1,
        type="ensure_fields",
        params={"key": "A-1", "priority": "High"},
        finished_at=T0 + timedelta(hours=1),
    )
    absent = cmd(2, "ensure_fields", key="A-5", priority="High")
    judged = SetCommand(
        id=3, batch_id=1, type="ensure_fields", params={"key": "A-2", "priority": "High"}, finished_at=T0
    )
    mirror = {"A-1": MirrorIssue(key="A-1", priority="Low"), "A-2": MirrorIssue(key="A-2", priority="Low")}
    found = drift([late, absent, judged], mirror, read_at={"A-1": T0, "A-2": T0 + timedelta(hours=2)})
    assert brief(found) == [(3, "A-2", "priority", "High", "Low")]


def test_reapply_merges_every_drifted_label_of_a_command() -> None:
    """All the drifted labels of one ensure_fields go back in one command: each list whole, in its order."""
    cmds = [cmd(1, "ensure_fields", key="A-1", labels_add=["l1", "l2"], labels_remove=["r1", "r2"])]
    found = drift(cmds, {"A-1": MirrorIssue(key="A-1", labels=("r1", "r2"))})
    assert [d.aspect for d in found] == ["label:l1", "label:l2", "label:r1", "label:r2"]
    body = reapply_body(found, author="planner", title="возврат", project=None)
    assert body["commands"] == [
        {"type": "ensure_fields", "params": {"key": "A-1", "labels_add": ["l1", "l2"], "labels_remove": ["r1", "r2"]}},
    ]


def test_reapply_numbers_each_recreated_issue_anew() -> None:
    """Vanished issues a batch created come back as new:1, new:2, … in the order they were first set."""
    cmds = [created(1, "new:7", "A-8", summary="Первая"), created(2, "new:3", "A-9", summary="Вторая")]
    found = drift(cmds, {}, vanished={"A-8": MirrorIssue(key="A-8"), "A-9": MirrorIssue(key="A-9")})
    body = reapply_body(found, author="planner", title="возврат", project="AWPCA")
    assert [c["params"]["temp_key"] for c in body["commands"]] == ["new:1", "new:2"]
    assert [c["params"]["summary"] for c in body["commands"]] == ["Первая", "Вторая"]


def test_the_backlog_and_a_link_removed_drift_when_they_are_undone() -> None:
    """A move to the backlog holds while the issue is in no sprint; a link removed holds while it is absent: each
    drifts once a person puts it back, the wanted link as none."""
    cmds = [
        cmd(1, "ensure_sprint", key="A-1", sprint=None, board_id=4216),
        cmd(2, "ensure_link", source="A-1", target="A-2", link_type="блокирует начало", present=False),
    ]
    assert drift(cmds, {"A-1": MirrorIssue(key="A-1"), "A-2": MirrorIssue(key="A-2")}) == []
    back = MirrorIssue(
        key="A-1",
        sprint=SprintRef(id=1, name="Спринт 2", state="active"),
        links=(MirrorLink(id="9", type="Блокирует начало", source="A-1", target="A-2"),),
    )
    assert brief(drift(cmds, {"A-1": back, "A-2": MirrorIssue(key="A-2")})) == [
        (1, "A-1", "sprint", "backlog", "Спринт 2"),
        (2, "A-1", "link", None, [{"source": "A-1", "target": "A-2", "type": "Блокирует начало"}]),
    ]
