"""Confirmation by state: a claimed command whose result the mirror already shows."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from reconcile.config.settings import Settings
from reconcile.outlook.confirm import (
    AgentFacts,
    Aspect,
    Confirmation,
    MirrorNeeds,
    aspect_names,
    aspects,
    confirm,
    mirror_needs,
    narrow,
    subject,
)
from reconcile.types.state_checks import link_match, sprint_match, status_match
from reconcile.vocabulary.records import MirrorIssue, MirrorLink, SprintRef

NOW = datetime(2026, 10, 22, 12, 0, tzinfo=UTC)
LINK_TYPES = Settings().link_types
FACTS = AgentFacts(jira_user="bridge-user", symmetric_link_types=frozenset({"Связанные"}))


def _check(
    command_type: str, params: dict[str, Any], *issues: MirrorIssue, facts: AgentFacts = FACTS
) -> Confirmation | None:
    return confirm(
        command_type,
        params,
        mirror={i.key: i for i in issues},
        facts=facts,
        link_types=LINK_TYPES,
        now=NOW,
    )


def _link(link_id: str, link_type: str, source: str, target: str) -> MirrorLink:
    return MirrorLink(id=link_id, type=link_type, source=source, target=target)


# --- ensure_sprint -------------------------------------------------------------------------------------------


def test_lost_report_fact_in_place() -> None:
    """Scenario «Отчёт потерян, факт на месте»: X is in «Спринт 2» after refresh → confirmed."""
    issue = MirrorIssue(key="AURORA-1538", sprint=SprintRef(id=7, name="Спринт 2", state="active"))
    assert _check("ensure_sprint", {"key": "AURORA-1538", "sprint": "Спринт 2", "board_id": 4216}, issue) == (
        Confirmation(key=None)
    )


def test_sprint_differs() -> None:
    """Another sprint, or none, is not the wanted sprint."""
    params = {"key": "X-1", "sprint": "Спринт 2"}
    assert (
        _check("ensure_sprint", params, MirrorIssue(key="X-1", sprint=SprintRef(id=8, name="Спринт 3", state="future")))
        is None
    )
    assert _check("ensure_sprint", params, MirrorIssue(key="X-1")) is None


def test_backlog_means_no_sprint() -> None:
    """``backlog`` is confirmed when the issue has no sprint, not otherwise."""
    params = {"key": "X-1", "sprint": "backlog"}
    assert _check("ensure_sprint", params, MirrorIssue(key="X-1")) == Confirmation()
    assert (
        _check("ensure_sprint", params, MirrorIssue(key="X-1", sprint=SprintRef(id=7, name="Спринт 2", state="active")))
        is None
    )


def test_issue_missing_from_the_mirror() -> None:
    """No mirror record, no confirmation."""
    assert _check("ensure_sprint", {"key": "X-1", "sprint": "backlog"}) is None


# --- ensure_fields -------------------------------------------------------------------------------------------


def test_description_with_crlf_in_the_mirror() -> None:
    """Scenario «Описание с CRLF в зеркале»: "a\\nb" wanted, "a\\r\\nb" in the mirror → confirmed."""
    issue = MirrorIssue(key="X-1", description="a\r\nb")
    assert _check("ensure_fields", {"key": "X-1", "description": "a\nb"}, issue) == Confirmation()


def test_null_equals_empty_string() -> None:
    """A field cleared with null is confirmed by an empty value, and the other way round."""
    assert (
        _check("ensure_fields", {"key": "X-1", "assignee": None}, MirrorIssue(key="X-1", assignee="")) == Confirmation()
    )
    assert _check("ensure_fields", {"key": "X-1", "description": ""}, MirrorIssue(key="X-1")) == Confirmation()


def test_summary_compares_trimmed_as_jira_stores_it() -> None:
    """A summary wanted with spaces around it is confirmed by Jira's trimmed one; another summary is not."""
    issue = MirrorIssue(key="X-1", summary="Отчёт")
    assert _check("ensure_fields", {"key": "X-1", "summary": " Отчёт "}, issue) == Confirmation()
    assert _check("ensure_fields", {"key": "X-1", "summary": "Отчёт 2"}, issue) is None


