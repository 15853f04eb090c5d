"""Rules of the core that the mutation run found no fast test stating (issue 16): drift, temp keys, reports,
history, agents, lifecycle and settings."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from reconcile.agents import AgentConflict, check_claimant
from reconcile.confirm import AgentFacts
from reconcile.drift import Drift, SetCommand, attribute, find_drift, latest_settings, reapply_body
from reconcile.history import JournalMark, SyncRunMark, format_since, history_param, journal_mark
from reconcile.lifecycle import CommandStatus, Event, IllegalTransition, advance
from reconcile.records import HistoryEntry, HistoryItem, MirrorIssue, SprintRef
from reconcile.reports import decide_report, vanishes
from reconcile.settings import IssueTypeRef, Settings, settings_from_json
from reconcile.tempkeys import TempKeyOutcome, outcome_of, resolved_keys, substitute

LINK_TYPES = Settings().link_types
FACTS = AgentFacts(jira_user="bridge-user", symmetric_link_types=frozenset({"Связанные"}))
T0 = datetime(2026, 10, 22, 9, 0, tzinfo=UTC)


@pytest.fixture
def moscow(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The machine's zone is Moscow (UTC+3): nothing the core answers may depend on it."""
    monkeypatch.setenv("TZ", "Europe/Moscow")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def cmd(command_id: int, type_: str, batch_id: int = 1, **params: Any) -> SetCommand:
    return SetCommand(id=command_id, batch_id=batch_id, type=type_, params=params)


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


def drift(commands: list[SetCommand], mirror: dict[str, MirrorIssue], **kw: Any) -> list[Drift]:
    return find_drift(latest_settings(commands), mirror=mirror, facts=FACTS, link_types=LINK_TYPES, **kw)


def brief(items: list[Drift]) -> list[tuple[int, str, str, Any, Any]]:
    return [(d.command_id, d.key, d.aspect, d.wanted, d.now) for d in items]


# --- drift ----------------------------------------------------------------------------------------------------


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


def _who(item: Drift, *entries: HistoryEntry) -> tuple[str | None, str | None]:
    journal: dict[str, list[HistoryEntry]] = {}
    for found in entries:
        journal.setdefault(found.key, []).append(found)
    [answered] = attribute([item], journal)
    return answered.changed_by, answered.changed_at


def _planned(now: str | None) -> Drift:
    return Drift(
        command_id=1,
        batch_id=1,
        key="A-1",
        type="ensure_fields",
        aspect="planned_start",
        wanted="2026-11-01",
        now=now,
        params={"key": "A-1", "planned_start": "2026-11-01"},
    )


@pytest.mark.parametrize(
    ("now", "item"),
    [
        (None, HistoryItem(field="cf", from_="2026-11-01")),
        ("2026-11-05", HistoryItem(field="cf", to="2026-11-05")),
        ("2026-11-05", HistoryItem(field="cf", to_string="2026-11-05")),
        (None, HistoryItem(field="cf", from_string="2026-11-01")),
    ],
)
def test_a_planned_date_is_touched_by_a_date_in_any_one_of_the_four_values(now: str | None, item: HistoryItem) -> None:
    """A custom field moved from or to a date — in its raw or its shown value, any one of them alone — touches
    a planned date when it now shows the mirror's value (none when the date was cleared)."""
    assert _who(
        _planned(now), HistoryEntry(key="A-1", id="1", created="2026-10-22T09:00:00Z", author="p", items=(item,))
    ) == ("p", "2026-10-22T09:00:00Z")


def test_a_custom_field_without_dates_never_touches_a_cleared_planned_date() -> None:
    """A later change of a custom field that holds no date (story points cleared) is not the change of the
    cleared planned date: the entry that cleared the date is."""
    cleared = HistoryEntry(
        key="A-1",
        id="1",
        created="2026-10-22T09:00:00Z",
        author="ivanov",
        items=(HistoryItem(field="Начало (план)", from_string="2026-11-01"),),
    )
    points = HistoryEntry(
        key="A-1",
        id="2",
        created="2026-10-22T10:00:00Z",
        author="petrov",
        items=(HistoryItem(field="Story Points", from_string="3"),),
    )
    assert _who(_planned(None), cleared, points) == ("ivanov", "2026-10-22T09:00:00Z")


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