def test_all_fields_must_match() -> None:
    """One field that differs keeps the command claimed."""
    issue = MirrorIssue(key="X-1", duedate="2026-10-23", priority="Major", epic_key="X-100", planned_start="2026-10-01")
    params = {
        "key": "X-1",
        "duedate": "2026-10-23",
        "priority": "Major",
        "epic_key": "X-100",
        "planned_start": "2026-10-01",
    }
    assert _check("ensure_fields", params, issue) == Confirmation()
    assert _check("ensure_fields", {**params, "priority": "Minor"}, issue) is None
    assert _check("ensure_fields", {**params, "planned_end": "2026-11-01"}, issue) is None


def test_labels_added_and_removed() -> None:
    """labels_add all present and labels_remove all absent confirm; either way wrong does not."""
    issue = MirrorIssue(key="X-1", labels=("AWPCA", "kind-dev"))
    assert _check("ensure_fields", {"key": "X-1", "labels_add": ["kind-dev"], "labels_remove": ["old"]}, issue) == (
        Confirmation()
    )
    assert _check("ensure_fields", {"key": "X-1", "labels_add": ["new"]}, issue) is None
    assert _check("ensure_fields", {"key": "X-1", "labels_remove": ["kind-dev"]}, issue) is None


def test_fields_with_an_unsubstituted_temp_key_never_confirm() -> None:
    """A command still pointing at a temp key is never confirmed."""
    assert (
        _check("ensure_fields", {"key": "X-1", "epic_key": "new:1"}, MirrorIssue(key="X-1", epic_key="new:1")) is None
    )


# --- ensure_status -------------------------------------------------------------------------------------------


def test_status_equals_last_step_of_the_path() -> None:
    """Only the last step of the path confirms; an intermediate step does not."""
    params = {"key": "X-1", "target": ["Разработка", "Готово"]}
    assert _check("ensure_status", params, MirrorIssue(key="X-1", status="Готово")) == Confirmation()
    assert _check("ensure_status", params, MirrorIssue(key="X-1", status="Разработка")) is None
    assert (
        _check("ensure_status", {"key": "X-1", "target": "Готово"}, MirrorIssue(key="X-1", status="Готово"))
        == Confirmation()
    )


# --- ensure_link ---------------------------------------------------------------------------------------------


def test_symmetric_link_in_the_reverse_direction() -> None:
    """Scenario «Связь симметричного типа в обратную сторону»: only «Связанные» B→A, symmetric → confirmed."""
    a = MirrorIssue(key="AURORA-1445", links=(_link("1", "Связанные", "AURORA-1446", "AURORA-1445"),))
    params = {"source": "AURORA-1445", "target": "AURORA-1446", "link_type": "связанные"}
    assert _check("ensure_link", params, a) == Confirmation()


def test_reverse_link_of_a_type_not_symmetric_is_a_conflict() -> None:
    """Without the symmetric fact, the reverse link is a conflict, not the wanted link."""
    a = MirrorIssue(key="A-1", links=(_link("1", "Связанные", "A-2", "A-1"),))
    params = {"source": "A-1", "target": "A-2", "link_type": "связанные"}
    assert _check("ensure_link", params, a, facts=AgentFacts(jira_user="bridge-user")) is None
    both = MirrorIssue(key="A-1", links=(_link("1", "Связанные", "A-2", "A-1"), _link("2", "Связанные", "A-1", "A-2")))
    assert _check("ensure_link", params, both, facts=AgentFacts(jira_user="bridge-user")) is None


def test_wanted_link_forward() -> None:
    """source→target of the wanted Jira type confirms."""
    a = MirrorIssue(key="A-1", links=(_link("1", "Блокирует начало", "A-1", "A-2"), _link("2", "Дубль", "A-1", "A-2")))
    params = {"source": "A-1", "target": "A-2", "link_type": "блокирует начало"}
    assert _check("ensure_link", params, a) == Confirmation()


def test_link_of_another_configured_type_is_a_conflict() -> None:
    """Another type from link_types between the two issues (either direction) keeps the command claimed."""
    params = {"source": "A-1", "target": "A-2", "link_type": "связанные"}
    for conflict in (_link("2", "Блокирует начало", "A-1", "A-2"), _link("2", "Блокирует начало", "A-2", "A-1")):
        a = MirrorIssue(key="A-1", links=(_link("1", "Связанные", "A-1", "A-2"), conflict))
        assert _check("ensure_link", params, a) is None


def test_links_to_other_issues_do_not_count() -> None:
    """A wanted-type link to a third issue is neither the wanted link nor a conflict."""
    params = {"source": "A-1", "target": "A-2", "link_type": "связанные"}
    a = MirrorIssue(key="A-1", links=(_link("1", "Связанные", "A-1", "A-3"),))
    assert _check("ensure_link", params, a) is None
    b = MirrorIssue(
        key="A-1", links=(_link("1", "Связанные", "A-1", "A-2"), _link("2", "Блокирует начало", "A-1", "A-3"))
    )
    assert _check("ensure_link", params, b) == Confirmation()


def test_unknown_logical_link_type() -> None:
    """A logical name missing from link_types is never confirmed."""
    a = MirrorIssue(key="A-1", links=(_link("1", "Связанные", "A-1", "A-2"),))
    assert _check("ensure_link", {"source": "A-1", "target": "A-2", "link_type": "дубль"}, a) is None


# --- ensure_issue --------------------------------------------------------------------------------------------


def test_creation_confirmed_by_state() -> None:
    """Scenario «Создание подтверждается по состоянию»: same summary, reporter bridge-user, created today."""
    issue = MirrorIssue(
        key="AURORA-1600", summary="Шахматка: комментарии", reporter="bridge-user", created="2026-10-22T09:30:00Z"
    )
    params = {"temp_key": "new:3", "issue_type": "task", "summary": "Шахматка: комментарии"}
    assert _check("ensure_issue", params, issue) == Confirmation(key="AURORA-1600")


def test_creation_never_confirmed_while_jira_user_unknown() -> None:
    """Without the agent's jira_user an ensure_issue is never confirmed."""
    issue = MirrorIssue(key="AURORA-1600", summary="Отчёт", reporter="bridge-user", created="2026-10-22T09:30:00Z")
    params = {"temp_key": "new:3", "summary": "Отчёт"}
    assert _check("ensure_issue", params, issue, facts=AgentFacts()) is None
    assert _check("ensure_issue", params, issue, facts=AgentFacts(jira_user="")) is None


def test_creation_needs_our_reporter_and_the_last_seven_days() -> None:
    """Another reporter, or created more than 7 days ago, does not confirm; exactly 7 days does."""
    params = {"temp_key": "new:3", "summary": "Отчёт"}
    other = MirrorIssue(key="A-1", summary="Отчёт", reporter="ivanov", created="2026-10-22T09:30:00Z")
    old = MirrorIssue(key="A-2", summary="Отчёт", reporter="bridge-user", created="2026-10-15T11:59:59Z")
    edge = MirrorIssue(key="A-3", summary="Отчёт", reporter="bridge-user", created="2026-10-15T15:00:00+03:00")
    assert _check("ensure_issue", params, other, old) is None
    assert _check("ensure_issue", params, other, old, edge) == Confirmation(key="A-3")


def test_creation_summary_compared_after_trimming_and_oldest_wins() -> None:
    """Summaries compare after trimming (Jira trims); of several matches the oldest wins, as in the agent."""
    params = {"temp_key": "new:3", "summary": " Отчёт "}
    newer = MirrorIssue(key="A-9", summary="Отчёт", reporter="bridge-user", created="2026-10-22T10:00:00Z")
    older = MirrorIssue(key="A-8", summary="Отчёт", reporter="bridge-user", created="2026-10-21T10:00:00Z")
    different = MirrorIssue(key="A-7", summary="отчёт", reporter="bridge-user", created="2026-10-20T10:00:00Z")
    assert _check("ensure_issue", params, newer, older, different) == Confirmation(key="A-8")


# --- never confirmed -----------------------------------------------------------------------------------------