# --- temp keys ----------------------------------------------------------------------------------------------------


def test_the_outcome_of_an_ensure_issue_without_a_result_or_a_text_key_has_no_key() -> None:
    """A queued ensure_issue has no result; a key that is not a text is no key."""
    assert outcome_of("queued", None) == TempKeyOutcome(status="queued")
    assert outcome_of("done", {"key": 5}) == TempKeyOutcome(status="done")
    assert outcome_of("done", {"key": "A-1"}) == TempKeyOutcome(status="done", key="A-1")


def test_only_resolved_outcomes_give_keys() -> None:
    """A cancelled ensure_issue whose late report named its key is not resolved: its dependents get no key."""
    outcomes = {
        "new:1": TempKeyOutcome(status="cancelled", key="A-5"),
        "new:2": TempKeyOutcome(status="done", key="A-6"),
        "new:3": TempKeyOutcome(status="failed", key="A-7"),
    }
    assert resolved_keys(outcomes) == {"new:2": "A-6"}


def test_a_refresh_by_jql_with_null_keys_keeps_them_null() -> None:
    """A refresh whose keys are null (it reads its jql) has nothing to substitute."""
    params = {"jql": "project = AURORA", "keys": None}
    assert substitute("refresh", params, {"new:1": "A-1"}) == params


# --- reports ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command_type", "status", "result"),
    [
        ("ensure_issue", "failed", {"key": "A-9"}),
        ("ensure_comment", "done", {"key": "A-9"}),
        ("ensure_issue", "done", {"key": ""}),
        ("ensure_issue", "done", {"key": 9}),
    ],
)
def test_only_a_done_ensure_issue_names_a_created_key(command_type: str, status: str, result: dict[str, Any]) -> None:
    """The key a report records is a done ensure_issue's non-empty text key, and nothing else's."""
    decision = decide_report(
        command_type=command_type,
        current_status="claimed",
        current_error=None,
        reported_status=status,
        result=result,
        refresh_finished=False,
    )
    assert decision.key is None
    done = decide_report(
        command_type="ensure_issue",
        current_status="claimed",
        current_error=None,
        reported_status="done",
        result={"key": "A-9"},
        refresh_finished=False,
    )
    assert done.key == "A-9"


def test_only_a_done_refresh_applies_its_result() -> None:
    """A claimed refresh reported done applies its facts; a done ensure_issue or a failed refresh does not."""

    def apply(command_type: str, status: str) -> bool:
        return decide_report(
            command_type=command_type,
            current_status="claimed",
            current_error=None,
            reported_status=status,
            result={},
            refresh_finished=False,
        ).apply_refresh

    assert apply("refresh", "done") is True
    assert apply("ensure_issue", "done") is False
    assert apply("refresh", "failed") is False


def test_an_issue_refreshed_at_the_instant_the_run_began_stays() -> None:
    """«Refreshed since the run began» includes the very instant it began: such an issue has not vanished."""

    def gone(refreshed_at: datetime) -> bool:
        return vanishes(
            labels=["AWPCA"],
            project_names=["AWPCA"],
            returned_by_run=False,
            refreshed_at=refreshed_at,
            run_started_at=T0,
        )

    assert gone(T0) is False
    assert gone(T0 - timedelta(microseconds=1)) is True


# --- history ------------------------------------------------------------------------------------------------------


@pytest.mark.usefixtures("moscow")
def test_journal_times_are_utc_whatever_the_machine_zone() -> None:
    """A naive started_at (SQLite) is UTC, an aware one its instant; ``since`` is written in UTC — in any zone."""
    assert format_since(datetime(2026, 10, 22, 9, 0)) == "2026-10-22T08:45:00Z"
    assert format_since(datetime(2026, 10, 22, 12, 0, tzinfo=timezone(timedelta(hours=3)))) == "2026-10-22T08:45:00Z"
    naive = SyncRunMark(started_at=datetime(2026, 10, 22, 9, 0), query="a", history_at=T0)
    aware = SyncRunMark(
        started_at=datetime(2026, 10, 22, 10, 0, tzinfo=timezone(timedelta(hours=3))), query="b", history_at=T0
    )  # 07:00 UTC: earlier than the naive 09:00 UTC
    assert journal_mark([naive, aware]) == JournalMark(started_at=naive.started_at, query="a")
    assert journal_mark([aware, naive]) == JournalMark(started_at=naive.started_at, query="a")