def test_comment_attachment_and_refresh_are_never_confirmed() -> None:
    """ensure_comment, ensure_attachment and refresh wait for the agent's report."""
    issue = MirrorIssue(key="X-1")
    assert _check("ensure_comment", {"key": "X-1", "marker": "m", "body": "b"}, issue) is None
    assert _check("ensure_attachment", {"key": "X-1", "file": "0" * 64, "filename": "a.xlsx"}, issue) is None
    assert _check("refresh", {"keys": ["X-1"]}, issue) is None


def test_mirror_needs() -> None:
    """The hub fetches the key (the source for a link), the summary for ensure_issue, nothing otherwise."""
    assert mirror_needs("ensure_fields", {"key": "X-1", "summary": "s"}) == MirrorNeeds(keys=("X-1",))
    assert mirror_needs("ensure_link", {"source": "A-1", "target": "A-2", "link_type": "связанные"}) == MirrorNeeds(
        keys=("A-1",)
    )
    assert mirror_needs("ensure_issue", {"temp_key": "new:1", "summary": " Отчёт "}) == MirrorNeeds(summary="Отчёт")
    assert mirror_needs("ensure_comment", {"key": "X-1", "marker": "m", "body": "b"}) == MirrorNeeds()
    assert mirror_needs("ensure_sprint", {"key": "new:1", "sprint": "backlog"}) == MirrorNeeds()


texts = st.text(alphabet=st.sampled_from("аб \r\n"), max_size=8)


@given(texts)
def test_description_confirmed_by_its_own_crlf_form(text: str) -> None:
    """Whatever the line breaks, the mirror's CRLF form of the wanted text confirms it."""
    issue = MirrorIssue(key="X-1", description=text.replace("\r\n", "\n").replace("\n", "\r\n"))
    assert _check("ensure_fields", {"key": "X-1", "description": text}, issue) == Confirmation()


@given(st.lists(st.sampled_from(["Связанные", "Блокирует начало", "Дубль"]), max_size=3), st.booleans())
def test_wanted_and_conflict_exclude_each_other(types: list[str], reverse: bool) -> None:
    """Adding a conflicting link to a confirmed state always withdraws the confirmation."""
    links = tuple(_link(str(i), t, "A-1", "A-2") for i, t in enumerate(types))
    params = {"source": "A-1", "target": "A-2", "link_type": "связанные"}
    before = _check("ensure_link", params, MirrorIssue(key="A-1", links=links))
    conflict = _link("99", "Блокирует начало", *(("A-2", "A-1") if reverse else ("A-1", "A-2")))
    assert _check("ensure_link", params, MirrorIssue(key="A-1", links=(*links, conflict))) is None
    assert (before is not None) == ("Связанные" in types and "Блокирует начало" not in types)


# --- aspects -------------------------------------------------------------------------------------------------


def test_aspects_of_each_type() -> None:
    """Fields one by one and labels one by one; status, sprint and link whole; nothing for the rest."""
    params = {"key": "X-1", "duedate": "2026-10-23", "labels_add": ["a", "b"], "labels_remove": ["c"]}
    assert aspects("ensure_fields", params) == (
        Aspect(key="X-1", name="duedate", params={"key": "X-1", "duedate": "2026-10-23"}),
        Aspect(key="X-1", name="label:a", params={"key": "X-1", "labels_add": ["a"]}),
        Aspect(key="X-1", name="label:b", params={"key": "X-1", "labels_add": ["b"]}),
        Aspect(key="X-1", name="label:c", params={"key": "X-1", "labels_remove": ["c"]}),
    )
    link = {"source": "A-1", "target": "A-2", "link_type": "связанные"}
    assert aspects("ensure_link", link) == (Aspect(key="A-1", name="link", params=link),)
    assert aspects("ensure_status", {"key": "X-1", "target": "Готово"})[0].name == "status"
    assert aspects("ensure_sprint", {"key": "X-1", "sprint": "backlog"})[0].name == "sprint"
    assert aspects("ensure_fields", {"key": "new:1", "duedate": "2026-10-23"}) == ()
    assert aspects("ensure_issue", {"temp_key": "new:1", "summary": "s"}) == ()
    assert aspects("ensure_comment", {"key": "X-1", "marker": "m", "body": "b"}) == ()


def test_a_label_both_added_and_removed_counts_once_as_removed() -> None:
    """The agent adds, then removes: the label's aspect is its removal."""
    found = aspects("ensure_fields", {"key": "X-1", "labels_add": ["a"], "labels_remove": ["a"]})
    assert found == (Aspect(key="X-1", name="label:a", params={"key": "X-1", "labels_remove": ["a"]}),)


@given(
    st.fixed_dictionaries(
        {},
        optional={
            "description": st.sampled_from(["a\nb", "a\r\nb", None, ""]),
            "priority": st.sampled_from(["Major", "Minor", None]),
            "labels_add": st.lists(st.sampled_from(["a", "b"]), max_size=2, unique=True),
            "labels_remove": st.lists(st.sampled_from(["c", "d"]), max_size=2, unique=True),
        },
    ),
    st.sampled_from(["a\nb", None]),
    st.sampled_from(["Major", "Minor"]),
    st.lists(st.sampled_from(["a", "b", "c", "d"]), unique=True),
)
def test_a_command_holds_exactly_when_each_of_its_aspects_does(
    fields: dict[str, Any], description: str | None, priority: str, labels: list[str]
) -> None:
    """confirm(command) is the conjunction of confirm(aspect) over its aspects."""
    params = {"key": "X-1", **fields}
    issue = MirrorIssue(key="X-1", description=description, priority=priority, labels=tuple(labels))
    whole = _check("ensure_fields", params, issue) is not None
    parts = [_check("ensure_fields", dict(a.params), issue) is not None for a in aspects("ensure_fields", params)]
    assert whole == all(parts)


# --- what the mirror cannot show, and times in other forms ---------------------------------------------------


def test_fields_of_an_issue_missing_from_the_mirror_are_never_confirmed() -> None:
    """No mirror record for the key: not confirmed, even when every wanted value is empty."""
    assert _check("ensure_fields", {"key": "X-1", "description": None}) is None
    assert _check("ensure_fields", {"key": "X-1", "labels_remove": ["old"]}, MirrorIssue(key="X-2")) is None


def test_a_parameter_the_mirror_cannot_show_is_never_confirmed() -> None:
    """A parameter outside the mirror's fields keeps the command claimed, whatever else matches."""
    issue = MirrorIssue(key="X-1", summary="Отчёт")
    assert _check("ensure_fields", {"key": "X-1", "summary": "Отчёт"}, issue) == Confirmation()
    assert _check("ensure_fields", {"key": "X-1", "summary": "Отчёт", "components": ["core"]}, issue) is None
    assert _check("ensure_fields", {"key": "X-1", "summary": 5}, MirrorIssue(key="X-1", summary="5")) is None


def test_a_link_whose_source_is_missing_from_the_mirror_is_not_confirmed() -> None:
    """The links are read from the source's record: without it, nothing confirms (the target's record does
    not count)."""
    target = MirrorIssue(key="A-2", links=(_link("1", "Связанные", "A-1", "A-2"),))
    assert _check("ensure_link", {"source": "A-1", "target": "A-2", "link_type": "связанные"}, target) is None


def test_a_link_of_an_unknown_logical_type_is_not_confirmed_even_by_a_link_of_that_jira_name() -> None:
    """``link_type`` names a logical type of link_types; a Jira type of the same name is no match."""
    a = MirrorIssue(key="A-1", links=(_link("1", "Связанные", "A-1", "A-2"),))
    assert _check("ensure_link", {"source": "A-1", "target": "A-2", "link_type": "Связанные"}, a) is None
    assert _check("ensure_link", {"source": "A-1", "target": 2, "link_type": "связанные"}, a) is None
    assert _check("ensure_link", {"source": "A-1", "target": "A-2", "link_type": None}, a) is None


def _created(created: str | None, *, now: datetime = NOW) -> Confirmation | None:
    issue = MirrorIssue(key="A-1", summary="Отчёт", reporter="bridge-user", created=created)
    return confirm(
        "ensure_issue",
        {"temp_key": "new:1", "summary": "Отчёт"},
        mirror={issue.key: issue},
        facts=FACTS,
        link_types=LINK_TYPES,
        now=now,
    )