def test_history_param_refuses_a_base_flag_that_disagrees() -> None:
    """``has_base_jql`` must agree with ``base_jql``: a caller that passes both differently is told so."""
    with pytest.raises(ValueError) as refused:
        history_param(full=True, has_base_jql=True, mark=None, base_jql=None)
    assert str(refused.value) == "has_base_jql disagrees with base_jql"


# --- agents and lifecycle -----------------------------------------------------------------------------------------


@pytest.mark.usefixtures("moscow")
def test_a_refused_claim_says_when_the_active_agent_was_seen_in_utc() -> None:
    """The 409 names the active agent's last sighting as UTC with Z, whatever the machine's zone."""
    seen = datetime(2026, 10, 22, 12, 0, 5, tzinfo=timezone(timedelta(hours=3)))
    with pytest.raises(AgentConflict) as refused:
        check_claimant(
            "agent-2", active="agent-1", active_seen_at=seen, now=seen + timedelta(seconds=10), claim_wait_seconds=25
        )
    assert refused.value.message == (
        "активен другой агент agent-1 (последний раз 2026-10-22T09:00:05Z); второй агент не допускается"
    )


def test_an_illegal_move_carries_the_command_it_refused() -> None:
    """The refusal keeps the command's id (none when not given) beside its status and event."""
    with pytest.raises(IllegalTransition) as refused:
        advance(CommandStatus.CLAIMED, Event.CANCEL, command_id=40)
    assert (refused.value.status, refused.value.event, refused.value.command_id) == (
        CommandStatus.CLAIMED,
        Event.CANCEL,
        40,
    )
    with pytest.raises(IllegalTransition) as anonymous:
        advance(CommandStatus.DONE, Event.ISSUE)
    assert anonymous.value.command_id is None


# --- settings -----------------------------------------------------------------------------------------------------


def test_an_issue_type_is_set_by_a_non_blank_id_or_name() -> None:
    """Neither id nor name, or only blanks, is not set; either one non-blank is."""
    assert IssueTypeRef().is_set() is False
    assert IssueTypeRef(id=" ", name=" ").is_set() is False
    assert IssueTypeRef(name="Задача").is_set() is True
    assert IssueTypeRef(id="10001").is_set() is True


def test_the_default_link_types_are_the_seeds() -> None:
    """Out of the box the logical link types map to Jira's «Блокирует начало» and «Связанные»."""
    assert Settings().link_types == {"блокирует начало": "Блокирует начало", "связанные": "Связанные"}
    assert settings_from_json({}).link_types == {"блокирует начало": "Блокирует начало", "связанные": "Связанные"}


def test_the_epic_link_field_given_is_the_one_kept() -> None:
    """epic_link keeps the field id it is given, and none in parent mode without one."""
    field = settings_from_json({"epic_link": {"mode": "field", "field_id": "customfield_12345"}})
    assert (field.epic_link.mode, field.epic_link.field_id) == ("field", "customfield_12345")
    parent = settings_from_json({"epic_link": {"mode": "parent", "field_id": None}})
    assert (parent.epic_link.mode, parent.epic_link.field_id) == ("parent", None)


def test_the_jira_project_and_epic_name_field_are_read_as_given() -> None:
    """jira_project is a non-blank text; epic_name_field_id a non-blank text or null."""
    settings = settings_from_json({"jira_project": "ZEUS", "epic_name_field_id": None})
    assert (settings.jira_project, settings.epic_name_field_id) == ("ZEUS", None)
    assert settings_from_json({"epic_name_field_id": "customfield_1"}).epic_name_field_id == "customfield_1"