def test_a_naive_created_is_read_as_utc() -> None:
    """A ``created`` without an offset is UTC: exactly 7 days before ``now`` confirms, a second earlier not."""
    assert _created("2026-10-15T12:00:00") == Confirmation(key="A-1")
    assert _created("2026-10-15T11:59:59") is None


def test_created_with_an_offset_compares_as_the_instant_it_names() -> None:
    """``+03:00`` is three hours ahead of UTC: 14:59:59+03:00 is 11:59:59Z, a second too early."""
    assert _created("2026-10-15T15:00:00+03:00") == Confirmation(key="A-1")
    assert _created("2026-10-15T14:59:59+03:00") is None
    assert _created("2026-10-15T08:00:00-04:00") == Confirmation(key="A-1")


def test_a_naive_or_non_utc_now_is_the_same_instant() -> None:
    """``now`` without an offset is UTC; with one, the instant it names."""
    naive = NOW.replace(tzinfo=None)
    moscow = NOW.astimezone(timezone(timedelta(hours=3)))
    for now in (naive, moscow):
        assert _created("2026-10-15T12:00:00Z", now=now) == Confirmation(key="A-1")
        assert _created("2026-10-15T11:59:59Z", now=now) is None


def test_an_issue_without_a_readable_created_is_not_ours() -> None:
    """A missing, empty or unreadable ``created`` never confirms."""
    for created in (None, "", "вчера", "2026-13-01T00:00:00Z"):
        assert _created(created) is None


# --- rules the mutation run found unstated (issue 16) ---


def _fields_confirmed(wanted: str | None, now: str | None) -> bool:
    issue = MirrorIssue(key="A-1", summary=now)
    found = confirm(
        "ensure_fields",
        {"key": "A-1", "summary": wanted},
        mirror={"A-1": issue},
        facts=AgentFacts(jira_user="bridge-user"),
        link_types={},
        now=NOW,
    )
    return found is not None


def test_a_null_summary_is_the_empty_summary_when_confirming() -> None:
    """A summary of null and an empty (or blank) one are the same; null and a real summary are not."""
    assert _fields_confirmed(None, None)
    assert _fields_confirmed(None, "")
    assert _fields_confirmed(None, "  ")
    assert not _fields_confirmed(None, "Отчёт")
    assert not _fields_confirmed("Отчёт", None)


def _created_by(issue: MirrorIssue, summary: str, jira_user: str | None = "bridge-user") -> str | None:
    found = confirm(
        "ensure_issue",
        {"temp_key": "new:1", "summary": summary},
        mirror={issue.key: issue},
        facts=AgentFacts(jira_user=jira_user),
        link_types={},
        now=NOW,
    )
    return None if found is None else found.key


def test_an_issue_is_taken_as_created_only_by_a_known_agent_user() -> None:
    """Without the agent's Jira user no issue is taken for the one it created, not even one without a reporter."""
    issue = MirrorIssue(key="A-1", summary="Отчёт", reporter=None, created="2026-10-22T11:00:00Z")
    assert _created_by(issue, "Отчёт", jira_user=None) is None
    assert _created_by(issue, "Отчёт", jira_user="") is None
    mine = MirrorIssue(key="A-2", summary="Отчёт", reporter="bridge-user", created="2026-10-22T11:00:00Z")
    assert _created_by(mine, "Отчёт") == "A-2"


def test_an_issue_without_a_summary_is_never_the_created_one() -> None:
    """An issue whose summary is null matches no command's summary, whatever it is."""
    for summary in ("Отчёт", "XXXX", "?"):
        issue = MirrorIssue(key="A-1", summary=None, reporter="bridge-user", created="2026-10-22T11:00:00Z")
        assert _created_by(issue, summary) is None


def test_only_if_unchanged_is_no_aspect_and_a_reassertion_does_not_carry_it() -> None:
    """``if_unchanged`` guards a write, it is no state: no aspect is named by it, and the state alone (drift's
    «Вернуть») is re-asserted whatever Jira holds now; a type never confirmed, or unknown, has no aspects."""
    assert aspect_names(
        "ensure_fields", {"key": "A-1", "duedate": "2026-10-01", "if_unchanged": {"duedate": None}}
    ) == ("duedate",)
    status = {"key": "A-1", "target": "Готово", "if_unchanged": {"status": "Ревью"}}
    assert aspect_names("ensure_status", status) == ("status",)
    assert narrow("ensure_status", status, "status") == Aspect(
        key="A-1", name="status", params={"key": "A-1", "target": "Готово"}
    )
    sprint = {"key": "A-1", "sprint": "Спринт 2", "if_unchanged": {"sprint": None}}
    assert narrow("ensure_sprint", sprint, "sprint").params == {"key": "A-1", "sprint": "Спринт 2"}
    assert aspect_names("ensure_comment", {"key": "A-1", "marker": "m", "body": "b"}) == ()
    assert aspect_names("no_such_type", {"key": "A-1"}) == ()


def test_the_subject_of_a_command() -> None:
    """Its ``key`` (a link's ``source``); none for a type that names no one issue, or a type no entry knows."""
    assert subject("ensure_fields", {"key": "A-1"}) == "A-1"
    assert subject("ensure_link", {"source": "A-1", "target": "A-2"}) == "A-1"
    assert subject("refresh", {"keys": ["A-1"]}) is None
    assert subject("no_such_type", {"key": "A-1"}) is None


def test_a_link_removal_is_confirmed_while_the_wanted_link_is_gone() -> None:
    """A reversed link of a type that is not symmetric is not the wanted one: the removal holds; the wanted link
    there, it does not. A sprint command naming no sprint is never confirmed."""
    link_types = {"блокирует": "Блокирует"}
    removal = {"source": "A-1", "target": "A-2", "link_type": "блокирует", "present": False}
    reversed_link = MirrorLink(id="1", type="Блокирует", source="A-2", target="A-1")
    forward_link = MirrorLink(id="2", type="Блокирует", source="A-1", target="A-2")
    assert link_match(removal, {"A-1": MirrorIssue(key="A-1", links=(reversed_link,))}, AgentFacts(), link_types)
    assert not link_match(removal, {"A-1": MirrorIssue(key="A-1", links=(forward_link,))}, AgentFacts(), link_types)
    assert not sprint_match({"key": "A-1"}, {"A-1": MirrorIssue(key="A-1")})


def test_a_command_without_its_subject_has_no_aspects() -> None:
    """No ``key`` (a link: no ``source``): no issue shows its state, so it has nothing to drift."""
    assert aspect_names("ensure_fields", {"duedate": "2026-10-01"}) == ()
    assert aspect_names("ensure_status", {"target": "Готово"}) == ()
    assert aspect_names("ensure_link", {"target": "A-2", "link_type": "блокирует"}) == ()


def test_a_key_that_is_no_text_matches_no_issue() -> None:
    """Params not validated (a list for ``key``) confirm nothing, and raise nothing."""
    assert (
        _check("ensure_fields", {"key": ["X-1"], "priority": "High"}, MirrorIssue(key="X-1", priority="High")) is None
    )


def test_only_if_unchanged_is_no_state_the_fields_must_show() -> None:
    """``ensure_fields`` with ``if_unchanged`` is confirmed by its fields alone, the condition left aside."""
    params = {"key": "X-1", "duedate": "2026-10-01", "if_unchanged": {"duedate": None}}
    assert _check("ensure_fields", params, MirrorIssue(key="X-1", duedate="2026-10-01")) == Confirmation()
    assert _check("ensure_fields", params, MirrorIssue(key="X-1", duedate="2026-11-01")) is None


def test_a_status_command_naming_no_target_is_never_confirmed() -> None:
    """No path, or a path of another shape than a name or a list of names: nothing to reach."""
    issue = MirrorIssue(key="X-1", status="Готово")
    assert status_match({"key": "X-1"}, {"X-1": issue}) is False
    assert status_match({"key": "X-1", "target": {"Готово": 1}}, {"X-1": issue}) is False
    assert status_match({"key": "X-1", "target": "Готово"}, {"X-1": issue}) is True
